import { Command, OutputConfiguration } from 'commander';
import { CliCommand, Options, commands } from './commands';
import { toCommanderOption } from './options';

const GROUPS: Record<string, string> = {
  tenant: 'tenants: the integrators (banks) of this ledger',
  key: "a tenant's API keys",
  keys: 'the master key',
  projections: 'the read models built from the ledger',
  queues: 'the background job queues',
  webhooks: 'webhook deliveries',
  retention: "customers' data past its retention",
  export: 'exports for an integrator',
  audit: 'integrity and history, for auditors',
  log: "the ledger's Merkle tree: checkpoints and the key that signs them",
  witness: "a C2SP witness of another log's checkpoints; opens no ledger",
  console: 'the console for compliance staff',
  'console user': 'the people who sign in to the console',
};

/**
 * The command line as commander reads it: `ledger <group> <command>
 * [options]`, with --help everywhere and --version. Commander does not exit
 * the process (exitOverride): it throws, and main.ts turns a mistake into
 * the CLI's JSON error (README.md, "Operator CLI"); help goes to stdout,
 * commander's error line to stderr (or where `output` says). `execute` runs
 * a command once its options are parsed and checked.
 */
export function buildProgram(
  version: string,
  execute: (command: CliCommand, options: Options) => Promise<void>,
  output: OutputConfiguration = {},
): Command {
  const program = new Command('ledger')
    .usage('<command> <subcommand> [options]')
    .description('Operator and auditor commands of the consent ledger. Each prints one JSON document on stdout; progress goes to stderr.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print usage')
    .exitOverride()
    .configureOutput(output);
  const groups = new Map<string, Command>();
  // A group by its path of words (`key`, `console user`), each under the one before it.
  const groupOf = (path: string[]): Command => {
    if (path.length === 0) return program;
    const name = path.join(' ');
    let group = groups.get(name);
    if (!group) {
      // Settings are copied to a subcommand when it is created, so each level repeats none of them.
      group = groupOf(path.slice(0, -1)).command(path[path.length - 1]).description(GROUPS[name]).usage('<subcommand> [options]');
      groups.set(name, group);
    }
    return group;
  };
  for (const [name, command] of Object.entries(commands)) {
    const words = name.split(' ');
    const leaf = groupOf(words.slice(0, -1)).command(words[words.length - 1]).description(command.description).allowExcessArguments(false);
    for (const option of command.options) leaf.addOption(toCommanderOption(option));
    if (command.help) leaf.addHelpText('after', command.help);
    leaf.action(async (options: Options) => {
      command.validate?.(options);
      await execute(command, options);
    });
  }
  return program;
}
