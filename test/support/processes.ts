import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Runs a TypeScript entry point as its own process, the way `npm start` runs the build. */
const TS_NODE = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // A run on PostgreSQL names the server in DATABASE_URL; a child gets the database of its own environment, never the server's default one.
  // So with Redis: a child gets its environment's Redis, one server or a cluster, never the run's as well.
  return { ...process.env, DATABASE_URL: undefined, REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), NODE_ENV: 'test', ...env };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed: the CLI prints exactly one JSON document. */
  json: any;
}

/** The command exited 0; when it did not, the failure shows what it wrote on stderr (an asymmetric matcher would hide it). */
export function expectExitZero(result: CliResult): void {
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: result.status === 0 ? result.stderr : '' });
}

let cliBuilt = false;

/** `npm run --silent ledger -- <args>`: the built CLI, as operators run it (built first when a source is newer, as npm run ledger does). */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  if (!cliBuilt) {
    ensureBuilt();
    cliBuilt = true;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/cli/src/main.js'), ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ status, stdout, stderr, json });
    });
  });
}

/** Below Linux's ephemeral range (32768 and up by default): ports no socket bound to port 0 is ever handed. */
const CHOSEN_PORTS = { from: 20_000, to: 32_000 };

/**
 * A port a service started later can bind: free now, and drawn from below
 * the kernel's ephemeral range. Between this answer and the service's bind,
 * a listener of another suite (a webhook receiver binds port 0) would
 * otherwise be handed the same port, and the service's readiness checks
 * would land on it. `alsoFree`: offsets of ports the service binds beside
 * it, free too (a Redis Cluster node binds its bus at the port + 10000).
 */
export async function freePort(alsoFree: readonly number[] = []): Promise<number> {
  const highest = CHOSEN_PORTS.to - Math.max(0, ...alsoFree);
  for (;;) {
    const port = CHOSEN_PORTS.from + Math.floor(Math.random() * (highest - CHOSEN_PORTS.from));
    if ((await isFree(port)) && (await Promise.all(alsoFree.map((offset) => isFree(port + offset)))).every(Boolean)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface ApiProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * How a service process runs: from source through ts-node (the default: no
 * build needed, slower to start) or from the build in dist/, as `npm start`
 * and `npm run start:worker` run it (`ensureBuilt` first).
 */
export interface SpawnOptions {
  built?: boolean;
}

/** Builds dist/ when a source is newer than the last build, as `npm start` does. */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-if-needed.js')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

function startService(app: 'api' | 'worker', env: Record<string, string>, { built = false }: SpawnOptions) {
  const args = built ? [join(ROOT, `dist/apps/${app}/src/main.js`)] : [...TS_NODE, join(ROOT, `apps/${app}/src/main.ts`)];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** The API as a separate process (apps/api/src/main.ts), answering once /health/ready says ready (caught up). */
export async function spawnApi(env: Record<string, string>, readyTimeoutMs = 60_000, options: SpawnOptions = {}): Promise<ApiProcess> {
  const port = await freePort();
  const service = startService('api', { ...env, PORT: String(port), HOST: '127.0.0.1' }, options);
  const { child, output } = service;
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API exited during start:\n${output()}`);
    try {
      if (((await (await fetch(`${baseUrl}/health/ready`)).json()) as { status: string }).status === 'ready') break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`API not ready within ${readyTimeoutMs} ms:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...service, baseUrl };
}

export type WorkerProcess = Omit<ApiProcess, 'baseUrl'>;

/**
 * Stops the service processes still running (SIGTERM, as an orchestrator does)
 * and waits for each to end. A process that had already ended on its own
 * crashed under the suite: its output goes to stderr, since the assertion that
 * failed against it (a refused connection, say) does not say why.
 */
export async function stopProcesses(services: ReadonlyArray<WorkerProcess | undefined>): Promise<void> {
  for (const service of services) {
    if (!service) continue;
    const { child } = service;
    if (child.exitCode !== null || child.signalCode !== null) {
      process.stderr.write(`process ${child.pid} had ended on its own (exit ${child.exitCode}, signal ${child.signalCode}) before the suite stopped it; its output:\n${service.output()}\n`);
      continue;
    }
    child.kill('SIGTERM');
    await service.exited;
  }
}

/** The worker (apps/worker/src/main.ts), which has no HTTP port: ready once it logs so. */
export async function spawnWorker(env: Record<string, string>, readyTimeoutMs = 60_000, options: SpawnOptions = {}): Promise<WorkerProcess> {
  // Its readiness is a log line at info level.
  const service = startService('worker', { ...env, LOG_LEVEL: 'info' }, options);
  const deadline = Date.now() + readyTimeoutMs;
  while (!service.output().includes('Worker process ready')) {
    if (service.child.exitCode !== null || Date.now() > deadline) {
      service.child.kill('SIGKILL');
      throw new Error(`worker not ready:\n${service.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return service;
}

/** A size the kernel keeps for a process (`VmRSS`, `VmHWM`), in bytes. */
export function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+) kB/.exec(line ?? '')?.[1]) * 1024;
}

/** Resets the kernel's high-water mark of the process's resident set (VmHWM) to its current size (Linux 4.0+, proc(5)). */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
