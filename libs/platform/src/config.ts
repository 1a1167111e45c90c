import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { weakMasterKeyReason } from './keys/master-keys';
import { PRIVATE_FILE_MODE, ensurePrivateDirectory } from './private-files';
import type { RedisLocation, RedisNodeAddress } from './redis';

/** Everything the service, the worker and the CLI read from the environment (README.md, "Configuration"). */
export interface LedgerConfig {
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  /** When set, EventStoreDB replaces the embedded SQLite store. */
  eventStoreConnectionString: string | undefined;
  /**
   * DATABASE_URL (`postgres://…`): when set, and EventStoreDB is not
   * configured, the event store and the blob store live in this PostgreSQL
   * database (decision 0032).
   */
  databaseUrl: string | undefined;
  /** REDIS_URL, one Redis; or REDIS_CLUSTER_NODES, the nodes of a Redis Cluster to learn it from (decision 0091). */
  redis: RedisLocation;
  /** Every Redis key (read model, queues, locks) lives under this prefix. */
  redisPrefix: string;
  /** 32 bytes; wraps the tenant data keys from which every key that protects data is derived (decision 0028). */
  masterKey: Buffer;
  /** LEDGER_PREVIOUS_MASTER_KEYS: during a rotation, the keys data keys may still be wrapped under; they only unwrap. */
  previousMasterKeys: Buffer[];
  clockOffsetMs: number;
  /** Whether the API process runs the queue workers itself (default) or leaves them to apps/worker. */
  inProcessWorkers: boolean;
  logLevel: string;
  /** Regulatory Profiles beside the built-in baseline (JSON, read and validated at start-up). */
  profilesFile: string | undefined;
  /** Holidays beside the shipped table (LEDGER_HOLIDAYS_FILE), e.g. a newly declared one-off holiday. */
  holidaysFile: string | undefined;
  /** LEDGER_REPORT_LAYOUTS_FILE: corrected RDC30/RDC31 layouts replacing the shipped ones (decision 0033). */
  reportLayoutsFile: string | undefined;
  /**
   * LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true: webhook endpoints may target
   * loopback, private, link-local and other non-public addresses (tests, local
   * development). Its own setting, so that no NODE_ENV value opens egress.
   */
  webhookAllowPrivateNetworks: boolean;
  /**
   * LEDGER_WEBHOOK_ALLOWED_PORTS: the ports a webhook endpoint on a public
   * host may use, comma-separated; unset, the egress policy's own (443 only).
   */
  webhookAllowedPorts: number[] | undefined;
  /**
   * Where the data subject's browser reaches this service (LEDGER_PUBLIC_URL):
   * the base of the consent page URLs that embed sessions hand out. Without
   * a trailing slash.
   */
  publicUrl: string;
  /**
   * Requests per minute each API key may make, and each client address on
   * public routes (LEDGER_RATE_LIMIT_PER_MINUTE).
   */
  rateLimitPerMinute: number;
  /**
   * The most bytes of request bodies the process reads and handles at once,
   * one tenant at most half of it (LEDGER_MAX_BODY_BYTES_IN_FLIGHT).
   */
  maxBodyBytesInFlight: number;
  /**
   * LEDGER_RETENTION_ERASE_SCHEDULE: a cron pattern (America/Santiago time)
   * at which erasure after the retention floor runs, as `ledger retention
   * erase` does, for every tenant whose `scheduledErasure` setting is on;
   * unset, it never runs by itself (opt-in, decision 0035).
   */
  retentionEraseSchedule: string | undefined;
  /**
   * LEDGER_WORKER_METRICS_PORT: where apps/worker serves GET /metrics (its
   * process and runtime metrics and ledger_build_info), on HOST; unset, the
   * worker opens no port.
   */
  workerMetricsPort: number | undefined;
  /** The verifiable ledger (decision 0058): the name its checkpoints carry, LEDGER_LOG_ORIGIN. */
  logOrigin: string;
  /** LEDGER_LOG_SIGNING_KEY: the 32-byte Ed25519 seed checkpoints are signed with. */
  logSigningKey: Buffer;
  /** LEDGER_LOG_PREVIOUS_VERIFIER_KEYS: verifier keys of signing keys rotated out; checkpoints they signed still verify. */
  logPreviousVerifierKeys: string[];
  /** LEDGER_CHECKPOINT_INTERVAL_MS: the least time between two checkpoints issued on the service's own. */
  checkpointIntervalMs: number;
  /** LEDGER_RIGHTS_DEADLINE_CHECK_MS: how often open rights requests are checked for their due-soon and overdue notices (decision 0069). */
  rightsDeadlineCheckMs: number;
  /** LEDGER_WITNESSES: the witnesses each new checkpoint is sent to. */
  witnesses: WitnessConfig[];
}

/** A witness of the ledger's checkpoints: its verifier key and where it takes them. */
export interface WitnessConfig {
  verifierKey: string;
  url: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * 1,000 requests a second from one key, sustained for a minute: above what
 * the benchmarks and test suites drive from a single key, so the limit stops
 * a runaway client or a flood, never an integrator's normal work
 * (docs/decisions/0026-bounded-work.md).
 */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60_000;

/**
 * 64 MiB: four evidence uploads of the largest size at once, two per
 * tenant, which keeps the service's resident memory under 400 MB however
 * many arrive (docs/decisions/0066-bodies-in-flight.md).
 */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

type Env = Record<string, string | undefined>;
type Warn = (message: string) => void;

export interface LoadConfigOptions {
  /**
   * Outside production, generate a key that is neither set nor on file into
   * the data directory (the default: the service, the worker, and the
   * command that starts a ledger). Off, such a key is read from its file
   * when first used, and a ConfigError then if there is none: an operator
   * command pointed at a mistyped LEDGER_DATA_DIR leaves it as it found it,
   * and never signs or wraps with a key the service does not hold.
   */
  generateKeys?: boolean;
}

/**
 * Where the ledger's store and read model are, and nothing else of the
 * configuration (no key): what a worker thread is handed to open its own
 * connections to them.
 */
export type LedgerLocations = Pick<LedgerConfig, 'dataDir' | 'eventStoreConnectionString' | 'databaseUrl' | 'redis' | 'redisPrefix'>;

export function ledgerLocations({ dataDir, eventStoreConnectionString, databaseUrl, redis, redisPrefix }: LedgerLocations): LedgerLocations {
  return { dataDir, eventStoreConnectionString, databaseUrl, redis, redisPrefix };
}

/** NODE_ENV values the service knows; a misspelt one (`prod`, `staging`) would otherwise run without production's rules. Empty is unset. */
const NODE_ENVS = ['', 'development', 'test', 'production'];

export function loadConfig(env: Env = process.env, warn: Warn = (m) => process.stderr.write(`${m}\n`), { generateKeys = true }: LoadConfigOptions = {}): LedgerConfig {
  if (!NODE_ENVS.includes(env.NODE_ENV ?? '')) {
    throw new ConfigError(`NODE_ENV must be unset, development, test or production; it is ${JSON.stringify(env.NODE_ENV)}`);
  }
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(named('LEDGER_DATA_DIR', env.LEDGER_DATA_DIR) ?? './data');
  const host = named('HOST', env.HOST) ?? '127.0.0.1';
  const publicUrl = parsePublicUrl(env.LEDGER_PUBLIC_URL ?? `http://${formatHost(host)}:${env.PORT ?? '3000'}`);
  const clockOffsetMs = parseInteger('LEDGER_CLOCK_OFFSET_MS', env.LEDGER_CLOCK_OFFSET_MS ?? '0');
  if (production && env.LEDGER_CLOCK_OFFSET_MS !== undefined) {
    throw new ConfigError('LEDGER_CLOCK_OFFSET_MS is refused when NODE_ENV=production');
  }
  const keys = { production, dataDir, generate: generateKeys, warn };
  const masterKey = loadSecretKey({ variable: 'LEDGER_MASTER_KEY', file: 'master.key', raw: env.LEDGER_MASTER_KEY }, keys);
  const logSigningKey = loadSecretKey({ variable: 'LEDGER_LOG_SIGNING_KEY', file: 'log-signing.key', raw: env.LEDGER_LOG_SIGNING_KEY }, keys);
  return {
    production,
    port: parseInteger('PORT', env.PORT ?? '3000'),
    host,
    dataDir,
    eventStoreConnectionString: env.EVENTSTORE_CONNECTION_STRING || undefined,
    databaseUrl: parseDatabaseUrl(env.DATABASE_URL),
    redis: redisLocationOf(env),
    redisPrefix: parseRedisPrefix(named('LEDGER_REDIS_PREFIX', env.LEDGER_REDIS_PREFIX) ?? 'ledger'),
    // Getters: a key file that may not be generated is looked for only by what uses the key.
    get masterKey() {
      return masterKey();
    },
    previousMasterKeys: listOf(env.LEDGER_PREVIOUS_MASTER_KEYS).map((raw) => decodeKey('LEDGER_PREVIOUS_MASTER_KEYS', raw)),
    clockOffsetMs,
    inProcessWorkers: (env.LEDGER_WORKERS ?? 'in-process') !== 'external',
    logLevel: named('LOG_LEVEL', env.LOG_LEVEL) ?? 'info',
    profilesFile: env.LEDGER_PROFILES_FILE ? resolve(env.LEDGER_PROFILES_FILE) : undefined,
    holidaysFile: env.LEDGER_HOLIDAYS_FILE ? resolve(env.LEDGER_HOLIDAYS_FILE) : undefined,
    reportLayoutsFile: env.LEDGER_REPORT_LAYOUTS_FILE ? resolve(env.LEDGER_REPORT_LAYOUTS_FILE) : undefined,
    // Exactly `true`: anything else (`1`, `yes`, `TRUE`, a typo) keeps egress strict.
    webhookAllowPrivateNetworks: env.LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
    webhookAllowedPorts: parsePortList('LEDGER_WEBHOOK_ALLOWED_PORTS', env.LEDGER_WEBHOOK_ALLOWED_PORTS),
    publicUrl,
    rateLimitPerMinute: parsePositiveInteger('LEDGER_RATE_LIMIT_PER_MINUTE', env.LEDGER_RATE_LIMIT_PER_MINUTE ?? String(DEFAULT_RATE_LIMIT_PER_MINUTE)),
    maxBodyBytesInFlight: parsePositiveInteger('LEDGER_MAX_BODY_BYTES_IN_FLIGHT', env.LEDGER_MAX_BODY_BYTES_IN_FLIGHT ?? String(DEFAULT_MAX_BODY_BYTES_IN_FLIGHT)),
    retentionEraseSchedule: parseCronPattern('LEDGER_RETENTION_ERASE_SCHEDULE', env.LEDGER_RETENTION_ERASE_SCHEDULE),
    workerMetricsPort: env.LEDGER_WORKER_METRICS_PORT ? parsePort('LEDGER_WORKER_METRICS_PORT', env.LEDGER_WORKER_METRICS_PORT) : undefined,
    logOrigin: parseLogOrigin(env.LEDGER_LOG_ORIGIN || `${new URL(publicUrl).host}/consent-ledger`),
    get logSigningKey() {
      return logSigningKey();
    },
    logPreviousVerifierKeys: listOf(env.LEDGER_LOG_PREVIOUS_VERIFIER_KEYS),
    checkpointIntervalMs: parsePositiveInteger('LEDGER_CHECKPOINT_INTERVAL_MS', env.LEDGER_CHECKPOINT_INTERVAL_MS ?? '10000'),
    rightsDeadlineCheckMs: parsePositiveInteger('LEDGER_RIGHTS_DEADLINE_CHECK_MS', env.LEDGER_RIGHTS_DEADLINE_CHECK_MS ?? '60000'),
    witnesses: listOf(env.LEDGER_WITNESSES).map(parseWitness),
  };
}

/**
 * A variable that names something (a directory, an interface, a prefix) set
 * to nothing is refused rather than taken at its word: an empty
 * LEDGER_DATA_DIR would put the ledger and its key in the working
 * directory, an empty HOST would listen on every interface, an empty prefix
 * would share Redis keys with whatever else uses that Redis.
 */
function named(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new ConfigError(`${name} is set but empty; unset it to use the default, or give it a value`);
  return value;
}

/** One Redis (REDIS_URL, a local one by default) or a Redis Cluster (REDIS_CLUSTER_NODES), not both. */
export function redisLocationOf(env: NodeJS.ProcessEnv): RedisLocation {
  const url = named('REDIS_URL', env.REDIS_URL);
  const nodes = named('REDIS_CLUSTER_NODES', env.REDIS_CLUSTER_NODES);
  if (nodes === undefined) return url ?? 'redis://127.0.0.1:6379';
  if (url !== undefined) throw new ConfigError('set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
  return { clusterNodes: listOf(nodes).map(parseRedisNode) };
}

/** `host:port`, or `[IPv6 address]:port`. */
function parseRedisNode(raw: string): RedisNodeAddress {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d+)$/.exec(raw);
  if (!match) throw new ConfigError(`REDIS_CLUSTER_NODES must list host:port pairs separated by commas, e.g. "redis-1:6379,redis-2:6379"; "${raw}" is not one`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port: parsePort('REDIS_CLUSTER_NODES', match[2]) };
}

/** Braces in the prefix would stand for the hash tags that keep a unit's keys together on a Redis Cluster (decision 0091). */
function parseRedisPrefix(prefix: string): string {
  if (/[{}]/.test(prefix)) throw new ConfigError('LEDGER_REDIS_PREFIX must not hold "{" or "}"');
  return prefix;
}

/** A C2SP origin: the log's name, also its key's name, so no spaces and no "+". */
function parseLogOrigin(origin: string): string {
  if (/[\s+]/u.test(origin)) throw new ConfigError('LEDGER_LOG_ORIGIN must have neither spaces nor "+", e.g. "ledger.bank.example/consent-ledger"');
  return origin;
}

/** `<verifier key>@<url>`: a verifier key is `<name>+<8 hex>+<base64>`, which has no "@". */
function parseWitness(raw: string): WitnessConfig {
  const match = /^([^\s+@]+\+[0-9a-f]{8}\+[A-Za-z0-9+/=]+)@(https?:\/\/\S+)$/.exec(raw);
  if (!match) throw new ConfigError('LEDGER_WITNESSES must be comma-separated <witness verifier key>@<http(s) URL>');
  return { verifierKey: match[1], url: match[2].replace(/\/+$/, '') };
}

/** Five fields (minute to weekday) or six (seconds first); a pattern the scheduler cannot read is logged as an error at start. */
function parseCronPattern(name: string, value: string | undefined): string | undefined {
  const pattern = value?.trim();
  if (!pattern) return undefined;
  if (![5, 6].includes(pattern.split(/\s+/).length)) throw new ConfigError(`${name} must be a cron pattern of 5 or 6 fields, e.g. "0 3 * * 0"`);
  return pattern;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function parsePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('LEDGER_PUBLIC_URL must be an absolute http(s) URL');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash) throw new ConfigError('LEDGER_PUBLIC_URL must be an http(s) URL without query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** Only PostgreSQL URLs: another scheme (a `mysql://` left from another service) must not start on SQLite silently. */
function parseDatabaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  return raw;
}

/** A comma-separated setting's items, trimmed, empty ones left out. */
function listOf(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}

function parseInteger(name: string, raw: string): number {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer`);
  return Number(raw);
}

function parsePort(name: string, raw: string): number {
  const value = parseInteger(name, raw);
  if (value < 1 || value > 65_535) throw new ConfigError(`${name} must be a port number, 1 to 65535`);
  return value;
}

/** A comma-separated list of ports, at least one when set; undefined when unset. */
function parsePortList(name: string, raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined;
  const ports = listOf(raw).map((port) => parsePort(name, port));
  if (ports.length === 0) throw new ConfigError(`${name} must name at least one port, comma-separated, e.g. "443,8443"`);
  return ports;
}

function parsePositiveInteger(name: string, raw: string): number {
  const value = parseInteger(name, raw);
  if (value < 1 || !Number.isSafeInteger(value)) throw new ConfigError(`${name} must be a positive integer`);
  return value;
}

/**
 * A 32-byte secret (LEDGER_MASTER_KEY, LEDGER_LOG_SIGNING_KEY) as 64 hex
 * characters or base64. Outside production it is generated once into the
 * data directory so a fresh machine starts without set-up (unless
 * `generate` is off); losing that file loses what the key protects (the
 * master key: stored ciphertext and identifier hashes; the signing key: the
 * identity checkpoints were signed under), hence the warning. In production
 * a key that is not random-looking (zeros, a repeated pattern, a typed
 * phrase) is refused: it would protect nothing. What is wrong with the
 * setting is refused at once; only a key file that is not there yet, and
 * may not be generated, is looked for when the key is first used.
 */
function loadSecretKey(
  { variable, file: fileName, raw }: { variable: string; file: string; raw: string | undefined },
  { production, dataDir, generate, warn }: { production: boolean; dataDir: string; generate: boolean; warn: Warn },
): () => Buffer {
  if (raw) {
    const key = decodeKey(variable, raw);
    const weakness = production ? weakMasterKeyReason(key) : null;
    if (weakness) throw new ConfigError(`${variable} is refused when NODE_ENV=production: ${weakness}. Generate one with \`openssl rand -hex 32\``);
    return () => key;
  }
  if (production) throw new ConfigError(`${variable} is required when NODE_ENV=production`);
  const file = join(dataDir, fileName);
  if (!generate) {
    let read: Buffer | undefined;
    return () => (read ??= readKeyFile(variable, file));
  }
  const key = existsSync(file) ? readKeyFile(variable, file) : generateKeyFile(variable, file, dataDir, warn);
  return () => key;
}

function readKeyFile(variable: string, file: string): Buffer {
  if (!existsSync(file)) throw new ConfigError(`${variable} is not set and there is no ${file}: set ${variable} to the key the service runs with`);
  return decodeKey(file, readFileSync(file, 'utf8').trim());
}

function generateKeyFile(variable: string, file: string, dataDir: string, warn: Warn): Buffer {
  ensurePrivateDirectory(dataDir);
  const generated = randomBytes(32).toString('hex');
  writeFileSync(file, `${generated}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  chmodSync(file, PRIVATE_FILE_MODE);
  warn(`warning: ${variable} is not set; generated one into ${file}. Set ${variable} in production.`);
  return Buffer.from(generated, 'hex');
}

/** `source` names where the key came from (a variable or the key file), never the key. */
function decodeKey(source: string, raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${source}: a key must be 32 bytes (64 hex characters or base64)`);
  return key;
}

export const LEDGER_CONFIG = Symbol('LEDGER_CONFIG');
