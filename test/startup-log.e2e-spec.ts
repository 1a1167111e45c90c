import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, ensureBuilt, spawnApi, stopProcesses } from './support/processes';

// The built service as `npm start` runs it: at the default log level its
// start is one line saying where it listens and with what; Nest's line per
// module, controller and route is there only at debug.
describe('the start-up log', () => {
  const SLOW = 180_000;
  const NEST_START_CONTEXTS = ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'];
  const environments: TestEnvironment[] = [];
  const started: ApiProcess[] = [];

  /** The JSON lines the service wrote up to and including the one saying it listens (readiness checks follow it). */
  async function startupLines(logLevel: string | undefined): Promise<Array<Record<string, any>>> {
    const environment = testEnvironment();
    environments.push(environment);
    const { LOG_LEVEL: _quiet, ...env } = environment.env;
    const api = await spawnApi(logLevel === undefined ? env : { ...env, LOG_LEVEL: logLevel }, 90_000, { built: true });
    started.push(api);
    const lines = api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    return lines.slice(0, lines.findIndex((line) => /^listening on /.test(line.msg)) + 1);
  }

  beforeAll(() => ensureBuilt(), SLOW);
  afterAll(async () => {
    await stopProcesses(started);
    for (const environment of environments) await environment.dispose();
  });

  it(
    'at the default level, is one summary line and no line of Nest\'s modules or routes; at debug, those are there too',
    async () => {
      const [quiet, verbose] = await Promise.all([startupLines(undefined), startupLines('debug')]);
      const store = process.env.DATABASE_URL ? 'postgres' : 'sqlite';
      const summary = new RegExp(`^listening on http://127\\.0\\.0\\.1:\\d+, (\\d+) routes, event store ${store}, workers in-process$`);

      expect(quiet.filter((line) => summary.test(line.msg))).toHaveLength(1);
      expect(quiet.filter((line) => NEST_START_CONTEXTS.includes(line.context) || /Mapped \{/.test(line.msg))).toEqual([]);
      expect(quiet.every((line) => line.level >= 30)).toBe(true);

      const mapped = verbose.filter((line) => /^Mapped \{/.test(line.msg));
      expect(mapped.length).toBeGreaterThan(50);
      for (const context of NEST_START_CONTEXTS) expect(verbose.filter((line) => line.context === context).every((line) => line.level === 20)).toBe(true);
      expect(verbose.some((line) => line.context === 'InstanceLoader')).toBe(true);
      const routes = Number(summary.exec(verbose.at(-1)!.msg)?.[1]);
      // Every route Nest maps, and those served beside it (the OpenAPI document, the reference page).
      expect(routes).toBeGreaterThan(mapped.length);
    },
    SLOW,
  );
});
