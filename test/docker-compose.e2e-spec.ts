import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

// Issue 31: docker/compose.yml must survive a second `up` (its secrets are
// generated once into docker/.env, decision 0061) and be fit to leave running.
// No Docker here: the files are read as Compose and the builder read them.

const ROOT = join(__dirname, '..');
const INIT_ENV = join(ROOT, 'docker/init-env.sh');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Service {
  image: string;
  build?: { context: string; dockerfile: string };
  restart?: string;
  ports?: string[];
  environment?: Record<string, string>;
}
const COMPOSE_TEXT = read('docker/compose.yml');
const services = (parseYaml(COMPOSE_TEXT, { merge: true }) as { services: Record<string, Service> }).services;

/** The variables compose refuses to start without (`${NAME:?message}`). */
const required = new Set([...COMPOSE_TEXT.matchAll(/\$\{(\w+):\?[^}]+\}/g)].map(([, name]) => name));

/** Runs docker/init-env.sh on `target`, from a shell whose umask would leave a new file readable by all. */
function initEnv(target: string): string {
  return execFileSync('sh', ['-c', 'umask 022 && exec "$0" "$1" 2>&1', INIT_ENV, target]).toString();
}

const WILDCARDS: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' };

/** Docker's .dockerignore rule: a path is left out when it or a directory above it matches a pattern. */
function dockerIgnored(patterns: string[], path: string): boolean {
  const expressions = patterns.map((pattern) => {
    const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\/|\*\*|\*|\?/g, (wildcard) => WILDCARDS[wildcard]);
    return new RegExp(`^${source}$`);
  });
  const segments = path.split('/');
  return segments.some((_, end) => expressions.some((expression) => expression.test(segments.slice(0, end + 1).join('/'))));
}

/** Every file at or under `path`, relative to the repository. */
function filesUnder(path: string): string[] {
  if (!statSync(join(ROOT, path)).isDirectory()) return [path];
  return readdirSync(join(ROOT, path)).flatMap((name) => filesUnder(`${path}/${name}`));
}

describe('docker/compose.yml', () => {
  it('publishes no Redis port on the host: the services reach Redis on the compose network', () => {
    expect(services.redis.ports).toBeUndefined();
    const published = Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`));
    expect(published.filter((entry) => /\b6379\b/.test(entry))).toEqual([]);
    expect(services['api-1'].environment!.REDIS_URL).toBe('redis://redis:6379');
  });

  it('lets every service on the image it builds build that image, so any one of them comes up alone', () => {
    const local = Object.entries(services).filter(([, service]) => service.image === 'consent-ledger:local');
    expect(local.map(([name]) => name)).toEqual(['api-1', 'api-2', 'worker']);
    for (const [name, service] of local) {
      expect({ name, build: service.build }).toEqual({ name, build: { context: '..', dockerfile: 'docker/Dockerfile' } });
    }
    // The context is relative to the compose file, the Dockerfile to the context.
    const { context, dockerfile } = local[0][1].build!;
    expect(existsSync(join(ROOT, 'docker', context, dockerfile))).toBe(true);
  });

  it('restarts every long-running service, and not the EventStoreDB that only the contract suite runs', () => {
    const policies = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.restart]));
    expect(policies).toEqual({
      postgres: 'unless-stopped',
      redis: 'unless-stopped',
      'api-1': 'unless-stopped',
      'api-2': 'unless-stopped',
      worker: 'unless-stopped',
      eventstoredb: undefined,
      prometheus: 'unless-stopped',
      grafana: 'unless-stopped',
    });
  });

  it('takes the keys and the database password from variables it refuses to start without, the ones docker/init-env.sh writes', () => {
    const directory = mkdtempSync(join(tmpdir(), 'compose-env-'));
    try {
      initEnv(join(directory, '.env'));
      const written = readFileSync(join(directory, '.env'), 'utf8')
        .split('\n')
        .filter((line) => line && !line.startsWith('#'))
        .map((line) => line.slice(0, line.indexOf('=')));
      expect(new Set(written)).toEqual(required);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    expect([...required].sort()).toEqual(['LEDGER_LOG_SIGNING_KEY', 'LEDGER_MASTER_KEY', 'POSTGRES_PASSWORD']);
    const environment = services['api-1'].environment!;
    expect(environment.LEDGER_MASTER_KEY).toMatch(/^\$\{LEDGER_MASTER_KEY:\?[^}]+\}$/);
    expect(environment.LEDGER_LOG_SIGNING_KEY).toMatch(/^\$\{LEDGER_LOG_SIGNING_KEY:\?[^}]+\}$/);
    expect(environment.DATABASE_URL).toMatch(/^postgres:\/\/ledger:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/ledger$/);
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/);
    for (const name of ['api-2', 'worker']) expect(services[name].environment).toMatchObject(environment);
  });
});

describe('docker/init-env.sh', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'compose-env-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('writes the secrets once, readable by its owner only, and leaves an existing file as it is', () => {
    const target = join(directory, '.env');
    expect(initEnv(target)).toContain(`wrote ${target}`);
    const first = readFileSync(target, 'utf8');
    expect(statSync(target).mode & 0o777).toBe(0o600);
    expect(first).toMatch(/^LEDGER_MASTER_KEY=[0-9a-f]{64}$/m);
    expect(first).toMatch(/^LEDGER_LOG_SIGNING_KEY=[0-9a-f]{64}$/m);
    expect(first).toMatch(/^POSTGRES_PASSWORD=[0-9a-f]{32}$/m);

    expect(initEnv(target)).toContain(`${target} exists; left as it is`);
    expect(readFileSync(target, 'utf8')).toBe(first);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('draws new keys for another file', () => {
    initEnv(join(directory, 'one.env'));
    initEnv(join(directory, 'two.env'));
    const key = (file: string) => /^LEDGER_MASTER_KEY=(\w+)$/m.exec(readFileSync(join(directory, file), 'utf8'))![1];
    expect(key('one.env')).not.toBe(key('two.env'));
  });

  it('writes, unless told where, beside itself, where Compose reads it: docker/.env, which git ignores', () => {
    const docker = join(directory, 'docker');
    mkdirSync(docker);
    copyFileSync(INIT_ENV, join(docker, 'init-env.sh'));
    execFileSync('sh', [join(docker, 'init-env.sh')], { cwd: tmpdir(), stdio: 'ignore' });
    expect(readFileSync(join(docker, '.env'), 'utf8')).toMatch(/^LEDGER_MASTER_KEY=[0-9a-f]{64}$/m);
    expect(read('.gitignore').split('\n')).toContain('docker/.env');
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('keeps dependencies, history, local data and secrets out of the build context', () => {
    // dockerIgnored knows no exceptions (`!pattern`), and the file needs none.
    expect(patterns.filter((pattern) => pattern.startsWith('!'))).toEqual([]);
    for (const path of ['node_modules', 'node_modules/pg/package.json', '.git/HEAD', 'data/master.key', 'data/ledger.sqlite', 'docker/.env', 'dist/apps/api/src/main.js']) {
      expect({ path, ignored: dockerIgnored(patterns, path) }).toEqual({ path, ignored: true });
    }
  });

  it('keeps every source docker/Dockerfile copies', () => {
    const copied = read('docker/Dockerfile')
      .split('\n')
      .filter((line) => /^COPY\s/.test(line) && !/--from=/.test(line))
      .flatMap((line) => line.trim().split(/\s+/).slice(1, -1));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'scripts', 'apps', 'libs']));
    // The sources the build compiles, not whatever else a working copy may hold beside them.
    const sources = copied.flatMap(filesUnder).filter((path) => /\.(ts|js|json)$/.test(path));
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((path) => dockerIgnored(patterns, path))).toEqual([]);
  });
});
