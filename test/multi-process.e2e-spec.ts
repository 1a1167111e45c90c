import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { PostgresEventStore, RecordedEvent } from '@ledger/event-store';
import { createTestDatabase, readEveryEvent, TestDatabase } from '@ledger/event-store/testing';
import { ProjectionRunner } from '@ledger/projections';
import { PROJECTIONS } from '../apps/api/src/projections';
import { waitUntil } from './support/api-app';
import { REDIS_URL, TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, ensureBuilt, expectExitZero, runCli, spawnApi, spawnWorker, WorkerProcess } from './support/processes';
import { initialWindowAccess, redecConfiguration, rutOf } from './support/redec-fixtures';
import { startWebhookReceiver } from './support/webhook-receiver';

// Issue 15: several processes, one ledger. Two API processes and one worker
// (the build, as `npm start` and `npm run start:worker` run it) on one
// PostgreSQL database and one Redis prefix. Consents are granted, authorized
// and revoked at both APIs at once, the same Idempotency-Key is sent to both
// concurrently, one API and the worker are SIGKILLed mid-load and started
// again. Afterwards every answered fact is in the store exactly once, the read
// model is what a rebuild from zero makes, every grant and revocation webhook
// arrived (one webhook-id per notification however often it came), both APIs
// serve every certificate the worker rendered, and the integrity chain is
// intact.

const SCOPES = 'consent:admin,consent:write,consent:read,consent:identity-assert,consent:runtime';
const MINUTE = 60_000;
const FLOWS_BEFORE_KILL = 16;
const FLOWS_DURING_OUTAGE = 8;
const FLOWS_AFTER_RESTART = 16;
const IN_FLIGHT = 6;
/** Three built services, two CLI runs and forty consents' lives: about 5 minutes on a loaded 2-core machine. */
const SLOW = 900_000;

interface Answered {
  grants: Map<string, string>; // consentActionId -> redecConsentId
  revocations: Map<string, string>; // consentActionId -> redecConsentId
  accesses: Set<string>; // redecAccessId
}

describe('several processes, one ledger on PostgreSQL', () => {
  let database: TestDatabase;
  let environment: TestEnvironment;
  const apis: ApiProcess[] = [];
  const workers: WorkerProcess[] = [];
  let apiKey: string;
  let configurationId: string;
  let nextRut = 31_000_000;
  const answered: Answered = { grants: new Map(), revocations: new Map(), accesses: new Set() };

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabase();
    // Workers only in the worker process: the APIs enqueue, the worker renders and delivers.
    environment = testEnvironment({ DATABASE_URL: database.url, LEDGER_WORKERS: 'external' });
  }, SLOW);
  afterAll(async () => {
    for (const service of [...apis, ...workers]) {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      await service.exited;
    }
    await environment?.dispose();
    await database?.drop();
  });

  const start = () => spawnApi(environment.env, 90_000, { built: true });
  const startWorker = () => spawnWorker(environment.env, 90_000, { built: true });

  /** One request; null when no answer came back (the process died or was dead). */
  async function call(api: ApiProcess, path: string, body: unknown, idempotencyKey?: string): Promise<{ status: number; body: any } | null> {
    try {
      const response = await fetch(`${api.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    } catch {
      return null;
    }
  }

  /**
   * The same request at `first`, and while it gets no answer at the other
   * live API, as an integrator's retry would; the answer that arrives is the
   * acknowledgement. A 409 IDEMPOTENCY_KEY_IN_PROGRESS is retried too.
   */
  async function acknowledged(prefer: number, path: string, body: unknown, idempotencyKey?: string): Promise<any> {
    // Beyond the 30-second lease of an Idempotency-Key claimed by a process that was killed (decision 0009).
    const deadline = Date.now() + 90_000;
    for (let attempt = 0; Date.now() < deadline; attempt += 1) {
      const api = apis[(prefer + attempt) % apis.length];
      const answer = await call(api, path, body, idempotencyKey);
      if (answer !== null && answer.status !== 409 && answer.status < 500) {
        if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
        return answer.body;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${path}: no answer within 90 s`);
  }

  /** A consent's life, each step at an API chosen by `n`: resolve, interaction, grant, authorize, revoke. */
  async function flow(n: number, sameKeyAtBoth: boolean): Promise<void> {
    const rut = rutOf((nextRut += 7919));
    const customer = await acknowledged(n, '/v1/customers/resolve', {
      userReference: `multi-${randomUUID()}`,
      identifiers: [{ system: 'cl-sii', type: 'rut', value: rut, verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
    });
    const interaction = await acknowledged(n + 1, '/v1/redec/consent-interactions', { configurationId, customerId: customer.customerId });
    const grant = await acknowledged(n, `/v1/redec/consent-interactions/${interaction.interactionId}/grant`, {
      occurredAt: Date.now() - MINUTE,
      sourceSystem: 'crm',
      sourceReference: `cap-${randomUUID()}`,
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
    });
    answered.grants.set(grant.consentActionId, grant.redecConsentId);
    const access = await acknowledged(n + 1, '/v1/redec/accesses/authorize', initialWindowAccess(grant.redecConsentId));
    answered.accesses.add(access.decision.redecAccessId);
    const revokePath = `/v1/redec/consents/${grant.redecConsentId}/revoke`;
    const revocation = { channel: 'digital', occurredAt: Date.now() - 1_000, sourceType: 'direct', identityAssurance: 'client_authenticated' };
    const key = randomUUID();
    const revoked = sameKeyAtBoth
      ? (await Promise.all([acknowledged(0, revokePath, revocation, key), acknowledged(1, revokePath, revocation, key)]))[0]
      : await acknowledged(n, revokePath, revocation, key);
    answered.revocations.set(revoked.consentActionId, grant.redecConsentId);
  }

  async function load(count: number, offset: number, midway?: () => Promise<void>): Promise<void> {
    let next = 0;
    let done = 0;
    let triggered = false;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < count; i = next++) {
          await flow(offset + i, i % 3 === 0);
          done += 1;
          if (midway && !triggered && done >= count / 2) {
            triggered = true;
            await midway();
          }
        }
      }),
    );
  }

  it('keeps every answered fact exactly once, a read model equal to a rebuild, every webhook and an intact chain across SIGKILLs', async () => {
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco Multiproceso'], environment.env);
    expectExitZero(tenant);
    const key = await runCli(['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', SCOPES], environment.env);
    expectExitZero(key);
    apiKey = key.json.apiKey;

    apis.push(...(await Promise.all([start(), start()])));
    workers.push(await startWorker());
    const receiver = await startWebhookReceiver();
    try {
      await acknowledged(0, '/v1/webhook-endpoints', { url: receiver.url, eventTypes: ['redec.notification.required'] });
      configurationId = (await acknowledged(1, '/v1/configurations', redecConfiguration({ templateKey: `multi-${randomUUID()}` }))).configurationId;

      // Mid-load: the second API and the worker are killed (no shutdown hook runs) while requests are in flight at both APIs.
      await load(FLOWS_BEFORE_KILL, 0, async () => {
        apis[1].child.kill('SIGKILL');
        workers[0].child.kill('SIGKILL');
        await Promise.all([apis[1].exited, workers[0].exited]);
      });
      // Only the first API answers now; its requests are retried there.
      const survivor = apis[0];
      apis.splice(0, apis.length, survivor);
      await load(FLOWS_DURING_OUTAGE, FLOWS_BEFORE_KILL);
      apis.push(await start());
      workers.push(await startWorker());
      await load(FLOWS_AFTER_RESTART, FLOWS_BEFORE_KILL + FLOWS_DURING_OUTAGE);

      const flows = FLOWS_BEFORE_KILL + FLOWS_DURING_OUTAGE + FLOWS_AFTER_RESTART;
      expect(answered.grants.size).toBe(flows);
      expect(answered.revocations.size).toBe(flows);
      expect(answered.accesses.size).toBe(flows);

      // Every grant and revocation notified; a notification sent more than once kept its webhook-id.
      const notifications = () => {
        const ids = new Map<string, Set<string>>();
        for (const webhook of receiver.received) {
          const { data } = JSON.parse(webhook.body) as { data: { consent_action_id: string } };
          const seen = ids.get(data.consent_action_id) ?? new Set<string>();
          seen.add(String(webhook.headers['webhook-id']));
          ids.set(data.consent_action_id, seen);
        }
        return ids;
      };
      const expected = [...answered.grants.keys(), ...answered.revocations.keys()];
      await waitUntil(() => expected.every((id) => notifications().has(id)), 60_000, 200);
      for (const [, webhookIds] of notifications()) expect(webhookIds.size).toBe(1);

      // The certificates the worker rendered are served by both APIs (they live in the database, not on a process's disk).
      const get = (api: ApiProcess, path: string) => fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      for (const redecConsentId of answered.grants.values()) {
        let metadata: { status?: string; contentSha256?: string } = {};
        await waitUntil(async () => {
          metadata = (await (await get(apis[0], `/v1/redec/consents/${redecConsentId}/artifact`)).json()) as typeof metadata;
          return metadata.status === 'ready';
        }, 60_000, 200);
        for (const api of apis) {
          const download = await get(api, `/v1/redec/consents/${redecConsentId}/artifact/download`);
          expect(download.status).toBe(200);
          expect(createHash('sha256').update(Buffer.from(await download.arrayBuffer())).digest('hex')).toBe(metadata.contentSha256);
        }
      }

      // Every answered fact exactly once in the store; one revocation per consent despite the same key at both APIs.
      const store = new PostgresEventStore(database.url);
      let events: RecordedEvent[];
      try {
        events = await readEveryEvent(store);
        const countOf = (type: string, field: string, id: string) => events.filter((e) => e.type === type && (e.data as Record<string, unknown>)[field] === id).length;
        for (const id of answered.grants.keys()) expect(countOf('ConsentGranted', 'consentActionId', id)).toBe(1);
        for (const id of answered.revocations.keys()) expect(countOf('RevocationRecorded', 'consentActionId', id)).toBe(1);
        for (const consent of answered.grants.values()) expect(countOf('RevocationRecorded', 'redecConsentId', consent)).toBe(1);
        for (const id of answered.accesses) expect(countOf('AccessDecided', 'redecAccessId', id)).toBe(1);

        // The read model the live processes built equals a rebuild from position zero.
        const redis = new Redis(REDIS_URL);
        try {
          const runner = new ProjectionRunner({ store, redis, prefix: environment.prefix, projections: PROJECTIONS, log: () => undefined });
          const head = await store.headPosition();
          await waitUntil(async () => (await runner.status()).every((s) => s.checkpoint >= head), 30_000, 200);
          const live = Object.fromEntries(await Promise.all(PROJECTIONS.map(async (p) => [p.name, await runner.digest(p.name)] as const)));
          const rebuilt = await runCli(['projections', 'rebuild'], environment.env);
          expect(rebuilt.status).toBe(0);
          expect(Object.fromEntries((rebuilt.json.projections as Array<{ name: string; digest: string }>).map((p) => [p.name, p.digest]))).toEqual(live);
        } finally {
          redis.disconnect();
        }
      } finally {
        await store.close();
      }

      const verified = await runCli(['audit', 'verify'], environment.env);
      expect({ status: verified.status, json: verified.json }).toMatchObject({ status: 0, json: { intact: true, firstBreak: null, log: { firstMismatch: null } } });
      expect(verified.json.events).toBeGreaterThanOrEqual(events.length);
    } finally {
      await receiver.close();
    }
  }, SLOW);
});
