import { randomUUID } from 'node:crypto';
import { streams } from '@ledger/ledger';
import { ApiApp, startApiApp } from './support/api-app';
import { EACH_STORE, TestEnvironment } from './support/environment';
import { generalConsents } from './support/general-consents';
import { runCli } from './support/processes';
import { redecConsents } from './support/redec-consents';
import { rutOf } from './support/redec-fixtures';

// A suppression's effects (docs/reference/rights-requests.md, "Suppression";
// decision 0073) through the HTTP stack the service runs and the CLI as
// operators run it, on the embedded SQLite store and on PostgreSQL: the
// answer states where each record stands for erasure, and an approved
// suppression lets the existing erasure erase the data subject once every
// floor has passed, a legal hold still winning.

const MINUTE = 60_000;
const FIVE_YEARS = 5 * 366 * 24 * 60 * MINUTE;
let nextRutBody = 23_000_000;

describe.each(EACH_STORE)('suppression, on %s', (_store, environmentOf) => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let auth: { Authorization: string };
  let consents: ReturnType<typeof redecConsents>;
  let general: ReturnType<typeof generalConsents>;

  const post = (path: string, body: object) => api.http.post(path).set(auth).set('Idempotency-Key', randomUUID()).send(body);
  const customer = async () => {
    const resolved = await post('/v1/customers/resolve', { userReference: `cliente-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)) }] });
    expect(resolved.status).toBe(201);
    return resolved.body.customerId as string;
  };
  /** The data subject asks for suppression and the bank answers: the resolution's step. */
  const suppress = async (customerId: string, outcome: 'approved' | 'partially_approved' | 'rejected' = 'approved') => {
    const received = await post('/v1/rights-requests', { customerId, kind: 'suppression', receivedAt: Date.now() - 5 * MINUTE, channel: 'web', sourceSystem: 'privacy-desk', sourceReference: `supresion-${randomUUID()}` });
    expect(received.status).toBe(201);
    const resolved = await post(`/v1/rights-requests/${received.body.rightsRequestId}/transitions`, {
      to: 'resolved',
      occurredAt: Date.now(),
      outcome,
      ...(outcome === 'approved' ? {} : { reason: 'Debemos conservar parte de sus datos por obligación legal.' }),
      response: { channel: 'email', sentAt: Date.now(), contentSha256: 'c'.repeat(64) },
    });
    expect(resolved.status).toBe(200);
    return { rightsRequestId: received.body.rightsRequestId as string, ...resolved.body.history.find((step: { step: string }) => step.step === 'resolved') };
  };
  const erase = async (env: Record<string, string> = environment.env) => {
    const erasure = await runCli(['retention', 'erase', '--tenant', tenantId], env);
    expect(erasure.status).toBe(0);
    return erasure.json as { erasedCustomers: string[]; skippedOnHold: string[] };
  };
  const erasureOf = async (customerId: string) => (await api.store.readStream(streams.customer(tenantId, customerId))).find((event) => event.type === 'CustomerDataErased');

  beforeAll(async () => {
    environment = environmentOf();
    api = await startApiApp(environment);
    let apiKey: string;
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert']));
    auth = { Authorization: `Bearer ${apiKey}` };
    consents = redecConsents(api, apiKey);
    general = generalConsents(api, apiKey);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('answers an approved suppression with where each record stands, and the next erasure erases a subject whose records have no floor, naming the request', async () => {
    const subject = await customer();
    const { consentId } = await general.grant(subject);
    const bystander = await customer();
    await general.grant(bystander);

    const { rightsRequestId, suppression, recordedAt } = await suppress(subject);
    expect(suppression).toEqual({
      assessedAt: recordedAt,
      records: [{ record: { kind: 'general_consent', consentId }, reason: 'no_floor', retentionUntil: null, retentionBasis: null }],
      legalHoldsInForce: [],
      erasableFrom: recordedAt,
    });

    const erasure = await erase();
    expect(erasure.erasedCustomers).toEqual([subject]);
    expect((await erasureOf(subject))?.data).toMatchObject({ customerId: subject, redecConsentIds: [], retentionUntil: null, rightsRequestId });
    expect(await erasureOf(bystander)).toBeUndefined();
    // The request stays, its description with the subject's key gone; the consent's facts stay too.
    expect((await api.http.get(`/v1/rights-requests/${rightsRequestId}`).set(auth)).body.status).toBe('resolved');
  });

  it('states the floor of a revoked consent and erases the subject only after it; holds in force are named and still win', async () => {
    const granted = await consents.grant();
    expect((await consents.revoke(granted)).status).toBe(201);
    const { suppression } = await suppress(granted.customerId);
    expect(suppression.records).toEqual([{ record: { kind: 'redec_consent', redecConsentId: granted.redecConsentId }, reason: 'within_floor', retentionUntil: expect.any(Number), retentionBasis: 'revocation' }]);
    expect(suppression.erasableFrom).toBe(suppression.records[0].retentionUntil + 1);

    const held = await customer();
    const hold = await post(`/v1/customers/${held}/legal-holds`, { reason: 'litigio', reference: 'causa C-7-2026' });
    expect((await suppress(held)).suppression.legalHoldsInForce).toEqual([hold.body.legalHoldId]);

    const now = await erase();
    expect(now.erasedCustomers).not.toContain(granted.customerId);
    expect(now.skippedOnHold).toEqual([held]);
    const afterTheFloor = await erase({ ...environment.env, LEDGER_CLOCK_OFFSET_MS: String(FIVE_YEARS) });
    expect(afterTheFloor.erasedCustomers).toContain(granted.customerId);
    expect(afterTheFloor.skippedOnHold).toEqual([held]);
  });

  it('has no date for a consent still in force, and erases nothing for a suppression answered only in part, refused, or followed by a new consent', async () => {
    const inForce = await consents.grant();
    const answered = await suppress(inForce.customerId);
    expect(answered.suppression).toMatchObject({ records: [{ reason: 'in_force', retentionUntil: null }], erasableFrom: null });

    const inPart = await customer();
    await general.grant(inPart);
    expect((await suppress(inPart, 'partially_approved')).suppression.records).toEqual([expect.objectContaining({ reason: 'no_floor' })]);
    const refused = await customer();
    await general.grant(refused);
    expect((await suppress(refused, 'rejected')).suppression).toBeUndefined();
    const returned = await customer();
    await suppress(returned);
    await general.grant(returned);

    const erasure = await erase();
    for (const kept of [inForce.customerId, inPart, refused, returned]) expect(erasure.erasedCustomers).not.toContain(kept);
  });
});
