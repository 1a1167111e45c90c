import { CommanderError } from 'commander';
import { SCOPES, SCOPE_MEANINGS } from '@ledger/platform';
import { UsageError } from './cli-error';
import { commands } from './commands';
import { buildProgram } from './program';

/** Parses `args` as `ledger` would, without running a command: what was printed, and what the parse ended with. */
async function parse(args: string[]) {
  const printed = { stdout: '', stderr: '' };
  const executed: Array<{ options: Record<string, unknown> }> = [];
  const program = buildProgram('9.9.9', async (_command, options) => void executed.push({ options }), {
    writeOut: (text) => (printed.stdout += text),
    writeErr: (text) => (printed.stderr += text),
  });
  // Commander's `help` ends with process.exitCode: a suite that failed earlier in this process must not make it 1.
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  const ended = await program
    .parseAsync(args, { from: 'user' })
    .then(
      () => null,
      (error: unknown) => error,
    )
    .finally(() => (process.exitCode = exitCode));
  return { ...printed, ended, executed };
}

describe('the command line', () => {
  it.each(Object.keys(commands))('`%s --help` prints its usage and every option on stdout, runs nothing and ends with status 0', async (name) => {
    const { stdout, stderr, ended, executed } = await parse([...name.split(' '), '--help']);
    expect(ended).toBeInstanceOf(CommanderError);
    expect((ended as CommanderError).exitCode).toBe(0);
    expect(stdout).toContain(`Usage: ledger ${name} `);
    expect(stdout).toContain(commands[name].description.slice(0, 40));
    for (const option of commands[name].options) expect(stdout).toContain(option.flags);
    expect(stderr).toBe('');
    expect(executed).toEqual([]);
  });

  it('`key issue --help` lists every scope a key may carry, each with what it allows', async () => {
    const { stdout } = await parse(['key', 'issue', '--help']);
    const listed = stdout.slice(stdout.indexOf('\nScopes:\n')).split('\n').slice(2).filter(Boolean);
    expect(listed.map((line) => line.trim().split(/ {2,}/))).toEqual(SCOPES.map((scope) => [scope, SCOPE_MEANINGS[scope]]));
  });

  it.each([...new Set(Object.keys(commands).map((name) => name.split(' ')[0]))])('`%s --help` lists the commands of the group', async (group) => {
    const { stdout, ended } = await parse([group, '--help']);
    expect((ended as CommanderError).exitCode).toBe(0);
    for (const name of Object.keys(commands).filter((n) => n.startsWith(`${group} `))) expect(stdout).toContain(name.split(' ')[1]);
  });

  it('`--help` and `help` list every group; `--version` prints the version', async () => {
    for (const args of [['--help'], ['help']]) {
      const { stdout, ended } = await parse(args);
      expect((ended as CommanderError).exitCode).toBe(0);
      for (const group of new Set(Object.keys(commands).map((name) => name.split(' ')[0]))) expect(stdout).toMatch(new RegExp(`^  ${group} `, 'm'));
    }
    const version = await parse(['--version']);
    expect([version.stdout, (version.ended as CommanderError).exitCode]).toEqual(['9.9.9\n', 0]);
  });

  it('runs a command with its options parsed and checked', async () => {
    const tenant = '0F0E0D0C-0000-4000-8000-000000000000';
    const { ended, executed } = await parse(['webhooks', 'redeliver', '--tenant', tenant, '--endpoint', '00000000-0000-4000-8000-00000000000a', '--since', '1970-01-01T00:00:01Z']);
    expect(ended).toBeNull();
    expect(executed).toEqual([{ options: { tenant: tenant.toLowerCase(), endpoint: '00000000-0000-4000-8000-00000000000a', since: 1000 } }]);
  });

  it.each([
    ['a repeated option', ['tenant', 'create', '--name', 'A', '--name', 'B'], /--name.*given more than once/],
    ['a missing required option', ['key', 'issue', '--tenant', '00000000-0000-4000-8000-000000000000'], /--scopes/],
    ['a malformed id', ['key', 'list', '--tenant', 'acme'], /--tenant.*must be a tenant id/],
    ['a malformed key id', ['key', 'revoke', '--key', 'lk_secret'], /--key.*24 hexadecimal/],
    ['a value outside its choices', ['audit', 'replay', '--tenant', '00000000-0000-4000-8000-000000000000', '--consent', '00000000-0000-4000-8000-000000000001', '--format', 'xml'], /--format.*json or text/],
    ['an unknown option', ['projections', 'status', '--force'], /--force/],
    ['a stray argument', ['tenant', 'list', 'all'], /argument/],
    ['a blank value', ['tenant', 'create', '--name', ' '], /--name.*blank/],
    ['an instant that is not one', ['export', 'consents', '--tenant', '00000000-0000-4000-8000-000000000000', '--from', 'yesterday'], /--from.*epoch milliseconds/],
  ])('refuses %s before running anything', async (_what, args, message) => {
    const { ended, executed } = await parse(args);
    // A value's own check is a UsageError; commander's (unknown option, missing one, stray argument) a CommanderError: both are USAGE for main.ts.
    expect(ended instanceof UsageError || (ended instanceof CommanderError && ended.exitCode !== 0)).toBe(true);
    expect((ended as Error).message).toMatch(message);
    expect(executed).toEqual([]);
  });

  it('does not quote a refused value: one typed in the wrong place may be a secret', async () => {
    const { ended } = await parse(['key', 'revoke', '--key', 'lk_0123456789abcdef01234567_s3cr3t']);
    expect(ended).toBeInstanceOf(UsageError);
    expect((ended as Error).message).toBe('--key must be a key id (24 hexadecimal characters)');
  });

  it('refuses `tenant configure` naming no setting before running it', async () => {
    const { ended, executed } = await parse(['tenant', 'configure', '--tenant', '00000000-0000-4000-8000-000000000000']);
    expect(ended).toBeInstanceOf(UsageError);
    expect(executed).toEqual([]);
  });
});
