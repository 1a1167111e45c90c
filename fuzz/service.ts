import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { deleteKeysUnder } from '@ledger/platform';

/**
 * The built service (`node dist/apps/api/src/main.js`) and its operator CLI
 * as separate processes, in an environment of their own: a fresh data
 * directory and Redis prefix, deleted afterwards.
 */
export interface ServiceEnvironment {
  env: Record<string, string>;
  dataDir: string;
  masterKey: string;
  dispose(): Promise<void>;
}

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Only what the harness sets, so a variable of the caller's shell (an
 * EventStoreDB connection string, a clock offset) cannot change what runs.
 * Queue workers run elsewhere, so that nothing appends facts in the
 * background while head positions are compared; private networks are not
 * allowed, as in production, so that the egress policy's refusals (a
 * private address, a port other than 443) are what the harness sees; the
 * rate limit is far above the harness's pace, so that every request
 * reaches the checks.
 */
export async function serviceEnvironment(): Promise<ServiceEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ledger-fuzz-'));
  const prefix = `fuzz:${randomUUID()}`;
  const masterKey = randomBytes(32).toString('hex');
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    REDIS_URL,
    LEDGER_DATA_DIR: dataDir,
    LEDGER_REDIS_PREFIX: prefix,
    LEDGER_MASTER_KEY: masterKey,
    LEDGER_LOG_SIGNING_KEY: randomBytes(32).toString('hex'),
    LEDGER_WORKERS: 'external',
    LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    LEDGER_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  return {
    env,
    dataDir,
    masterKey,
    async dispose() {
      const redis = new Redis(REDIS_URL);
      try {
        await deleteKeysUnder(redis, prefix);
      } finally {
        redis.disconnect();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RunningService {
  pid: number;
  baseUrl: string;
  /** Resident set size now (VmRSS of /proc/<pid>/status), in bytes. */
  rss(): number;
  /** Everything the service wrote to stdout and stderr so far: its log. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within 15 s. */
  stop(): Promise<void>;
}

export async function startService(root: string, environment: ServiceEnvironment, readyTimeoutMs = 60_000): Promise<RunningService> {
  const child = spawn(process.execPath, [join(root, 'dist/apps/api/src/main.js')], { cwd: root, env: environment.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const output = () => Buffer.concat(chunks).toString('utf8');
  const baseUrl = `http://127.0.0.1:${environment.env.PORT}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited during start:\n${output()}`);
    try {
      if ((await fetch(`${baseUrl}/health/ready`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child, exited);
      throw new Error(`the service was not ready within ${readyTimeoutMs} ms:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { pid: child.pid!, baseUrl, rss: () => rssOf(child.pid!), output, stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    // The process has exited.
    return 0;
  }
}

/** `node dist/apps/cli/src/main.js <args>` in the service's environment; its one JSON document. */
export function runCli(root: string, environment: ServiceEnvironment, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'dist/apps/cli/src/main.js'), ...args], { cwd: root, env: environment.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => {
      if (status === 0) resolve(JSON.parse(stdout) as Record<string, unknown>);
      else reject(new Error(`ledger ${args.slice(0, 2).join(' ')} exited ${status}: ${stdout}${stderr}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}
