import { parseArgs } from 'node:util';
import { LedgerNotFoundError, createEventStore } from '@ledger/event-store';
import { BlobStore, createBlobStore } from '@ledger/artifacts';
import { CustomerKeyTable, CustomerKeyring, TenantKeyring, openCustomerKeyTable } from '@ledger/ledger';
import { BlobProtection, DomainError, createRedis, loadConfig, masterKeys, systemClock } from '@ledger/platform';
import { ProjectionRunner, ReadModel } from '@ledger/projections';
import { queuePrefix } from '@ledger/queues';
import { Queue } from 'bullmq';
import { PROJECTIONS } from '../../api/src/projections';
import { CommandError, UsageError } from './cli-error';
import { CliOutput } from './cli-output';
import { commands } from './commands';

/**
 * `npm run --silent ledger -- <command>`: operator and auditor commands with
 * the same environment as the service. stdout carries exactly one JSON
 * document; progress and warnings go to stderr.
 */
async function main(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ');
  const command = commands[name];
  if (!command) {
    throw new UsageError(`unknown command "${name}"; commands: ${Object.values(commands).map((c) => c.usage).join(' | ')}`);
  }
  const { values } = parseArgs({
    args: argv.slice(2),
    options: Object.fromEntries([
      ...command.options.map((o) => [o, { type: 'string' as const }]),
      ...(command.flags ?? []).map((f) => [f, { type: 'boolean' as const }]),
    ]),
    strict: true,
    allowPositionals: false,
  });

  const config = loadConfig();
  // Only a command that creates may start a ledger; the others read one that must exist.
  const store = createEventStore(config, { create: command.createsLedger === true });
  let redis: ReturnType<typeof createRedis> | undefined;
  const connection = () => (redis ??= createRedis(config.redisUrl, 'ledger-cli', { maxRetriesPerRequest: 3 }));
  const queues = new Map<string, Queue>();
  let keyTable: CustomerKeyTable | undefined;
  let blobs: BlobStore | undefined;
  const clock = systemClock(config.clockOffsetMs);
  const keys = masterKeys(config.masterKey, config.previousMasterKeys);
  try {
    // A flag given reads as 'true', like an option's value.
    const options = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value === true ? 'true' : value === false ? undefined : value]));
    const result = await command.run(options as Record<string, string | undefined>, {
      store,
      clock,
      masterKeys: keys,
      keyTable: () => (keyTable ??= openCustomerKeyTable(config)),
      blobs: async () => {
        // Opened only by the commands that need blobs: unwrapping the tenants' keys needs the master key that wrapped them.
        const tenantKeys = await TenantKeyring.open(store, keys, clock);
        return (blobs ??= createBlobStore(config, new BlobProtection(tenantKeys, new CustomerKeyring(tenantKeys, (keyTable ??= openCustomerKeyTable(config)), clock))));
      },
      projections: () => new ProjectionRunner({ store, redis: connection(), prefix: config.redisPrefix, projections: PROJECTIONS }),
      readModel: () => new ReadModel({ redis: connection(), prefix: config.redisPrefix }),
      queue: (name) => {
        if (!queues.has(name)) queues.set(name, new Queue(name, { connection: connection(), prefix: queuePrefix(config.redisPrefix) }));
        return queues.get(name)!;
      },
      progress: (line) => process.stderr.write(`${line}\n`),
      write: (chunk) => new Promise<void>((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
    });
    const output = result instanceof CliOutput ? result : CliOutput.json(result);
    if (output !== CliOutput.streamed) process.stdout.write(output.stdout.endsWith('\n') ? output.stdout : `${output.stdout}\n`);
    return output.status;
  } finally {
    await Promise.all([...queues.values()].map((queue) => queue.close()));
    await store.close();
    await keyTable?.close();
    await blobs?.close();
    redis?.disconnect();
  }
}

function report(error: unknown): number {
  const body = { error: errorOf(error) };
  process.stdout.write(`${JSON.stringify(body)}\n`);
  return body.error.code === 'USAGE' ? 2 : 1;
}

function errorOf(error: unknown): { code: string; message: string; errors?: unknown[] } {
  if (error instanceof DomainError) return { code: error.code, message: error.detail, ...(error.errors ? { errors: error.errors } : {}) };
  if (error instanceof LedgerNotFoundError) return { code: 'LEDGER_NOT_FOUND', message: `${error.message}; only \`tenant create\` starts a new ledger` };
  if (error instanceof CommandError) return { code: error.code, message: error.message };
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) return { code: 'USAGE', message: (error as Error).message };
  return { code: 'FAILED', message: error instanceof Error ? error.message : String(error) };
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => process.exit(report(error)),
);
