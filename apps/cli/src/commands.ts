import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { BlobStore } from '@ledger/artifacts';
import { EventStore, LedgerLog, verifyLedger } from '@ledger/event-store';
import { LogAudit, LogIdentity, openCheckpoint } from '@ledger/ledger-log';
import { NoteError } from '@ledger/transparency';
import { readFileSync } from 'node:fs';
import { API_KEY_RECHECK_MS, CommandContext, CustomerKeyTable, configureTenant, createTenant, issueApiKey, listApiKeys, listTenants, revokeApiKey, rotateMasterKey, streams } from '@ledger/ledger';
import { CONSOLE_ROLES, ROLE_SCOPES, createConsoleUser, resetConsoleUser } from '@ledger/console';
import { Clock, MasterKeys, SCOPES, SCOPE_MEANINGS, notFound } from '@ledger/platform';
import { Partition, ProjectionRunner, ReadModel, RebuildPartitions, RebuildProgress } from '@ledger/projections';
import { queueCounts } from '@ledger/queues';
import { consentHistory, eraseCustomers, exportConsents, historyTimeline, readConsentReferences, retentionStatus } from '@ledger/redec';
import { DeliveryQueue, redeliverFailed } from '@ledger/webhooks';
import type { Queue } from 'bullmq';
import { webhookDeliveriesQueue } from '../../api/src/webhooks/webhook-deliveries.queue';
import { declaredQueues } from '../../worker/src/declared-queues';
import { CommandError, UsageError } from './cli-error';
import { CliOutput } from './cli-output';
import { CliOption, countFrom, instant, keyId, onOff, oneOf, scopeList, uuidOf } from './options';
import { witnessCommands } from './witness';
import { ledgerLogCommands, logOf } from './ledger-log-commands';

export interface CliDependencies {
  store: EventStore;
  clock: Clock;
  /** LEDGER_MASTER_KEY and LEDGER_PREVIOUS_MASTER_KEYS; read on first use, so a command that needs no key needs none set. */
  masterKeys: () => MasterKeys;
  /** Built only by the commands that need Redis, so tenant and key commands work without it. */
  projections: () => ProjectionRunner;
  /** The partitions of a rebuild, each filled on a thread of its own (decision 0087). */
  rebuildPartitions: (names: readonly string[] | undefined, count: number, onProgress: (partition: Partition, progress: RebuildProgress) => void) => RebuildPartitions;
  /** The Redis read model, for the indexes an audit uses to find streams. */
  readModel: () => ReadModel;
  /** The key table of customers' data keys and the blind index (decision 0035); opened on first use. */
  keyTable: () => CustomerKeyTable;
  /** The blob store of evidence and certificates; opened on first use. */
  blobs: () => Promise<BlobStore>;
  /** The BullMQ queue of a declared queue, under the service's prefix; built on first use. */
  queue: (name: string) => Queue;
  /** Who signs the ledger's checkpoints (LEDGER_LOG_ORIGIN, LEDGER_LOG_SIGNING_KEY, LEDGER_LOG_PREVIOUS_VERIFIER_KEYS). */
  logIdentity: () => LogIdentity;
  progress: (line: string) => void;
  /** Writes to stdout as a command goes, for output too long to hold (NDJSON); resolves once written, so a slow reader slows the export. */
  write: (chunk: string) => Promise<void>;
}

/** The options as parsed and checked (options.ts), by commander's camelCase names. */
export type Options = Record<string, any>;

interface CommandShape {
  description: string;
  options: CliOption[];
  /** What the options must say together, checked like each option before anything is opened. */
  validate?: (options: Options) => void;
  /** What `--help` prints after the options, for values the options' lines are too short to list. */
  help?: string;
}

/** A command on the ledger: main.ts loads the configuration and opens the store (and Redis, the key table, blobs when asked). */
export interface LedgerCommand extends CommandShape {
  opensLedger?: true;
  /** Only a command that creates may open a ledger that does not exist yet (creating it); every other one refuses. */
  createsLedger?: true;
  run: (options: Options, deps: CliDependencies) => Promise<unknown>;
}

/** What a command that opens no ledger gets: stderr for progress, stdout for a document written as it goes. */
export type StandaloneDependencies = Pick<CliDependencies, 'progress' | 'write'>;

/** A command that needs neither the ledger, nor Redis, nor the service's configuration (a witness): main.ts opens nothing for it. */
export interface StandaloneCommand extends CommandShape {
  opensLedger: false;
  run: (options: Options, deps: StandaloneDependencies) => Promise<unknown>;
}

export type CliCommand = LedgerCommand | StandaloneCommand;

const tenantOption: CliOption = { flags: '--tenant <TENANT_ID>', description: 'the tenant id (`tenant list` shows them)', required: true, parse: uuidOf('tenant') };

/**
 * README.md, "Operator CLI": every command prints exactly one JSON
 * document on stdout. Keyed by `group command` as typed. Every option is
 * checked as the command line is parsed (options.ts), before anything is
 * opened.
 */
export const commands: Record<string, CliCommand> = {
  'tenant create': {
    description: 'create a tenant (an integrator); starts the ledger if there is none yet',
    options: [{ flags: '--name <NAME>', description: "the tenant's name, 1 to 200 characters", required: true }],
    createsLedger: true,
    run: (o, d) => createTenant(d.store, o.name, operatorContext(d.clock)),
  },
  'tenant list': {
    description: 'list every tenant with its settings, in the order they were created',
    options: [],
    run: async (_o, d) => ({
      tenants: (await listTenants(d.store)).map((t) => ({ tenantId: t.tenantId, name: t.name, createdAt: t.createdAt, ...t.settings })),
    }),
  },
  'tenant configure': {
    description: "change a tenant's settings; what is not named stays",
    options: [
      tenantOption,
      { flags: '--institution-code <NNNNNNNNNN>', description: "the bank's 10-digit CMF code, the header of its regulatory reports" },
      { flags: '--weekly-reports <on|off>', description: 'make RDC30 and RDC31 every week', parse: onOff },
      { flags: '--daily-rights-report <on|off>', description: 'make RDC40 (REDEC disputes) every day', parse: onOff },
      { flags: '--scheduled-erasure <on|off>', description: 'erase after the retention floor when LEDGER_RETENTION_ERASE_SCHEDULE runs', parse: onOff },
    ],
    validate: (o) => {
      if (o.institutionCode === undefined && o.weeklyReports === undefined && o.dailyRightsReport === undefined && o.scheduledErasure === undefined) {
        throw new UsageError('name at least one setting: --institution-code, --weekly-reports, --daily-rights-report or --scheduled-erasure');
      }
    },
    run: async (o, d) => {
      const change = {
        ...(o.institutionCode !== undefined ? { institutionCode: o.institutionCode as string } : {}),
        ...(o.weeklyReports !== undefined ? { weeklyReports: o.weeklyReports as boolean } : {}),
        ...(o.dailyRightsReport !== undefined ? { dailyRightsReport: o.dailyRightsReport as boolean } : {}),
        ...(o.scheduledErasure !== undefined ? { scheduledErasure: o.scheduledErasure as boolean } : {}),
      };
      const { tenant } = await configureTenant(d.store, o.tenant, change, operatorContext(d.clock));
      return { tenantId: o.tenant, ...tenant.settings };
    },
  },
  'key issue': {
    description: 'issue an API key for a tenant; the key is shown only here',
    options: [tenantOption, { flags: '--scopes <SCOPE[,SCOPE...]>', description: 'comma-separated scopes, e.g. consent:read,consent:write', required: true, parse: scopeList }],
    help: scopesHelp(),
    run: (o, d) => issueApiKey(d.store, { tenantId: o.tenant, scopes: o.scopes }, operatorContext(d.clock)),
  },
  'key list': {
    description: "list a tenant's API keys (ids, scopes, when issued and revoked; never a secret)",
    options: [tenantOption],
    run: async (o, d) => {
      const tenantId = await existingTenant(o.tenant, d);
      return { keys: await listApiKeys(d.store, tenantId) };
    },
  },
  'key revoke': {
    description: `revoke an API key; every process of the service refuses it within ${API_KEY_RECHECK_MS} ms`,
    options: [{ flags: '--key <KEY_ID>', description: 'the key id (24 hexadecimal characters)', required: true, parse: keyId }],
    run: (o, d) => revokeApiKey(d.store, o.key, operatorContext(d.clock)),
  },
  'console user create': {
    description: 'create a person who signs in to the console, for a tenant, with a role; the initial password is shown only here, and must be changed at the first sign-in',
    options: [
      tenantOption,
      { flags: '--email <EMAIL>', description: "the person's email, which they sign in with; one user per email in the whole service", required: true },
      { flags: '--role <ROLE>', description: `what they may do: ${CONSOLE_ROLES.join(', ')}`, required: true, parse: oneOf(...CONSOLE_ROLES) },
    ],
    help: consoleRolesHelp(),
    run: (o, d) => createConsoleUser(d.store, { tenantId: o.tenant, email: o.email, role: o.role }, operatorContext(d.clock)),
  },
  'console user reset': {
    description: "give a console user a new initial password, shown only here: their sessions end, a lock lifts, and the next sign-in asks for a new password and enrols their authenticator app again",
    options: [{ flags: '--email <EMAIL>', description: 'the email the person signs in with', required: true }],
    run: (o, d) => resetConsoleUser(d.store, { email: o.email }, operatorContext(d.clock)),
  },
  'keys rotate': {
    description: 'rewrap every tenant key under LEDGER_MASTER_KEY (the previous keys in LEDGER_PREVIOUS_MASTER_KEYS)',
    options: [],
    run: (_o, d) => rotateMasterKey(d.store, d.masterKeys(), operatorContext(d.clock)),
  },
  'projections status': {
    description: "each projection's version, checkpoint and lag",
    options: [],
    run: async (_o, d) => ({ projections: await d.projections().status() }),
  },
  'projections rebuild': {
    description: 'rebuild projections from position zero; prints a digest of each read model',
    options: [
      { flags: '--name <NAME>', description: 'only this projection' },
      { flags: '--partitions <N>', description: 'fill the new models in N partitions at once, a thread each, then finish as one (1 to 64; default 1)', parse: countFrom(1, 64) },
    ],
    run: async (o, d) => {
      const names = o.name ? [o.name as string] : undefined;
      const line = (p: RebuildProgress) => `${p.name}: ${p.events} events, position ${p.position}/${p.head}, ${Math.round(p.ratePerSecond)} events/s, ~${Math.ceil(p.etaSeconds)} s left`;
      const count = (o.partitions as number | undefined) ?? 1;
      const partitions = count > 1 ? d.rebuildPartitions(names, count, ({ index }, p) => d.progress(`partition ${index + 1}/${count}: ${line(p)}`)) : undefined;
      const rebuilt = await d.projections().rebuild(names, (p) => d.progress(line(p)), partitions);
      return { projections: rebuilt };
    },
  },
  'queues status': {
    description: "each queue's job counts by state and its latest failures",
    options: [],
    run: async (_o, d) => ({ queues: await Promise.all(declaredQueues.map((q) => queueStatus(d.queue(q.name)))) }),
  },
  'webhooks redeliver': {
    description: "queue again an endpoint's failed deliveries",
    options: [
      tenantOption,
      { flags: '--endpoint <ENDPOINT_ID>', description: 'the webhook endpoint id', required: true, parse: uuidOf('endpoint') },
      { flags: '--since <EPOCH_MS|ISO_DATE>', description: 'only deliveries of events at or after this instant (default: all)', parse: instant },
    ],
    run: async (o, d) => {
      const since = (o.since as number | undefined) ?? 0;
      const redelivered = await redeliverFailed(d.store, d.queue(webhookDeliveriesQueue.name) as unknown as DeliveryQueue, { tenantId: o.tenant, endpointId: o.endpoint, since });
      return { endpointId: o.endpoint, since, redelivered };
    },
  },
  'retention status': {
    description: "the tenant's customers past their retention, and those on legal hold",
    options: [tenantOption],
    run: async (o, d) => {
      const tenantId = await existingTenant(o.tenant, d);
      return retentionStatus(d.store, tenantId, d.clock.now(), (events) => d.progress(`retention status: ${events} events read`));
    },
  },
  'retention erase': {
    description: "erase the data of the tenant's customers past their retention (not those on legal hold)",
    options: [tenantOption, { flags: '--dry-run', description: 'say who would be erased, erasing nothing' }],
    run: async (o, d) => {
      const tenantId = await existingTenant(o.tenant, d);
      const dryRun = o.dryRun === true;
      const deps = { store: d.store, keyTable: d.keyTable(), blobs: dryRun ? noBlobs : await d.blobs() };
      return eraseCustomers(deps, tenantId, { dryRun, progress: d.progress }, operatorContext(d.clock));
    },
  },
  'export consents': {
    description: "the tenant's consents as NDJSON on stdout, one consent a line",
    options: [tenantOption, { flags: '--from <EPOCH_MS|ISO_DATE>', description: 'only consents updated at or after this instant', parse: instant }, { flags: '--to <EPOCH_MS|ISO_DATE>', description: 'only consents updated at or before this instant', parse: instant }],
    run: exportConsentsNdjson,
  },
  'audit replay': {
    description: "every fact of a consent in order, with the representation derived after each",
    options: [
      tenantOption,
      { flags: '--consent <REDEC_CONSENT_ID>', description: 'the redecConsentId', required: true, parse: uuidOf('consent') },
      { flags: '--at <EPOCH_MS|ISO_DATE>', description: 'what the ledger stated at this instant', parse: instant },
      { flags: '--format <json|text>', description: 'json (default) or a text timeline', parse: oneOf('json', 'text') },
    ],
    run: auditReplay,
  },
  'audit verify': {
    description: "recompute every hash chain (or the tenant's) and the Merkle tree over every event, and check the tree against every checkpoint kept or given; exit status 1 when not intact",
    options: [
      { ...tenantOption, required: undefined, description: "only this tenant's streams (the tree is always checked whole)" },
      { flags: '--checkpoint <FILE>', description: 'a checkpoint you kept (a signed note, e.g. from GET /v1/ledger/checkpoint); repeat for each', repeatable: true },
    ],
    run: (o, d) => auditVerify(o.tenant, o.checkpoint ?? [], d),
  },
  ...ledgerLogCommands,
  ...witnessCommands,
};

/** The scopes a key may carry, one a line with what it allows, aligned as commander aligns options. */
function scopesHelp(): string {
  const width = Math.max(...SCOPES.map((scope) => scope.length));
  return ['', 'Scopes:', ...SCOPES.map((scope) => `  ${scope.padEnd(width)}  ${SCOPE_MEANINGS[scope]}`)].join('\n');
}

/** Each role with the scopes it exercises: what a console user of that role may do. */
function consoleRolesHelp(): string {
  return ['', 'Roles (the API scopes each may exercise):', ...CONSOLE_ROLES.map((role) => `  ${role.padEnd(8)}  ${ROLE_SCOPES[role].join(', ')}`)].join('\n');
}

const EXPORT_PAGE = 200;

/**
 * The tenant's consents as GET /v1/redec/consent-exports pages them, one JSON
 * document a line, whose `updatedAt` is within --from and --to (both
 * included), read from the read model page by page.
 */
async function exportConsentsNdjson(o: Options, d: CliDependencies): Promise<CliOutput> {
  const tenantId: string = o.tenant;
  const from: number | null = o.from ?? null;
  const to: number = o.to ?? Infinity;
  const now = d.clock.now();
  let cursor: string | null = null;
  let exported = 0;
  do {
    const page = await exportConsents(d.readModel(), tenantId, { updatedAfter: cursor === null && from !== null ? from - 1 : null, cursor, limit: EXPORT_PAGE, now });
    const within = page.items.filter((item) => item.updatedAt <= to);
    if (within.length > 0) await d.write(within.map((item) => `${JSON.stringify(item)}\n`).join(''));
    exported += within.length;
    d.progress(`exported ${exported} consents`);
    // The order is by updatedAt: past --to, nothing later can be within it.
    cursor = within.length < page.items.length ? null : page.nextCursor;
  } while (cursor !== null);
  return CliOutput.streamed;
}

const RECENT_FAILURES = 20;

/** Counts by state, and the latest failures with why: what an operator looks at first. */
async function queueStatus(queue: Queue) {
  const failed = await queue.getFailed(0, RECENT_FAILURES - 1);
  return {
    ...(await queueCounts(queue)),
    recentFailures: failed.filter(Boolean).map((job) => ({
      jobId: job.id,
      // Which tenant and endpoint, never the payload: an operator needs the where, not the what.
      ...(job.data?.endpointId ? { tenantId: job.data.tenantId, endpointId: job.data.endpointId } : {}),
      attemptsMade: job.attemptsMade,
      failedReason: job.failedReason,
      finishedOn: job.finishedOn ?? null,
    })),
  };
}


function operatorContext(clock: Clock): CommandContext {
  return { actor: `cli:${userInfo().username}`, correlationId: randomUUID(), now: clock.now() };
}




/** A dry run reads, copies and deletes no blob, so it needs no blob store (nor the master key that opens one). */
const noBlobs = {
  get: refuseInDryRun,
  put: refuseInDryRun,
  delete: refuseInDryRun,
};

function refuseInDryRun(): never {
  throw new Error('a dry run touches no blob');
}

/** A tenant id that names a tenant of this ledger: a mistyped one would otherwise read as a tenant with nothing to erase. */
async function existingTenant(tenantId: string, d: CliDependencies): Promise<string> {
  if ((await d.store.readStream(streams.tenant(tenantId), { maxCount: 1 })).length === 0) throw notFound('tenant');
  return tenantId;
}


/**
 * `audit verify`: recomputes every chain (or the tenant's) and prints the
 * document of README.md, "Operator CLI", with `reason` added inside
 * firstBreak. Not intact, it still prints the document, and exits with
 * status 1.
 */
async function auditVerify(tenantId: string | undefined, checkpointFiles: string[], d: CliDependencies): Promise<CliOutput> {
  // Nothing verified is not intact: an empty ledger is a wrong LEDGER_DATA_DIR far more often than a new deployment.
  if ((await d.store.headPosition()) === 0) throw new CommandError('EMPTY_LEDGER', 'the ledger holds no events, so there is nothing to verify: check that LEDGER_DATA_DIR or EVENTSTORE_CONNECTION_STRING names the ledger to audit');
  // A mistyped tenant would otherwise read as an intact ledger of 0 streams.
  if (tenantId !== undefined && (await d.store.readStream(streams.tenant(tenantId), { maxCount: 1 })).length === 0) throw notFound('tenant');
  const tree = d.store.log === undefined ? undefined : await treeAudit(logOf(d.store), checkpointFiles, d);
  const { intact, streams: streamCount, events, firstBreak } = await verifyLedger(d.store, {
    tenantId,
    progress: (p) => d.progress(`audit verify: ${p.events} events, position ${p.position}/${p.head}, ${Math.round(p.ratePerSecond)} events/s`),
    onPage: tree && ((page) => tree.page(page)),
  });
  const log = tree?.finish();
  const logIntact = log === undefined || log.firstMismatch === null;
  // The member order clients were given, `reason` last.
  const at = firstBreak && { stream: firstBreak.stream, revision: firstBreak.revision, expected: firstBreak.expected, found: firstBreak.found, reason: firstBreak.reason };
  const mismatch = log?.firstMismatch && { leafIndex: log.firstMismatch.leafIndex, reason: log.firstMismatch.reason };
  const summary = log && { size: log.size, root: log.root, checkpointsChecked: log.checkpointsChecked, firstMismatch: mismatch ?? null };
  return CliOutput.json({ intact: intact && logIntact, streams: streamCount, events, firstBreak: at, log: summary ?? null }, intact && logIntact ? 0 : 1);
}

/**
 * The tree's audit over the checkpoints held: every one the log kept and
 * every one given, each opened with the log's verifier keys. A given one
 * that is not the log's is the auditor's mistake; a kept one that is not is
 * a mismatch at its size (someone wrote it into the database).
 */
async function treeAudit(log: LedgerLog, files: string[], d: CliDependencies) {
  const { origin, verifiers } = d.logIdentity();
  const given = files.map((file) => {
    try {
      return openCheckpoint(readFileSync(file, 'utf8'), origin, verifiers);
    } catch (error) {
      if (error instanceof NoteError || (error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new CommandError('CHECKPOINT_REFUSED', `${file} is not a checkpoint of this log signed by its key: ${(error as Error).message}`);
      }
      throw error;
    }
  });
  const kept = await log.checkpoints();
  const held = kept.filter((checkpoint) => {
    try {
      const opened = openCheckpoint(checkpoint.note, origin, verifiers);
      return opened.size === checkpoint.size && opened.root.equals(checkpoint.root);
    } catch (error) {
      if (error instanceof NoteError) return false;
      throw error;
    }
  });
  const audit = new LogAudit(log, [...held, ...given]);
  for (const checkpoint of kept) if (!held.includes(checkpoint)) audit.unsigned(checkpoint.size);
  return audit;
}

/** `audit replay`: the consent's history from the store, as JSON or as a timeline; `--at` for what the ledger stated then. */
async function auditReplay(options: Options, d: CliDependencies): Promise<unknown> {
  const { tenant: tenantId, consent: redecConsentId, at } = options as { tenant: string; consent: string; at?: number };
  const references = await readConsentReferences(d.readModel(), tenantId, redecConsentId);
  const history = await consentHistory(d.store, tenantId, redecConsentId, references, { at, now: d.clock.now() });
  if (!history) throw notFound('consent');
  return options.format === 'text' ? new CliOutput(historyTimeline(history)) : history;
}
