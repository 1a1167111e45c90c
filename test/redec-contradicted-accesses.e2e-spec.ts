import { randomUUID } from 'node:crypto';
import { Scope } from '@ledger/platform';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// Decision 0056: an authorization is a fact made on what was known when it was
// decided; a fact reported later that contradicts it leaves it recorded and
// lists it for the operator, with the fact that contradicts it. Through the
// real HTTP stack, the embedded store and Redis.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SCOPES: Scope[] = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'];

describe('authorizations contradicted by facts reported later', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let consents: ReturnType<typeof redecConsents>;
  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ apiKey: key } = await api.tenantKey(SCOPES));
    consents = redecConsents(api, key);
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  const authorize = async (consent: GrantedConsent) => {
    const request = {
      authorizationBasis: 'consent',
      consentAuthorizationMode: 'initial_window',
      redecConsentId: consent.redecConsentId,
      dataCategoryCode: 'redec.consolidated_debt_record',
      scopeId: 'redec-debt',
      objectiveCode: '02',
      reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `solicitud-${randomUUID()}`, assertedAt: Date.now() - 1_000 },
      sourceSystem: 'originacion',
      sourceReference: `acceso-${randomUUID()}`,
    };
    const answer = await api.http.post('/v1/redec/accesses/authorize').set(auth()).send(request);
    expect(answer.body.decision).toMatchObject({ status: 'authorized' });
    return { ...(answer.body.decision as { redecAccessId: string; decidedAt: number }), request };
  };
  const revoke = async (consent: GrantedConsent, occurredAt: number) => {
    const revoked = await api.http
      .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
      .set({ ...auth(), 'Idempotency-Key': randomUUID() })
      .send({ channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });
    expect(revoked.status).toBe(201);
  };
  const list = (query: Record<string, string | number> = {}, apiKey = key) => api.http.get('/v1/redec/accesses/contradicted').query(query).set(auth(apiKey));
  /** Every item of the list, page by page. */
  const everything = async (limit: number) => {
    const items: any[] = [];
    let cursor: string | null = null;
    do {
      const page = await list({ limit, ...(cursor === null ? {} : { cursor }) });
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    return items;
  };

  it('lists an authorization a revocation back-dated before it contradicts, with that revocation, and keeps the decision as recorded', async () => {
    const consent = await consents.grant({ occurredAt: Date.now() - 5 * HOUR });
    const decision = await authorize(consent);
    const confirmed = await api.http
      .post(`/v1/redec/accesses/${decision.redecAccessId}/confirm`)
      .set(auth())
      .send({ outcome: { kind: 'accessed', accessedAt: decision.decidedAt + 1 } });
    expect(confirmed.status).toBe(200);
    // The branch took the revocation an hour before the bank asked: reported now.
    await revoke(consent, decision.decidedAt - HOUR);
    await waitUntil(async () => (await list()).body.items.some((i: any) => i.redecAccessId === decision.redecAccessId), 10_000);
    const item = (await list()).body.items.find((i: any) => i.redecAccessId === decision.redecAccessId);
    expect(item).toEqual({
      redecAccessId: decision.redecAccessId,
      redecConsentId: consent.redecConsentId,
      decidedAt: decision.decidedAt,
      consentAuthorizationMode: 'initial_window',
      accessPurpose: null,
      reportingObligation: { sourceSystem: 'core-loans', sourceReference: expect.stringMatching(/^solicitud-/) },
      objectiveCode: '02',
      denyReasonCode: 'redec_consent_revoked',
      confirmation: { kind: 'accessed', accessedAt: decision.decidedAt + 1 },
      contradictedBy: { eventId: expect.any(String), type: 'RevocationRecorded', position: expect.any(Number), recordedAt: expect.any(Number) },
    });
    // The decision itself is a fact and stays as it was recorded: the same request answers it again.
    const again = await api.http.post('/v1/redec/accesses/authorize').set(auth()).send(decision.request);
    expect(again.body).toMatchObject({ replayed: true, decision: { redecAccessId: decision.redecAccessId, status: 'authorized', decidedAt: decision.decidedAt } });
  });

  it('does not list an authorization that preceded the revocation', async () => {
    const consent = await consents.grant({ occurredAt: Date.now() - 5 * HOUR });
    const decision = await authorize(consent);
    await revoke(consent, Date.now());
    const after = await consents.grant();
    await authorize(after);
    await waitUntil(async () => (await api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth())).body.status === 'revoked', 10_000);
    expect((await everything(50)).map((i) => i.redecAccessId)).not.toContain(decision.redecAccessId);
  });

  it('pages every contradicted authorization once, whatever the page size, and shows none to another tenant', async () => {
    const consent = await consents.grant({ occurredAt: Date.now() - 5 * HOUR });
    const decisions = [await authorize(consent), await authorize(consent), await authorize(consent)];
    await revoke(consent, decisions[0].decidedAt - MINUTE);
    const ids = decisions.map((d) => d.redecAccessId);
    await waitUntil(async () => (await everything(50)).filter((i) => ids.includes(i.redecAccessId)).length === 3, 10_000);
    for (const limit of [1, 2, 50]) {
      const listed = (await everything(limit)).map((i) => i.redecAccessId);
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed.filter((id) => ids.includes(id))).toEqual(ids);
    }
    const { apiKey: otherKey } = await api.tenantKey(['consent:read']);
    expect((await list({}, otherKey)).body).toEqual({ items: [], nextCursor: null });
    expect((await list({ cursor: 'not-a-cursor' })).body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'cursor', reason: 'invalid_cursor' }] });
  });
});
