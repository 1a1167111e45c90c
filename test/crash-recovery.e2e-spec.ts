import { Redis } from 'ioredis';
import { createEventStore } from '@ledger/event-store';
import { customerDocumentId, rutCheckDigit } from '@ledger/ledger';
import { PROJECTIONS } from '../apps/api/src/projections';
import { loadConfig } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { REDIS_URL, TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, runCli, spawnApi } from './support/processes';

// The embedded store (an SQLite file under LEDGER_DATA_DIR, README.md,
// "Configuration") and customer resolution (docs/reference/customers.md): a resolution the service answered 2xx is committed. Killing the process
// (no shutdown hook runs) in the middle of a burst must lose none of them, and
// the requests that got no answer must be safely retryable.
describe('crash recovery: SIGKILL during a burst of resolves', () => {
  const BURST = 200;
  const KILL_AFTER = 20;
  const CONCURRENCY = 24;

  let environment: TestEnvironment;
  const processes: ApiProcess[] = [];

  const reference = (i: number) => `crash-ref-${i}`;
  /** A distinct, valid RUT per request: body digits plus the modulo-11 check digit. */
  const rut = (i: number) => {
    const body = String(15_000_000 + i * 37);
    return { system: 'cl-sii', type: 'rut', value: `${body}-${rutCheckDigit(body)}` };
  };
  const body = (i: number) => ({ userReference: reference(i), identifiers: [rut(i)] });

  /** Rejects only when no complete answer came back (the connection broke). */
  async function resolve(api: ApiProcess, apiKey: string, i: number): Promise<{ status: number; body: any }> {
    const response = await fetch(`${api.baseUrl}/v1/customers/resolve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(i)),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  }

  beforeAll(() => {
    environment = testEnvironment();
  });
  afterAll(async () => {
    for (const api of processes) {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
      await api.exited;
    }
    await environment.dispose();
  });

  it('loses no resolution answered 2xx, and the unanswered ones resolve to exactly one customer each on retry', async () => {
    // Minted with the operator CLI against the data directory, before any service runs.
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco Caída'], environment.env);
    expect(tenant.status).toBe(0);
    const tenantId: string = tenant.json.tenantId;
    const key = await runCli(['key', 'issue', '--tenant', tenantId, '--scopes', 'consent:write'], environment.env);
    expect(key.status).toBe(0);
    const apiKey: string = key.json.apiKey;

    const first = await spawnApi(environment.env);
    processes.push(first);

    // The burst: CONCURRENCY requests in flight at any time, each worker sending the next as soon as it
    // has an answer, so the service is mid-way through many resolutions at any instant; SIGKILL as soon
    // as KILL_AFTER have been answered. The workers go on sending until every request has been tried.
    const answered = new Map<number, { status: number; body: any }>();
    const unanswered: number[] = [];
    let inFlightAtKill = 0;
    let inFlight = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) {
          const i = next++;
          inFlight++;
          try {
            const answer = await resolve(first, apiKey, i);
            answered.set(i, answer);
            if (answered.size >= KILL_AFTER && !first.child.killed) {
              inFlightAtKill = inFlight - 1;
              first.child.kill('SIGKILL');
            }
          } catch {
            unanswered.push(i);
          } finally {
            inFlight--;
          }
        }
      }),
    );
    expect(await first.exited).toBeNull(); // killed by the signal, not exited on its own
    expect(first.child.signalCode).toBe('SIGKILL');

    // Everything answered before the kill is a first resolution; the kill really interrupted the burst.
    expect(answered.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(unanswered.length).toBeGreaterThan(0);
    expect(answered.size + unanswered.length).toBe(BURST);
    for (const answer of answered.values()) {
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({ customerId: expect.any(String), created: true, identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }] });
    }

    const second = await spawnApi(environment.env);
    processes.push(second);

    // Every answered resolution survived: a repeat is 200, same customer, created: false.
    const repeats = await Promise.all([...answered.keys()].map(async (i) => ({ i, answer: await resolve(second, apiKey, i) })));
    for (const { i, answer } of repeats) {
      expect({ i, status: answer.status }).toEqual({ i, status: 200 });
      expect(answer.body).toEqual({ ...answered.get(i)!.body, created: false });
    }

    // Every unanswered one can be retried. A resolution killed between its uniqueness claims and its
    // customer fact may hold an identifier for ABANDONED_CLAIM_AFTER_MS (10 s): until then the service
    // answers 409 CUSTOMER_RESOLUTION_IN_PROGRESS, which asks the client to retry.
    const retried = new Map<number, { status: number; body: any }>();
    const deadline = Date.now() + 20_000;
    await Promise.all(
      unanswered.map(async (i) => {
        for (;;) {
          const answer = await resolve(second, apiKey, i);
          if (answer.status === 409 && answer.body.code === 'CUSTOMER_RESOLUTION_IN_PROGRESS' && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 250));
            continue;
          }
          retried.set(i, answer);
          return;
        }
      }),
    );
    for (const [i, answer] of retried) {
      expect({ i, status: [200, 201].includes(answer.status) }).toEqual({ i, status: true });
      expect(answer.body).toEqual({
        customerId: expect.any(String),
        created: answer.status === 201,
        identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }],
      });
    }

    // Exactly one customer per reference: distinct ids, and the store registered exactly those.
    const customerIds = new Map<number, string>([...answered, ...retried].map(([i, a]) => [i, a.body.customerId as string]));
    expect(customerIds.size).toBe(BURST);
    expect(new Set(customerIds.values()).size).toBe(BURST);
    const store = createEventStore(loadConfig(environment.env, () => undefined));
    let head: number;
    try {
      const events = await store.readAll();
      head = events[events.length - 1].position;
      const registered = events.filter((e) => e.type === 'CustomerRegistered' && e.metadata.tenantId === tenantId);
      expect(registered.map((e) => (e.data as { customerId: string }).customerId).sort()).toEqual([...customerIds.values()].sort());
    } finally {
      await store.close();
    }

    // A second repeat of the retried ones is stable too.
    for (const i of unanswered.slice(0, 20)) {
      const again = await resolve(second, apiKey, i);
      expect(again.status).toBe(200);
      expect(again.body.customerId).toBe(customerIds.get(i));
    }

    // The read model caught up across the crash: the operator sees no lag, and it holds every customer.
    const status = await runCli(['projections', 'status'], environment.env);
    expect(status.status).toBe(0);
    expect(status.json).toEqual({
      projections: PROJECTIONS.map((p) => expect.objectContaining({ name: p.name, version: p.version, checkpoint: head, lag: 0 })),
    });
    const redis = new Redis(REDIS_URL);
    try {
      const readModel = new ReadModel({ redis, prefix: environment.prefix, projections: PROJECTIONS });
      const documents = await Promise.all([...customerIds.values()].map((id) => readModel.getDocument('customers', customerDocumentId(tenantId, id))));
      expect(documents.filter((d) => d === null)).toHaveLength(0);
    } finally {
      redis.disconnect();
    }
  }, 180_000); // ~10-20 s alone; the margin is for a loaded 2-core machine, where starting the service from source alone can take 30 s
});
