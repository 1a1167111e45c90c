import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { BlobStore } from '@ledger/artifacts';
import { EventStore, verifyLedger } from '@ledger/event-store';
import { CommandContext, CustomerKeyTable, configureTenant, createTenant, issueApiKey, revokeApiKey, rotateMasterKey, streams } from '@ledger/ledger';
import { Clock, MasterKeys, notFound } from '@ledger/platform';
import { ProjectionRunner, ReadModel } from '@ledger/projections';
import { queueCounts } from '@ledger/queues';
import { consentHistory, eraseCustomers, exportConsents, historyTimeline, readConsentReferences, retentionStatus } from '@ledger/redec';
import { DeliveryQueue, redeliverFailed } from '@ledger/webhooks';
import type { Queue } from 'bullmq';
import { webhookDeliveriesQueue } from '../../api/src/webhooks/webhook-deliveries.queue';
import { declaredQueues } from '../../worker/src/declared-queues';
import { CommandError, UsageError } from './cli-error';
import { CliOutput } from './cli-output';

export interface CliDependencies {
  store: EventStore;
  clock: Clock;
  /** LEDGER_MASTER_KEY and LEDGER_PREVIOUS_MASTER_KEYS. */
  masterKeys: MasterKeys;
  /** Built only by the commands that need Redis, so tenant and key commands work without it. */
  projections: () => ProjectionRunner;
  /** The Redis read model, for the indexes an audit uses to find streams. */
  readModel: () => ReadModel;
  /** The key table of customers' data keys and the blind index (decision 0035); opened on first use. */
  keyTable: () => CustomerKeyTable;
  /** The blob store of evidence and certificates; opened on first use. */
  blobs: () => Promise<BlobStore>;
  /** The BullMQ queue of a declared queue, under the service's prefix; built on first use. */
  queue: (name: string) => Queue;
  progress: (line: string) => void;
  /** Writes to stdout as a command goes, for output too long to hold (NDJSON); resolves once written, so a slow reader slows the export. */
  write: (chunk: string) => Promise<void>;
}

type Options = Record<string, string | undefined>;
type Command = (options: Options, deps: CliDependencies) => Promise<unknown>;

/**
 * CONTRACT.md, "Operator CLI": every command prints exactly one JSON document
 * on stdout. Only a command that `createsLedger` may open a ledger that does
 * not exist yet (creating it); every other one refuses.
 */
export const commands: Record<string, { usage: string; options: string[]; flags?: string[]; createsLedger?: true; run: Command }> = {
  'tenant create': {
    usage: 'tenant create --name NAME',
    options: ['name'],
    createsLedger: true,
    run: (o, d) => createTenant(d.store, required(o, 'name'), operatorContext(d.clock)),
  },
  'tenant configure': {
    usage: 'tenant configure --tenant TENANT_ID [--institution-code NNNNNNNNNN] [--weekly-reports on|off] [--scheduled-erasure on|off]',
    options: ['tenant', 'institution-code', 'weekly-reports', 'scheduled-erasure'],
    run: async (o, d) => {
      const tenantId = uuid(required(o, 'tenant'), 'tenant');
      // Only what is named changes; the other settings stay.
      const change = {
        ...(o['institution-code'] !== undefined ? { institutionCode: o['institution-code'] } : {}),
        ...(o['weekly-reports'] !== undefined ? { weeklyReports: onOff(o['weekly-reports'], 'weekly-reports') } : {}),
        ...(o['scheduled-erasure'] !== undefined ? { scheduledErasure: onOff(o['scheduled-erasure'], 'scheduled-erasure') } : {}),
      };
      if (Object.keys(change).length === 0) throw new UsageError('name at least one setting: --institution-code, --weekly-reports or --scheduled-erasure');
      const { tenant } = await configureTenant(d.store, tenantId, change, operatorContext(d.clock));
      return { tenantId, ...tenant.settings };
    },
  },
  'key issue': {
    usage: 'key issue --tenant TENANT_ID --scopes SCOPE[,SCOPE...]',
    options: ['tenant', 'scopes'],
    run: (o, d) => {
      const tenantId = uuid(required(o, 'tenant'), 'tenant');
      const scopes = required(o, 'scopes').split(',').map((s) => s.trim()).filter(Boolean);
      return issueApiKey(d.store, { tenantId, scopes }, operatorContext(d.clock));
    },
  },
  'key revoke': {
    usage: 'key revoke --key KEY_ID',
    options: ['key'],
    run: (o, d) => revokeApiKey(d.store, keyId(required(o, 'key')), operatorContext(d.clock)),
  },
  'keys rotate': {
    usage: 'keys rotate',
    options: [],
    run: (_o, d) => rotateMasterKey(d.store, d.masterKeys, operatorContext(d.clock)),
  },
  'projections status': {
    usage: 'projections status',
    options: [],
    run: async (_o, d) => ({ projections: await d.projections().status() }),
  },
  'projections rebuild': {
    usage: 'projections rebuild [--name NAME]',
    options: ['name'],
    run: async (o, d) => {
      const names = o.name ? [o.name] : undefined;
      const rebuilt = await d.projections().rebuild(names, (p) =>
        d.progress(`${p.name}: ${p.events} events, position ${p.position}/${p.head}, ${Math.round(p.ratePerSecond)} events/s, ~${Math.ceil(p.etaSeconds)} s left`),
      );
      return { projections: rebuilt };
    },
  },
  'queues status': {
    usage: 'queues status',
    options: [],
    run: async (_o, d) => ({ queues: await Promise.all(declaredQueues.map((q) => queueStatus(d.queue(q.name)))) }),
  },
  'webhooks redeliver': {
    usage: 'webhooks redeliver --tenant TENANT_ID --endpoint ENDPOINT_ID [--since EPOCH_MS|ISO_DATE]',
    options: ['tenant', 'endpoint', 'since'],
    run: async (o, d) => {
      const tenantId = uuid(required(o, 'tenant'), 'tenant');
      const endpointId = uuid(required(o, 'endpoint'), 'endpoint');
      const since = o.since === undefined ? 0 : instant(o.since, 'since');
      const redelivered = await redeliverFailed(d.store, d.queue(webhookDeliveriesQueue.name) as unknown as DeliveryQueue, { tenantId, endpointId, since });
      return { endpointId, since, redelivered };
    },
  },
  'retention status': {
    usage: 'retention status --tenant TENANT_ID',
    options: ['tenant'],
    run: async (o, d) => {
      const tenantId = await existingTenant(required(o, 'tenant'), d);
      return retentionStatus(d.store, tenantId, d.clock.now(), (events) => d.progress(`retention status: ${events} events read`));
    },
  },
  'retention erase': {
    usage: 'retention erase --tenant TENANT_ID [--dry-run]',
    options: ['tenant'],
    flags: ['dry-run'],
    run: async (o, d) => {
      const tenantId = await existingTenant(required(o, 'tenant'), d);
      const dryRun = o['dry-run'] === 'true';
      const deps = { store: d.store, keyTable: d.keyTable(), blobs: dryRun ? noBlobs : await d.blobs() };
      return eraseCustomers(deps, tenantId, { dryRun, progress: d.progress }, operatorContext(d.clock));
    },
  },
  'export consents': {
    usage: 'export consents --tenant TENANT_ID [--from EPOCH_MS|ISO_DATE] [--to EPOCH_MS|ISO_DATE]',
    options: ['tenant', 'from', 'to'],
    run: exportConsentsNdjson,
  },
  'audit replay': {
    usage: 'audit replay --tenant TENANT_ID --consent REDEC_CONSENT_ID [--at EPOCH_MS|ISO_DATE] [--format json|text]',
    options: ['tenant', 'consent', 'at', 'format'],
    run: auditReplay,
  },
  'audit verify': {
    usage: 'audit verify [--tenant TENANT_ID]',
    options: ['tenant'],
    run: (o, d) => auditVerify(o.tenant === undefined ? undefined : uuid(o.tenant, 'tenant'), d),
  },
};

const EXPORT_PAGE = 200;

/**
 * The tenant's consents as GET /v1/redec/consents exports them, one JSON
 * document a line, whose `updatedAt` is within --from and --to (both
 * included), read from the read model page by page.
 */
async function exportConsentsNdjson(o: Options, d: CliDependencies): Promise<CliOutput> {
  const tenantId = uuid(required(o, 'tenant'), 'tenant');
  const from = o.from === undefined ? null : instant(o.from, 'from');
  const to = o.to === undefined ? Infinity : instant(o.to, 'to');
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

function instant(value: string, name: string): number {
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(at)) throw new UsageError(`--${name} must be epoch milliseconds or an ISO 8601 date`);
  return at;
}

function operatorContext(clock: Clock): CommandContext {
  return { actor: `cli:${userInfo().username}`, correlationId: randomUUID(), now: clock.now() };
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function onOff(value: string, name: string): boolean {
  if (value !== 'on' && value !== 'off') throw new UsageError(`--${name} must be on or off`);
  return value === 'on';
}

function uuid(value: string, name: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new UsageError(`--${name} must be a ${name} id`);
  return value.toLowerCase();
}

/** A dry run deletes nothing, so it needs no blob store (nor the master key that opens one). */
const noBlobs = { delete: async () => false };

/** A tenant id that names a tenant of this ledger: a mistyped one would otherwise read as a tenant with nothing to erase. */
async function existingTenant(value: string, d: CliDependencies): Promise<string> {
  const tenantId = uuid(value, 'tenant');
  if ((await d.store.readStream(streams.tenant(tenantId), { maxCount: 1 })).length === 0) throw notFound('tenant');
  return tenantId;
}

function keyId(value: string): string {
  if (!/^[0-9a-f]{24}$/.test(value)) throw new UsageError('--key must be a key id (24 hexadecimal characters)');
  return value;
}

/**
 * `audit verify`: recomputes every chain (or the tenant's) and prints
 * CONTRACT.md's document, with `reason` added inside firstBreak. Not intact,
 * it still prints the document, and exits with status 1.
 */
async function auditVerify(tenantId: string | undefined, d: CliDependencies): Promise<CliOutput> {
  // Nothing verified is not intact: an empty ledger is a wrong LEDGER_DATA_DIR far more often than a new deployment.
  if ((await d.store.headPosition()) === 0) throw new CommandError('EMPTY_LEDGER', 'the ledger holds no events, so there is nothing to verify: check that LEDGER_DATA_DIR or EVENTSTORE_CONNECTION_STRING names the ledger to audit');
  // A mistyped tenant would otherwise read as an intact ledger of 0 streams.
  if (tenantId !== undefined && (await d.store.readStream(streams.tenant(tenantId), { maxCount: 1 })).length === 0) throw notFound('tenant');
  const { intact, streams: streamCount, events, firstBreak } = await verifyLedger(d.store, {
    tenantId,
    progress: (p) => d.progress(`audit verify: ${p.events} events, position ${p.position}/${p.head}, ${Math.round(p.ratePerSecond)} events/s`),
  });
  // CONTRACT.md's member order, `reason` last.
  const at = firstBreak && { stream: firstBreak.stream, revision: firstBreak.revision, expected: firstBreak.expected, found: firstBreak.found, reason: firstBreak.reason };
  return CliOutput.json({ intact, streams: streamCount, events, firstBreak: at }, intact ? 0 : 1);
}

/** `audit replay`: the consent's history from the store, as JSON or as a timeline; `--at` for what the ledger stated then. */
async function auditReplay(options: Options, d: CliDependencies): Promise<unknown> {
  const tenantId = uuid(required(options, 'tenant'), 'tenant');
  const redecConsentId = uuid(required(options, 'consent'), 'consent');
  if (options.format !== undefined && !['json', 'text'].includes(options.format)) throw new UsageError('--format is json or text');
  const at = options.at === undefined ? undefined : instant(options.at, 'at');
  const references = await readConsentReferences(d.readModel(), tenantId, redecConsentId);
  const history = await consentHistory(d.store, tenantId, redecConsentId, references, { at, now: d.clock.now() });
  if (!history) throw notFound('consent');
  return options.format === 'text' ? new CliOutput(historyTimeline(history)) : history;
}
