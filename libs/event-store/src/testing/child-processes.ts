import { ChildProcess, execFile, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** The scripts in this folder that the adapters' tests run as processes of their own. */
export type TestScript = 'append-in-child-process' | 'guarded-appends-in-child-process' | 'subscribe-in-child-process';

const ROOT = resolve(__dirname, '../../../..');
const TS_NODE = ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'];
const execFileAsync = promisify(execFile);

function commandLine(script: TestScript, args: string[]): string[] {
  return [...TS_NODE, join(__dirname, `${script}.ts`), ...args];
}

const options = () => ({ cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') } });

/** Runs the script to its end; resolves with what it printed. */
export async function runTestScript(script: TestScript, args: string[], timeoutMs = 60_000): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, commandLine(script, args), { ...options(), timeout: timeoutMs });
  return stdout;
}

/** Starts the script; the caller reads its output and waits for its end. */
export function spawnTestScript(script: TestScript, args: string[]): ChildProcess {
  return spawn(process.execPath, commandLine(script, args), { ...options(), stdio: ['ignore', 'pipe', 'pipe'] });
}
