import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');

export interface RunningProcess {
  /** Resolves once the process has printed `text` (stdout or stderr); rejects if it exits first or takes too long. */
  waitForOutput(text: string, timeoutMs?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code; rejects if the process does not exit within timeoutMs. */
  stop(signal: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  readonly exited: boolean;
  readonly output: string;
}

/**
 * Runs a TypeScript entry point of this repository in a child process, the
 * way an operator runs the service, with the @ledger/* aliases resolved.
 */
export function startTsProcess(entry: string, env: Record<string, string>): RunningProcess {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', entry],
    { cwd: ROOT, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json'), ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit((exitCode = code))));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${timeoutMs} ms; output:\n${output}`)), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    get exited() {
      return exitCode !== undefined;
    },
    get output() {
      return output;
    },
    waitForOutput(text, timeoutMs = 20_000) {
      const printed = new Promise<void>((resolvePrinted, reject) => {
        const check = () => {
          if (output.includes(text)) resolvePrinted();
          else if (exitCode !== undefined) reject(new Error(`exited with ${exitCode} before printing "${text}":\n${output}`));
          else setTimeout(check, 20);
        };
        check();
      });
      return within(printed, timeoutMs, `"${text}" not printed`);
    },
    stop(signal, timeoutMs = 5_000) {
      child.kill(signal);
      return within(exit, timeoutMs, `no exit after ${signal}`);
    },
  };
}
