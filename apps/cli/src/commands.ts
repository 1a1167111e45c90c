import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { EventStore } from '@ledger/event-store';
import { CommandContext, createTenant, issueApiKey, revokeApiKey } from '@ledger/ledger';
import { Clock } from '@ledger/platform';
import { ProjectionRunner } from '@ledger/projections';
import { queueCounts } from '@ledger/queues';
import { DeliveryQueue, redeliverFailed } from '@ledger/webhooks';
import type { Queue } from 'bullmq';
import { webhookDeliveriesQueue } from '../../api/src/webhooks/webhook-deliveries.queue';
import { declaredQueues } from '../../worker/src/declared-queues';
import { UsageError } from './cli-error';

export interface CliDependencies {
  store: EventStore;
  clock: Clock;
  /** Built only by the commands that need Redis, so tenant and key commands work without it. */
  projections: () => ProjectionRunner;
  /** The BullMQ queue of a declared queue, under the service's prefix; built on first use. */
  queue: (name: string) => Queue;
  progress: (line: string) => void;
}

type Options = Record<string, string | undefined>;
type Command = (options: Options, deps: CliDependencies) => Promise<unknown>;

/** CONTRACT.md, "Operator CLI": every command prints exactly one JSON document on stdout. */
export const commands: Record<string, { usage: string; options: string[]; run: Command }> = {
  'tenant create': {
    usage: 'tenant create --name NAME',
    options: ['name'],
    run: (o, d) => createTenant(d.store, required(o, 'name'), operatorContext(d.clock)),
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
    usage: 'webhooks redeliver --endpoint ENDPOINT_ID [--since EPOCH_MS|ISO_DATE]',
    options: ['endpoint', 'since'],
    run: async (o, d) => {
      const endpointId = uuid(required(o, 'endpoint'), 'endpoint');
      const since = o.since === undefined ? 0 : instant(o.since);
      const redelivered = await redeliverFailed(d.queue(webhookDeliveriesQueue.name) as unknown as DeliveryQueue, { endpointId, since });
      return { endpointId, since, redelivered };
    },
  },
};

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

function instant(value: string): number {
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(at)) throw new UsageError('--since must be epoch milliseconds or an ISO 8601 date');
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

function uuid(value: string, name: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new UsageError(`--${name} must be a ${name} id`);
  return value.toLowerCase();
}

function keyId(value: string): string {
  if (!/^[0-9a-f]{24}$/.test(value)) throw new UsageError('--key must be a key id (24 hexadecimal characters)');
  return value;
}
