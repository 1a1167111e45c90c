import { CommanderError } from 'commander';
import { LedgerNotFoundError, LogBuildProgress, createEventStore } from '@ledger/event-store';
import { BlobStore, createBlobStore } from '@ledger/artifacts';
import { CustomerKeyTable, CustomerKeyring, TenantKeyring, openCustomerKeyTable } from '@ledger/ledger';
import { BlobProtection, DomainError, MasterKeys, buildInfo, createRedis, loadConfig, masterKeys, systemClock, type RedisClient, type RedisLocation } from '@ledger/platform';
import { ProjectionRunner, ReadModel } from '@ledger/projections';
import { queuePrefix } from '@ledger/queues';
import { Queue } from 'bullmq';
import { logIdentity } from '@ledger/ledger-log';
import { PROJECTIONS } from '../../api/src/projections';
import { rebuildPartitions } from './rebuild-partitions';
import { CommandError, UsageError } from './cli-error';
import { CliOutput } from './cli-output';
import { CliCommand, Options } from './commands';
import { buildProgram } from './program';

/**
 * `npm run --silent ledger -- <command>`: operator and auditor commands with
 * the same environment as the service. stdout carries exactly one JSON
 * document (or the usage asked for with --help); progress and warnings go to
 * stderr.
 */
async function main(argv: string[]): Promise<number> {
  let status = 0;
  const program = buildProgram(buildInfo().version, async (command, options) => {
    status = await execute(command, options);
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help and --version: printed on stdout, and done.
    if (error.exitCode === 0) return 0;
    throw new UsageError(usageMistake(error, argv));
  }
  return status;
}

function usageMistake(error: CommanderError, argv: string[]): string {
  // A group named without its command: commander printed the group's usage on stderr.
  if (error.code === 'commander.help') return 'name a command; --help lists them';
  // Commander names only the word it did not know; the operator typed the whole command.
  if (error.code === 'commander.unknownCommand') return `unknown command "${argv.filter((word) => !word.startsWith('-')).slice(0, 2).join(' ')}"; --help lists the commands`;
  return error.message.replace(/^error: /, '');
}

/** Opens what the command needs, runs it, prints its document, and closes everything it opened. */
async function execute(command: CliCommand, options: Options): Promise<number> {
  // A witness works beside a ledger, maybe on another machine: it needs no configuration, store or Redis.
  if (command.opensLedger === false) return print(await command.run(options, { progress, write }));
  // Only a command that creates may start a ledger, or generate its keys; the others read a ledger that must exist, and leave a data dir as they found it.
  const creates = command.createsLedger === true;
  const config = loadConfig(process.env, undefined, { generateKeys: creates });
  const store = createEventStore(config, { create: creates, onLogBuild: (p) => progress(logBuildLine(p)) });
  let redis: RedisClient | undefined;
  const connection = () => (redis ??= reportUnreachable(createRedis(config.redis, 'ledger-cli', { maxRetriesPerRequest: 3 }), config.redis));
  const queues = new Map<string, Queue>();
  let keyTable: CustomerKeyTable | undefined;
  let blobs: BlobStore | undefined;
  const clock = systemClock(config.clockOffsetMs);
  let keys: MasterKeys | undefined;
  const heldKeys = () => (keys ??= masterKeys(config.masterKey, config.previousMasterKeys));
  try {
    const result = await command.run(options, {
      store,
      clock,
      masterKeys: heldKeys,
      keyTable: () => (keyTable ??= openCustomerKeyTable(config)),
      logIdentity: () => logIdentity({ origin: config.logOrigin, signingKey: config.logSigningKey, previousVerifierKeys: config.logPreviousVerifierKeys }),
      blobs: async () => {
        // Opened only by the commands that need blobs: unwrapping the tenants' keys needs the master key that wrapped them.
        const tenantKeys = await TenantKeyring.open(store, heldKeys(), clock);
        return (blobs ??= createBlobStore(config, new BlobProtection(tenantKeys, new CustomerKeyring(tenantKeys, (keyTable ??= openCustomerKeyTable(config)), clock))));
      },
      projections: () => new ProjectionRunner({ store, redis: connection(), prefix: config.redisPrefix, projections: PROJECTIONS }),
      rebuildPartitions: (names, count, onProgress) => rebuildPartitions(config, names, count, onProgress),
      readModel: () => new ReadModel({ redis: connection(), prefix: config.redisPrefix, projections: PROJECTIONS }),
      queue: (name) => {
        if (!queues.has(name)) queues.set(name, new Queue(name, { connection: connection(), prefix: queuePrefix(connection(), config.redisPrefix) }));
        return queues.get(name)!;
      },
      progress,
      write,
    });
    return print(result);
  } finally {
    await Promise.all([...queues.values()].map((queue) => queue.close()));
    await store.close();
    await keyTable?.close();
    await blobs?.close();
    redis?.disconnect();
  }
}

function logBuildLine({ entered, remaining }: LogBuildProgress): string {
  return `ledger tree: entered ${entered} events written before it, ${remaining} to go`;
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

function write(chunk: string): Promise<void> {
  return new Promise<void>((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/** Prints a command's document (unless it wrote its output as it went) and returns the status to exit with. */
function print(result: unknown): number {
  const output = result instanceof CliOutput ? result : CliOutput.json(result);
  if (output !== CliOutput.streamed) process.stdout.write(output.stdout.endsWith('\n') ? output.stdout : `${output.stdout}\n`);
  return output.status;
}

/** ioredis prints each failed connection attempt with its stack unless the connection has a listener: say once, on one line, what is unreachable. */
function reportUnreachable(redis: RedisClient, location: RedisLocation): RedisClient {
  let reported = false;
  redis.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    const where = typeof location === 'string' ? `Redis at ${withoutCredentials(location)}` : `the Redis Cluster of ${location.clusterNodes.map(({ host, port }) => `${host}:${port}`).join(', ')}`;
    process.stderr.write(`ledger: ${where} is unreachable (${error.message}); the command fails once its retries are spent\n`);
  });
  return redis;
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'REDIS_URL';
  }
}

/** Node's codes for a server that cannot be reached: from the event store's (or key table's) database, as Redis's are reported by its listener. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ETIMEDOUT']);

function report(error: unknown): number {
  if (UNREACHABLE.has((error as { code?: string }).code ?? '')) {
    process.stderr.write(`ledger: the event store's database is unreachable (${(error as Error).message}); check DATABASE_URL or EVENTSTORE_CONNECTION_STRING\n`);
  }
  const body = { error: errorOf(error) };
  process.stdout.write(`${JSON.stringify(body)}\n`);
  return body.error.code === 'USAGE' ? 2 : 1;
}

function errorOf(error: unknown): { code: string; message: string; errors?: unknown[] } {
  if (error instanceof DomainError) return { code: error.code, message: error.detail, ...(error.errors ? { errors: error.errors } : {}) };
  if (error instanceof LedgerNotFoundError) return { code: 'LEDGER_NOT_FOUND', message: `${error.message}; only \`tenant create\` starts a new ledger` };
  if (error instanceof CommandError) return { code: error.code, message: error.message };
  if (error instanceof Error && error.name === 'MaxRetriesPerRequestError') return { code: 'FAILED', message: `Redis is unreachable: ${error.message}` };
  if (error instanceof UsageError) return { code: 'USAGE', message: error.message };
  return { code: 'FAILED', message: error instanceof Error ? error.message : String(error) };
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => process.exit(report(error)),
);
