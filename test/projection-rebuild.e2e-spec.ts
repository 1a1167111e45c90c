import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '@ledger/projections';
import { PROJECTIONS } from '../apps/api/src/projections';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { runCli } from './support/processes';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// Issue 6: `ledger projections rebuild` builds every projection beside the
// live one while the service keeps serving, then switches. Its digest equals
// the digest of the model built incrementally, and rebuilding again gives the
// same digest. The ledger is produced through the public API.

const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
const MINUTE = 60_000;

describe('projection rebuild while serving', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let consents: ReturnType<typeof redecConsents>;
  const auth = () => ({ Authorization: `Bearer ${key}` });

  /** A consent through its lifecycle: an access, a credit extension (its binding), a revocation kept without effect. */
  async function lifecycle(consent: GrantedConsent, index: number): Promise<void> {
    const post = (path: string, body: object) => api.http.post(path).set(auth()).set('Idempotency-Key', randomUUID()).send(body);
    expect(
      (
        await post('/v1/redec/accesses/authorize', {
          authorizationBasis: 'consent',
          consentAuthorizationMode: 'initial_window',
          redecConsentId: consent.redecConsentId,
          dataCategoryCode: 'redec.consolidated_debt_record',
          scopeId: 'redec-debt',
          objectiveCode: '02',
          reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `loan-${index}`, assertedAt: Date.now() },
          sourceSystem: 'originacion',
          sourceReference: `access-${randomUUID()}`,
        })
      ).status,
    ).toBe(201);
    const extension = { customerTenantId: consent.customerId, objectiveCode: '02', creditOperationReference: `loan-${index}`, creditGrantedAt: Date.now() - MINUTE, sourceSystem: 'core-loans', sourceReference: `o-${index}` };
    expect((await post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions`, extension)).status).toBe(201);
    const revocation = { channel: 'digital', occurredAt: Date.now() - 1000, sourceType: 'direct', identityAssurance: 'client_authenticated' };
    expect((await post(`/v1/redec/consents/${consent.redecConsentId}/revoke`, revocation)).status).toBe(201);
  }

  const digests = async () => {
    const runner = api.app.get(ProjectionRunner);
    return Object.fromEntries(await Promise.all(PROJECTIONS.map(async (p) => [p.name, await runner.digest(p.name)] as const)));
  };
  const caughtUp = async () => {
    const head = await api.store.headPosition();
    await waitUntil(async () => (await api.app.get(ProjectionRunner).status()).every((s) => s.checkpoint >= head), 10_000);
  };
  const rebuild = async (...options: string[]) => {
    const rebuilt = await runCli(['projections', 'rebuild', ...options], environment.env);
    expect(rebuilt.status).toBe(0);
    return Object.fromEntries((rebuilt.json.projections as Array<{ name: string; digest: string }>).map((p) => [p.name, p.digest]));
  };

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    key = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:runtime'])).apiKey;
    consents = redecConsents(api, key);
    for (let i = 0; i < 6; i += 1) await lifecycle(await consents.grant({ occurredAt: Date.now() - 2 * MINUTE }), i);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('rebuilds in partitions while serving, each partition reporting its progress, into the model the service keeps', async () => {
    let serving = true;
    const load = (async () => {
      for (let i = 1_000; serving; i += 1) await lifecycle(await consents.grant({ occurredAt: Date.now() - 2 * MINUTE }), i);
    })();
    const rebuilt = await runCli(['projections', 'rebuild', '--partitions', '2'], environment.env).finally(async () => {
      serving = false;
      await load;
    });
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stderr).toMatch(/^partition 1\/2: redec-consents: /m);
    expect(rebuilt.stderr).toMatch(/^partition 2\/2: redec-consents: /m);
    // The models switched to, then kept by the service through the rest of the load, are those a rebuild in one piece makes.
    await caughtUp();
    const live = await digests();
    expect(await rebuild()).toEqual(live);
  }, 90_000);

  it('refuses a number of partitions it cannot use, before opening anything', async () => {
    for (const partitions of ['0', '65', 'two', '1.5']) {
      const refused = await runCli(['projections', 'rebuild', '--partitions', partitions], environment.env);
      expect(refused.status).toBe(2);
      expect(refused.json).toEqual({ error: { code: 'USAGE', message: '--partitions must be a whole number from 1 to 64' } });
    }
  });

  it('serves every request during a rebuild, and ends with the digest of the incrementally built model, twice', async () => {
    // Load while the rebuild runs: grants and their lifecycle, each read back at once.
    let serving = true;
    const served: number[] = [];
    const load = (async () => {
      for (let i = 100; serving; i += 1) {
        const consent = await consents.grant({ occurredAt: Date.now() - 2 * MINUTE });
        await lifecycle(consent, i);
        const read = await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth());
        served.push(read.status);
        expect(read.body).toMatchObject({ status: 'extended', revocation: { effective: false } });
      }
    })();
    const duringLoad = await rebuild();
    serving = false;
    await load;
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served)).toEqual(new Set([200]));
    expect(Object.keys(duringLoad)).toEqual(PROJECTIONS.map((p) => p.name));

    await caughtUp();
    const live = await digests();
    const again = await rebuild();
    expect(again).toEqual(live);
    expect(await rebuild()).toEqual(again);
    expect(await digests()).toEqual(live);
    // In partitions, each on a thread of the CLI (decision 0087): the same models.
    expect(await rebuild('--partitions', '3')).toEqual(live);
    expect(await digests()).toEqual(live);

    const status = await runCli(['projections', 'status'], environment.env);
    expect(status.json.projections.map((p: { name: string; lag: number }) => [p.name, p.lag])).toEqual(PROJECTIONS.map((p) => [p.name, 0]));
  }, 90_000);
});
