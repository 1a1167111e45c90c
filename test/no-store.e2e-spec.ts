import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { redecConsents } from './support/redec-consents';
import { binaryBody } from './support/text-body';

// Issue 32, item 7a: every answer that carries evidence, an artifact, a
// report's content, an export, a consent's history or an audit bundle is sent
// with Cache-Control: no-store, read here through the production app factory.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('Cache-Control: no-store on what carries evidence', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let apiKey: string;
  const auth = () => ({ Authorization: `Bearer ${apiKey}` });
  const get = (path: string) => api.http.get(path).set(auth()).buffer(true).parse(binaryBody);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:report', 'consent:audit']));
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('on the evidence view, the artifact download, the history, the audit bundle, the consent export, a report content and a subject\'s report, and on no other read', async () => {
    expect((await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '0000000064' })).status).toBe(200);
    const { redecConsentId, customerId } = await redecConsents(api, apiKey).grant({ occurredAt: Date.now() - 2 * MINUTE });
    const access = await api.http
      .post('/v1/rights-requests')
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({ customerId, kind: 'access', receivedAt: Date.now(), channel: 'web', sourceSystem: 'privacy-desk', sourceReference: 'solicitud-1' });
    expect(access.status).toBe(201);
    await waitUntil(async () => (await api.http.get(`/v1/redec/consents/${redecConsentId}/artifact`).set(auth())).body.status === 'ready', 30_000, 100);
    const requested = await api.http.post('/v1/redec/reports').set({ ...auth(), 'Idempotency-Key': randomUUID() }).send({ kind: 'rdc30', periodStart: Date.now() - DAY, periodEnd: Date.now() - 1 });
    expect(requested.status).toBe(202);
    const { reportId } = requested.body;
    await waitUntil(async () => (await api.http.get(`/v1/redec/reports/${reportId}`).set(auth())).body.status === 'ready', 30_000, 100);

    const carrying = [
      `/v1/redec/consents/${redecConsentId}/evidence`,
      `/v1/redec/consents/${redecConsentId}/artifact/download`,
      `/v1/redec/consents/${redecConsentId}/history`,
      `/v1/redec/consents/${redecConsentId}/audit-bundle`,
      '/v1/redec/consent-exports',
      `/v1/redec/reports/${reportId}/content`,
      `/v1/rights-requests/${access.body.rightsRequestId}/subject-report`,
    ];
    const answers = await Promise.all(carrying.map(async (path) => ({ path, ...(await get(path)) })));
    expect(answers.map(({ path, status, headers }) => ({ path, status, cacheControl: headers['cache-control'] }))).toEqual(
      carrying.map((path) => ({ path, status: 200, cacheControl: 'no-store' })),
    );
    // A refused request to such a route is not stored either.
    expect((await get(`/v1/redec/consents/${randomUUID()}/evidence`)).headers['cache-control']).toBe('no-store');
    // The header marks these routes, not every answer.
    expect((await get(`/v1/redec/consents/${redecConsentId}`)).headers['cache-control']).toBeUndefined();
  }, 90_000);
});
