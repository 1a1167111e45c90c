import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Runs a TypeScript entry point as its own process, the way `npm start` runs the build. */
const TS_NODE = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'), NODE_ENV: 'test', ...env };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed: the CLI prints exactly one JSON document. */
  json: any;
}

/** `npm run --silent ledger -- <args>`, run from source. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_NODE, join(ROOT, 'apps/cli/src/main.ts'), ...args], { cwd: ROOT, env: childEnv(env) });
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

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ApiProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** The API as a separate process (apps/api/src/main.ts), answering once /health/ready is 200. */
export async function spawnApi(env: Record<string, string>, readyTimeoutMs = 60_000): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...TS_NODE, join(ROOT, 'apps/api/src/main.ts')], {
    cwd: ROOT,
    env: childEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API exited during start:\n${output}`);
    try {
      if ((await fetch(`${baseUrl}/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`API not ready within ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, baseUrl, output: () => output, exited };
}
