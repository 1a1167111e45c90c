import { randomUUID } from 'node:crypto';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { expectProblem } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { initialWindowAccess } from './support/redec-fixtures';

// A data subject's block (docs/reference/rights-requests.md, "Blocks";
// decision 0068) through the HTTP stack the service runs, on the embedded
// SQLite store and on PostgreSQL: while an approved block is in force every
// authorize for the subject is denied, under any of their consents, an
// access reported at an instant a block covered is refused, and lifting the
// block gives the decision back to the consent.

const MINUTE = 60_000;
const sha = 'c'.repeat(64);

describe.each(EACH_STORE)('processing blocks, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let auth: { Authorization: string };
  let consents: ReturnType<typeof redecConsents>;

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment);
    let apiKey: string;
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
    auth = { Authorization: `Bearer ${apiKey}` };
    consents = redecConsents(api, apiKey);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  const post = (path: string, body: object) => api.http.post(path).set(auth).set('Idempotency-Key', randomUUID()).send(body);
  const authorize = (consent: GrantedConsent) =>
    api.http.post('/v1/redec/accesses/authorize').set(auth).send(initialWindowAccess(consent.redecConsentId));
  const decisionOf = async (consent: GrantedConsent) => {
    const answer = await authorize(consent);
    expect(answer.status).toBe(201);
    return answer.body.decision as { status: string; denyReasonCode?: string; redecAccessId: string };
  };
  const block = async (customerId: string, outcome: 'approved' | 'partially_approved' | 'rejected' = 'approved', resolvedAt = Date.now() - MINUTE) => {
    const received = await post('/v1/rights-requests', { customerId, kind: 'blocking', receivedAt: Date.now() - 2 * MINUTE, channel: 'phone', sourceSystem: 'privacy-desk', sourceReference: `bloqueo-${randomUUID()}` });
    expect(received.status).toBe(201);
    const resolved = await post(`/v1/rights-requests/${received.body.rightsRequestId}/transitions`, {
      to: 'resolved',
      occurredAt: resolvedAt,
      outcome,
      ...(outcome === 'approved' ? {} : { reason: 'Sin fundamento suficiente.' }),
      response: { channel: 'sms', sentAt: resolvedAt, contentSha256: sha },
    });
    expect(resolved.status).toBe(200);
    return { rightsRequestId: received.body.rightsRequestId as string, resolvedAt };
  };

  it("denies every authorize for the subject, under any of their consents, while an approved block is in force, and the consent decides again once it is lifted", async () => {
    const first = await consents.grant();
    const second = await consents.grant({ customerId: first.customerId });
    const bystander = await consents.grant();
    expect((await decisionOf(first)).status).toBe('authorized');

    const { rightsRequestId } = await block(first.customerId);
    for (const consent of [first, second]) expect(await decisionOf(consent)).toMatchObject({ status: 'denied', denyReasonCode: 'data_subject_processing_blocked' });
    expect((await decisionOf(bystander)).status).toBe('authorized');

    const lifted = await post(`/v1/rights-requests/${rightsRequestId}/transitions`, { to: 'block_lifted', occurredAt: Date.now(), reason: 'El titular retiró su solicitud.' });
    expect(lifted.body).toMatchObject({ status: 'block_lifted', outcome: 'approved' });
    for (const consent of [first, second]) expect((await decisionOf(consent)).status).toBe('authorized');
  });

  it('denies under a block approved in part too, and never under a rejected one', async () => {
    const partly = await consents.grant();
    await block(partly.customerId, 'partially_approved');
    expect((await decisionOf(partly)).denyReasonCode).toBe('data_subject_processing_blocked');
    const rejected = await consents.grant();
    await block(rejected.customerId, 'rejected');
    expect((await decisionOf(rejected)).status).toBe('authorized');
  });

  it('refuses an access reported at an instant a block covered, even for an authorization decided before the block', async () => {
    const consent = await consents.grant();
    const authorized = await decisionOf(consent);
    // Approved after the authorization: an access reported before that instant is still covered by it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { resolvedAt } = await block(consent.customerId, 'approved', Date.now());
    const confirm = (outcome: object) => api.http.post(`/v1/redec/accesses/${authorized.redecAccessId}/confirm`).set(auth).send({ outcome });
    expectProblem(await confirm({ kind: 'accessed', accessedAt: resolvedAt }), 409, 'redec_authorization_expired');
    expect((await confirm({ kind: 'accessed', accessedAt: resolvedAt - 1 })).status).toBe(200);
  });

  it("keeps the block's resolution and lifting in the subject's stream of blocks, and shows them in the request's history", async () => {
    const consent = await consents.grant();
    const { rightsRequestId } = await block(consent.customerId);
    await post(`/v1/rights-requests/${rightsRequestId}/transitions`, { to: 'block_lifted', occurredAt: Date.now() });
    const blocks = await api.store.readStream(redecStreams.processingBlocks(tenantId, consent.customerId));
    expect(blocks.map((event) => event.type)).toEqual(['RightsRequestResolved', 'RightsRequestBlockLifted']);
    expect((await api.store.readStream(redecStreams.rightsRequest(tenantId, rightsRequestId))).map((event) => event.type)).toEqual(['RightsRequestReceived']);
    const read = await api.http.get(`/v1/rights-requests/${rightsRequestId}`).set(auth);
    expect(read.body.history.map((step: { step: string }) => step.step)).toEqual(['received', 'resolved', 'block_lifted']);
  });
});
