import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { WebhookJob } from './deliver-webhook';
import { DeliveryQueue, FailedDelivery, recordFailedDelivery, redeliverFailed } from './redeliver';

// Integration: the real SQLite store, and a queue that says which jobs it was asked for.
describe('redelivering the failures of an endpoint', () => {
  let dir: string;
  let store: SqliteEventStore;
  const tenantId = randomUUID();
  const endpointId = randomUUID();
  const job = (id: string, endpoint = endpointId, tenant = tenantId): { id: string; data: WebhookJob } => ({
    id,
    data: { tenantId: tenant, endpointId: endpoint, eventPosition: 1, message: { id: `evt_${id}` } as WebhookJob['message'] },
  });

  /** A queue holding these jobs, failed or not, recording every job asked for and retried. */
  function queueOf(failed: Record<string, boolean>) {
    const asked: string[] = [];
    const retried: string[] = [];
    const queue: DeliveryQueue = {
      getJob: async (jobId) => {
        asked.push(jobId);
        if (!(jobId in failed)) return undefined;
        const delivery: FailedDelivery = { isFailed: async () => failed[jobId], retry: async () => void retried.push(jobId) };
        return delivery;
      },
      add: async () => undefined,
    };
    return { queue, asked, retried };
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'redeliver-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads the endpoint's own index of failures since the instant, and retries those still failed", async () => {
    await recordFailedDelivery(store, job('old'), 1_000);
    await recordFailedDelivery(store, job('a'), 2_000);
    await recordFailedDelivery(store, job('b'), 3_000);
    await recordFailedDelivery(store, job('gone'), 3_500);
    // Another endpoint's and another tenant's failures are in other indexes: never asked for.
    await recordFailedDelivery(store, job('elsewhere', randomUUID()), 3_000);
    await recordFailedDelivery(store, job('other-tenant', endpointId, randomUUID()), 3_000);
    const { queue, asked, retried } = queueOf({ old: true, a: true, b: false });

    expect(await redeliverFailed(store, queue, { tenantId, endpointId, since: 2_000 })).toBe(1);
    expect(asked.sort()).toEqual(['a', 'b', 'gone']);
    expect(retried).toEqual(['a']);
  });

  it('asks for a job failed twice once', async () => {
    await recordFailedDelivery(store, job('a'), 2_000);
    await recordFailedDelivery(store, job('a'), 5_000);
    const { queue, asked } = queueOf({ a: true });
    expect(await redeliverFailed(store, queue, { tenantId, endpointId, since: 0 })).toBe(1);
    expect(asked).toEqual(['a']);
  });
});
