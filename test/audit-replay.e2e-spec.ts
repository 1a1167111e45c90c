import { randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { runCli } from './support/processes';

// Issue 6: an auditor replays what the ledger recorded about one consent,
// over HTTP (scope consent:audit) and with `ledger audit replay`, and reads
// what it stated at a past instant. The ledger is produced through the API.

const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('audit replay of a consent', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let auditor: string;
  let consent: GrantedConsent;
  let neighbour: GrantedConsent;
  /** Instants between the steps, for point-in-time reads. */
  const marks: Record<string, number> = {};

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const post = (path: string, body: object, idempotent = false) => {
    const call = api.http.post(path).set(auth());
    return (idempotent ? call.set('Idempotency-Key', randomUUID()) : call).send(body);
  };
  const history = (query: Record<string, string> = {}, apiKey = auditor, id = consent.redecConsentId) =>
    api.http.get(`/v1/redec/consents/${id}/history`).query(query).set(auth(apiKey));
  const authorize = (target: GrantedConsent, mode: Record<string, unknown>) =>
    post('/v1/redec/accesses/authorize', {
      authorizationBasis: 'consent',
      redecConsentId: target.redecConsentId,
      dataCategoryCode: 'redec.consolidated_debt_record',
      scopeId: 'redec-debt',
      objectiveCode: '02',
      reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'loan-1', assertedAt: Date.now() },
      sourceSystem: 'originacion',
      sourceReference: `access-${randomUUID()}`,
      ...mode,
    });

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert', 'consent:runtime']));
    auditor = (await issueApiKey(api.store, { tenantId, scopes: ['consent:audit'] }, { actor: 'cli:test', correlationId: 'test', now: Date.now() })).apiKey;
    const consents = redecConsents(api, key);
    consent = await consents.grant({ occurredAt: Date.now() - 2 * MINUTE });
    neighbour = await consents.grant({ occurredAt: Date.now() - 2 * MINUTE });

    const access = await authorize(consent, { consentAuthorizationMode: 'initial_window' });
    expect(access.body.decision.status).toBe('authorized');
    await authorize(neighbour, { consentAuthorizationMode: 'initial_window' });
    expect((await post(`/v1/redec/accesses/${access.body.decision.redecAccessId}/confirm`, { outcome: { kind: 'accessed', accessedAt: Date.now() } })).status).toBe(200);
    await sleep(5);
    marks.beforeExtension = Date.now();
    await sleep(5);
    const extension = await post(
      `/v1/redec/consents/${consent.redecConsentId}/credit-extensions`,
      { customerTenantId: consent.customerId, objectiveCode: '02', creditOperationReference: 'loan-1', creditGrantedAt: Date.now() - MINUTE, sourceSystem: 'core-loans', sourceReference: 'otorgamiento-1' },
      true,
    );
    expect(extension.status).toBe(201);
    // The same obligation bound to the neighbour too: its binding is a fact of the neighbour's, not of this consent's.
    const obligationGrantedAt = Date.now() - MINUTE;
    const binding = (obligationReference: string, redecConsentId: string) => ({ sourceSystem: 'core-loans', obligationReference, kind: 'consent', redecConsentId, obligationGrantedAt });
    expect((await post('/v1/redec/reportable-obligations/bindings', binding('loan-1', neighbour.redecConsentId), true)).status).toBe(201);
    expect((await post('/v1/redec/reportable-obligations/bindings', binding('loan-2', consent.redecConsentId), true)).status).toBe(201);
    const revoked = await post(`/v1/redec/consents/${consent.redecConsentId}/revoke`, { channel: 'digital', occurredAt: Date.now() - 1000, sourceType: 'direct', identityAssurance: 'client_authenticated' }, true);
    expect(revoked.body.effective).toBe(false);
    expect(
      (
        await post(
          `/v1/redec/consents/${consent.redecConsentId}/notification-evidence`,
          {
            notificationReason: 'revoke',
            notificationChannel: 'email',
            recipientHash: 'a'.repeat(64),
            status: 'sent',
            sentAt: Date.now(),
            sourceSystem: 'notificador',
            sourceReference: 'aviso-1',
            contentSha256: 'b'.repeat(64),
          },
          true,
        )
      ).status,
    ).toBe(201);
    await sleep(5);
    marks.beforeEnd = Date.now();
    await sleep(5);
    expect((await post(`/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${extension.body.creditExtensionId}/end`, { endReason: 'obligation_extinguished' }, true)).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it("lists every fact of the consent, its access and its obligations' bindings, in store order, with the representation after each", async () => {
    const response = await history();
    expect(response.status).toBe(200);
    const { events, representation } = response.body;
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      'ConsentGranted',
      'AccessDecided',
      'AccessConfirmed',
      'CreditExtensionRegistered',
      'ObligationBound',
      'RevocationRecorded',
      'NotificationEvidenceRecorded',
      'CreditExtensionEnded',
      'RevocationTookEffect',
    ]);
    const positions = events.map((e: { position: number }) => e.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    for (const event of events) {
      expect(event).toMatchObject({ stream: expect.any(String), revision: expect.any(Number), recordedAt: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      // Recorded through the API: the actor is the integrator's key id.
      expect(event.actor).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(events.map((e: { state: { status: string } }) => e.state.status)).toEqual(['granted', 'granted', 'granted', 'extended', 'extended', 'extended', 'extended', 'revoked', 'revoked']);
    expect(events[5].state.revocation).toMatchObject({ effective: false, effectiveAt: null });
    expect(events[8].data).toEqual({ redecConsentId: consent.redecConsentId, consentActionId: events[5].data.consentActionId, effectiveAt: events[7].data.endedAt });
    expect(representation).toMatchObject({ redecConsentId: consent.redecConsentId, status: 'revoked', retentionBasis: 'revocation', revocation: { effective: true, effectiveAt: events[7].data.endedAt } });
    // The neighbour's binding of the same obligation is not this consent's fact.
    expect(events.filter((e: { type: string; data: { redecConsentId?: string } }) => e.type === 'ObligationBound').map((e: { data: { obligationReference: string } }) => e.data.obligationReference)).toEqual(['loan-2']);
  });

  it('shows facts as recorded, without internal identity material, and hashes that chain within each stream', async () => {
    const { events } = (await history()).body;
    const text = JSON.stringify(events);
    expect(text).not.toMatch(/ciphertext/);
    expect(events[0].data).toMatchObject({ redecConsentId: consent.redecConsentId, internalConsentCode: consent.internalConsentCode, grantedAt: consent.grantedAt });
    const stored = await api.store.readStream(events[0].stream);
    const byRevision = new Map(stored.map((e) => [e.revision, e.integrity]));
    for (const event of events.filter((e: { stream: string }) => e.stream === events[0].stream)) {
      expect({ hash: event.hash, previousHash: event.previousHash }).toEqual(byRevision.get(event.revision));
    }
  });

  it('reads the consent as the ledger stated it at a past instant', async () => {
    const before = (await history({ at: String(marks.beforeExtension) })).body;
    expect(before.asOf).toBe(marks.beforeExtension);
    expect(before.events.map((e: { type: string }) => e.type)).toEqual(['ConsentGranted', 'AccessDecided', 'AccessConfirmed']);
    expect(before.representation).toMatchObject({ status: 'granted', revocation: null, creditExtensions: [], retentionUntil: null });

    const extended = (await history({ at: String(marks.beforeEnd) })).body;
    expect(extended.representation).toMatchObject({ status: 'extended', revocation: { effective: false } });
    expect(extended.events.at(-1).type).toBe('NotificationEvidenceRecorded');

    expectProblem(await history({ at: String(consent.recordedAt - 1) }), 404, 'NOT_FOUND');
    expectProblem(await history({ at: 'yesterday' }), 400, 'VALIDATION_ERROR');
  });

  it('answers a human-readable timeline with format=text', async () => {
    const response = await history({ format: 'text' });
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const lines = response.text.trim().split('\n');
    expect(lines[0]).toContain(consent.redecConsentId);
    expect(lines.slice(1, -1)).toHaveLength(9);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\dT.*ConsentGranted.*status granted/);
    expect(lines.at(-1)).toMatch(/^status revoked/);
  });

  it('needs consent:audit, and is 404 for another tenant or an unknown consent', async () => {
    expectProblem(await history({}, key), 403, 'INSUFFICIENT_SCOPE');
    const otherAuditor = (await api.tenantKey(['consent:audit'])).apiKey;
    expectProblem(await history({}, otherAuditor), 404, 'NOT_FOUND');
    expectProblem(await history({}, auditor, randomUUID()), 404, 'NOT_FOUND');
  });

  it('is the same through `ledger audit replay`, as JSON and as text', async () => {
    const replay = await runCli(['audit', 'replay', '--tenant', tenantId, '--consent', consent.redecConsentId], environment.env);
    expect(replay.status).toBe(0);
    const overHttp = (await history()).body;
    expect(replay.json.redecConsentId).toBe(consent.redecConsentId);
    expect(replay.json.events).toEqual(overHttp.events);
    const at = await runCli(['audit', 'replay', '--tenant', tenantId, '--consent', consent.redecConsentId, '--at', new Date(marks.beforeExtension).toISOString()], environment.env);
    expect(at.json.representation.status).toBe('granted');
    const text = await runCli(['audit', 'replay', '--tenant', tenantId, '--consent', consent.redecConsentId, '--format', 'text'], environment.env);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('CreditExtensionEnded');
    const missing = await runCli(['audit', 'replay', '--tenant', tenantId, '--consent', randomUUID()], environment.env);
    expect(missing.status).toBe(1);
    expect(missing.json.error.code).toBe('NOT_FOUND');
  });
});
