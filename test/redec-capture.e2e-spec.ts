import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { redecConfiguration } from './support/redec-fixtures';

// The capture half of the REDEC boundary through the real HTTP stack, SQLite store and Redis.
describe('REDEC capture: configuration, interaction, grant, regulatory read', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let key: string;
  let configurationId: string;

  const auth = () => ({ Authorization: `Bearer ${key}` });
  const verifiedRut = (value: string) => ({
    system: 'cl-sii',
    type: 'rut',
    value,
    verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 60_000 },
  });

  beforeAll(async () => {
    environment = testEnvironment();
    // No certificate worker here: the three reads compare the same consent, and a certificate stored between
    // two of them would change its artifactStatus (readiness is redec-artifacts.e2e-spec.ts's subject).
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    key = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey;
    const published = await api.http
      .post('/v1/configurations')
      .set(auth())
      .send(redecConfiguration());
    expect(published.status).toBe(201);
    configurationId = published.body.configurationId;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('opens an interaction, grants it, and reads the consent back three ways', async () => {
    const interaction = await api.http
      .post('/v1/redec/consent-interactions')
      .set(auth())
      .send({ configurationId, userReference: 'cliente-1', identifiers: [verifiedRut('12.345.678-5')] });
    expect(interaction.status).toBe(201);
    expect(interaction.body).toMatchObject({ configurationId, customerCreated: true });

    const occurredAt = Date.now() - 60_000;
    const grant = await api.http
      .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
      .set(auth())
      .send({ occurredAt, sourceSystem: 'web', sourceReference: 'cap-1', evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } } });
    expect(grant.status).toBe(201);
    expect(grant.body).toMatchObject({ artifactStatus: 'pending', grantedAt: occurredAt });
    expect(grant.body.internalConsentCode).toMatch(/^[0-9A-Z]{20}$/);
    expect(grant.body.initialAccessValidUntil).toBeGreaterThan(occurredAt + 15 * 86_400_000);

    const read = await api.http.get(`/v1/redec/consents/${grant.body.redecConsentId}`).set(auth());
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      redecConsentId: grant.body.redecConsentId,
      internalConsentCode: grant.body.internalConsentCode,
      customerId: interaction.body.customerId,
      status: 'granted',
      channel: 'digital',
      captureTiming: 'deferred_external',
      grantedAt: occurredAt,
      initialAccessValidUntil: grant.body.initialAccessValidUntil,
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: ['02', '03'],
      revocation: null,
      creditExtensions: [],
      artifactStatus: 'pending',
      retentionUntil: null,
      retentionBasis: null,
    });

    const byCode = await api.http.get('/v1/redec/consents').query({ internalConsentCode: grant.body.internalConsentCode }).set(auth());
    expect(byCode.body).toEqual({ consents: [read.body] });
    const ofCustomer = await api.http.get(`/v1/customers/${interaction.body.customerId}/consents`).set(auth());
    expect(ofCustomer.body.consents).toEqual([{ ...read.body, kind: 'redec', templateKey: 'redec-credit-evaluation', configurationVersion: 1 }]);
  });
});

describe('a holiday added by configuration (LEDGER_HOLIDAYS_FILE), without a release', () => {
  it('moves the initial window of a grant recorded after the service starts with it', async () => {
    const { bankingCalendar, initialAccessValidUntil, localDateOf } = await import('@ledger/redec');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const occurredAt = Date.now() - 60_000;
    const shipped = bankingCalendar();
    // A one-off holiday on the first banking day of the window shifts its end by one banking day.
    const declared = { date: shipped.addBankingDays(localDateOf(occurredAt), 1), name: 'Feriado declarado de prueba', kind: 'one-off' as const };
    const environment = testEnvironment();
    const file = join(environment.dataDir, 'holidays.json');
    writeFileSync(file, JSON.stringify({ version: 'test', source: 'declared for this test', holidays: [declared] }));
    const api = await startApiApp(environment, { LEDGER_HOLIDAYS_FILE: file });
    try {
      const key = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey;
      const auth = { Authorization: `Bearer ${key}` };
      const published = await api.http.post('/v1/configurations').set(auth).send(redecConfiguration({ redec: { objectiveCodes: ['02'] } }));
      const verification = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 120_000 };
      const interaction = await api.http
        .post('/v1/redec/consent-interactions')
        .set(auth)
        .send({ configurationId: published.body.configurationId, userReference: 'cliente-1', identifiers: [{ system: 'cl-sii', type: 'rut', value: '12.345.678-5', verification }] });
      const grant = await api.http
        .post(`/v1/redec/consent-interactions/${interaction.body.interactionId}/grant`)
        .set(auth)
        .send({ occurredAt, sourceSystem: 'web', sourceReference: 'cap-1', evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } } });
      expect(grant.status).toBe(201);
      const extended = initialAccessValidUntil(occurredAt, bankingCalendar([declared]));
      expect(extended).toBeGreaterThan(initialAccessValidUntil(occurredAt, shipped));
      expect(grant.body.initialAccessValidUntil).toBe(extended);
    } finally {
      await api.close();
      await environment.dispose();
    }
  });
});
