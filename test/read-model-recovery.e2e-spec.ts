import { CustomerDocument, customerDocumentId, rutCheckDigit } from '@ledger/ledger';
import { PROJECTIONS } from '../apps/api/src/projections';
import { DomainError } from '@ledger/platform';
import { ProjectionRunner, ReadModel } from '@ledger/projections';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, deleteRedisKeys, testEnvironment } from './support/environment';
import { runCli } from './support/processes';
import { countRedisKeys, deleteRedisKeysAtOnce } from './support/redis-keys';

// The read model in Redis is derived data: the event store is the only source
// of truth, so losing every Redis key of the prefix must change no answer.
describe('read model recovery', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let apiKey: string;
  let otherTenant: { tenantId: string; apiKey: string };

  const rut = (body: string) => ({ system: 'cl-sii', type: 'rut', value: `${body}-${rutCheckDigit(body)}` });
  const email = (value: string) => ({ system: 'bank', type: 'email', value });
  const verified = (identifier: { system: string; type: string; value: string }) => ({
    ...identifier,
    verification: { method: 'clave_unica', sourceReference: 'auth-77', verifiedAt: Date.now() - 60_000 },
  });

  /** What was resolved, and the first answer, per [key, body]. */
  const resolutions: Array<{ key: () => string; tenant: () => string; body: any; headers: Record<string, string>; first: { status: number; body: any } }> = [];

  const resolve = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${key}`).set(headers).send(body as object);

  /** Every customer document the read model holds for what was resolved, and the model's digest. */
  async function snapshot() {
    const readModel = api.app.get(ReadModel);
    const documents: Record<string, CustomerDocument | null> = {};
    for (const r of resolutions) {
      const id = customerDocumentId(r.tenant(), r.first.body.customerId);
      documents[id] = await readModel.getDocument<CustomerDocument>('customers', id);
    }
    return { documents, digest: await api.app.get(ProjectionRunner).digest('customers') };
  }

  /**
   * After a loss, the model's reads refuse (read_model_rebuilding) until it is whole again (decision 0078): polls the
   * snapshot until it answers, and returns that answer. Any other error fails.
   */
  async function snapshotOnceRebuilt() {
    let answer: Awaited<ReturnType<typeof snapshot>> | undefined;
    await waitUntil(async () => {
      answer = await snapshot().catch((error) => (error instanceof DomainError && error.code === 'read_model_rebuilding' ? undefined : Promise.reject(error)));
      return answer !== undefined;
    }, 5_000);
    return answer!;
  }

  /** Every resolution answers as a repeat of the first: 200 with the same customer, or (Idempotency-Key) the first answer itself. */
  async function expectSameAnswers() {
    for (const r of resolutions) {
      const again = await resolve(r.key(), r.body, r.headers);
      if (r.headers['Idempotency-Key']) {
        expect({ status: again.status, body: again.body }).toEqual(r.first);
      } else {
        expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { ...r.first.body, created: false } });
      }
    }
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ tenantId, apiKey } = await api.tenantKey(['consent:write', 'consent:identity-assert']));
    otherTenant = await api.tenantKey(['consent:write']);

    const seed = async (key: () => string, tenant: () => string, body: any, headers: Record<string, string> = {}) => {
      const first = await resolve(key(), body, headers);
      expect(first.status).toBe(201);
      resolutions.push({ key, tenant, body, headers, first: { status: first.status, body: first.body } });
    };
    const mine = [() => apiKey, () => tenantId] as const;
    await seed(...mine, { userReference: 'rm-1', identifiers: [rut('16543210')] });
    await seed(...mine, { userReference: 'rm-2', identifiers: [rut('8765432'), email('rm2@example.cl')] });
    await seed(...mine, { userReference: 'rm-3', identifiers: [verified(rut('20111222'))] });
    await seed(...mine, { userReference: 'rm-4', identifiers: [rut('13131313')] }, { 'Idempotency-Key': 'rm-idem-1' });
    // The same reference in another tenant is another customer.
    await seed(() => otherTenant.apiKey, () => otherTenant.tenantId, { userReference: 'rm-1', identifiers: [rut('16543210')] });
    // A later fact on an existing customer: a linked identifier.
    const linked = await resolve(apiKey, { userReference: 'rm-1', identifiers: [rut('16543210'), email('rm1@example.cl')] });
    expect(linked.status).toBe(200);
    resolutions[0].body = { userReference: 'rm-1', identifiers: [rut('16543210'), email('rm1@example.cl')] };
    resolutions[0].first = { status: 201, body: linked.body };
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('holds every resolved customer before any loss (the baseline the other tests compare with)', async () => {
    const { documents } = await snapshot();
    expect(Object.values(documents)).toHaveLength(5);
    expect(Object.values(documents).every((d) => d !== null)).toBe(true);
    expect(documents[customerDocumentId(tenantId, resolutions[0].first.body.customerId)]!.identifiers).toEqual([
      { system: 'cl-sii', type: 'rut', verificationState: 'unverified' },
      { system: 'bank', type: 'email', verificationState: 'unverified' },
    ]);
    expect(documents[customerDocumentId(tenantId, resolutions[2].first.body.customerId)]!.identifiers).toEqual([
      { system: 'cl-sii', type: 'rut', verificationState: 'asserted' },
    ]);
  });

  it('deleting every key of the prefix and restarting gives the same documents, digest and answers', async () => {
    const before = await snapshot();
    await api.close();
    expect(await deleteRedisKeys(environment.prefix)).toBeGreaterThan(0);
    expect(await countRedisKeys(environment.prefix)).toBe(0);

    api = await startApiApp(environment); // answers once /health/ready is 200
    // Ready means caught up: the model is whole at once, not eventually.
    expect(await snapshot()).toEqual(before);
    await expectSameAnswers();
    expect(await snapshot()).toEqual(before);
  });

  it('deleting the keys while the service runs heals the model without a restart', async () => {
    const before = await snapshot();
    expect(await deleteRedisKeysAtOnce(environment.prefix)).toBeGreaterThan(0);
    // Nothing is written meanwhile: the runner must notice the missing pointer on its own. The first answer after the
    // loss is the whole model, never a part of it.
    expect(await snapshotOnceRebuilt()).toEqual(before);
    await expectSameAnswers();
  });

  it('a write right after the loss is readable on its answer, with everything before it', async () => {
    const before = await snapshot();
    expect(await deleteRedisKeysAtOnce(environment.prefix)).toBeGreaterThan(0);
    const created = await resolve(apiKey, { userReference: 'rm-after-loss', identifiers: [rut('9191919')] });
    expect(created.status).toBe(201);
    // Read-your-writes holds across the loss: the model's first answer after the write's holds it, with everything before it.
    expect((await snapshotOnceRebuilt()).documents).toEqual(before.documents);
    expect(await api.app.get(ReadModel).getDocument('customers', customerDocumentId(tenantId, created.body.customerId))).toMatchObject({
      customerId: created.body.customerId,
    });
    resolutions.push({ key: () => apiKey, tenant: () => tenantId, body: { userReference: 'rm-after-loss', identifiers: [rut('9191919')] }, headers: {}, first: { status: 201, body: created.body } });
  });

  it('`ledger projections rebuild` while the service serves: one JSON document (the whole stdout) with the live digest, progress on stderr', async () => {
    const runner = api.app.get(ProjectionRunner);
    const liveDigest = await runner.digest('customers');
    const [liveStatus] = await runner.status();
    const head = await api.store.headPosition();
    expect(liveStatus.lag).toBe(0);

    const rebuilt = await runCli(['projections', 'rebuild'], environment.env);
    expect(rebuilt.status).toBe(0);
    const printed = JSON.parse(rebuilt.stdout);
    expect(Object.keys(printed)).toEqual(['projections']);
    // Every projection is rebuilt from position zero, so each absorbs every event in the store.
    expect(printed.projections.map((p: { name: string }) => p.name)).toEqual(PROJECTIONS.map((p) => p.name));
    expect(printed.projections.find((p: { name: string }) => p.name === 'customers')).toEqual({ name: 'customers', events: head, digest: liveDigest });
    expect(rebuilt.stderr).toMatch(/customers: \d+ events, position \d+\/\d+/);
    expect(rebuilt.stdout).not.toMatch(/position \d+\/\d+/);

    // The rebuilt generation is live now, with the same content, and the running service follows it.
    const [after] = await runner.status();
    expect(after.generation).not.toBe(liveStatus.generation);
    expect(await runner.digest('customers')).toBe(liveDigest);
    const before = await snapshot();
    expect(before.digest).toBe(liveDigest);
    await expectSameAnswers();

    const created = await resolve(apiKey, { userReference: 'rm-after-rebuild', identifiers: [rut('7654321')] });
    expect(created.status).toBe(201);
    expect(await api.app.get(ReadModel).getDocument('customers', customerDocumentId(tenantId, created.body.customerId))).toMatchObject({
      customerId: created.body.customerId,
    });
    expect((await snapshot()).documents).toEqual(before.documents);
  }, 60_000);
});
