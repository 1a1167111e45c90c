import { randomUUID } from 'node:crypto';
import { redecStreams } from '@ledger/redec';
import { streams } from '@ledger/ledger';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError, recordsNothingAtAll } from './support/expectations';
import { redecConsents } from './support/redec-consents';

// Issue 16, items 1 to 3 and 5: the facts RDC30 and RDC31 need (tenant
// settings, executive, mandatary), and the reports rendered from them,
// through the real HTTP stack, SQLite store, Redis and queues.
describe('regulatory reports', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let reader: string;
  const EXECUTIVE_RUT = '7.654.321-6';
  const MANDATARY_RUT = '12.345.678-5';

  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert', 'consent:report']));
    ({ apiKey: reader } = await api.tenantKey(['consent:read']));
  });

  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('tenant settings', () => {
    it('start without an institution code, take one of 10 digits, and record a change only when it changes', async () => {
      const other = await api.tenantKey(['consent:admin']);
      expect((await api.http.get('/v1/tenant-settings').set(auth(other.apiKey))).body).toEqual({ institutionCode: null, updatedAt: null });
      const put = await api.http.put('/v1/tenant-settings').set(auth(other.apiKey)).send({ institutionCode: '0000000042' });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ institutionCode: '0000000042', updatedAt: expect.any(Number) });
      expect((await api.http.get('/v1/tenant-settings').set(auth(other.apiKey))).body).toEqual(put.body);
      await recordsNothingAtAll(api, async () => expect((await api.http.put('/v1/tenant-settings').set(auth(other.apiKey)).send({ institutionCode: '0000000042' })).body).toEqual(put.body));
      const facts = await api.store.readStream(streams.tenant(other.tenantId));
      expect(facts.map((e) => e.type)).toEqual(['TenantCreated', 'TenantSettingsChanged']);
    });

    it('refuse a code that is not 10 digits, an unknown field, and a key without consent:admin, changing nothing', async () => {
      await recordsNothingAtAll(api, async () => {
        expectValidationError(await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '12345' }), [{ field: 'institutionCode', reason: 'invalid_institution_code' }]);
        expectProblem(await api.http.put('/v1/tenant-settings').set(auth()).send({ institutionCode: '0000000001', name: 'x' }), 400, 'VALIDATION_ERROR');
        expectProblem(await api.http.put('/v1/tenant-settings').set(auth(reader)).send({ institutionCode: '0000000001' }), 403, 'INSUFFICIENT_SCOPE');
      });
    });
  });

  describe('executive and mandatary', () => {
    it('keep the executive of an in-person grant and the mandatary of an access only protected, and never show them back', async () => {
      const consent = await redecConsents(api, key, { channel: 'in_person' }).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } });
      const authorized = await api.http
        .post('/v1/redec/accesses/authorize')
        .set(auth())
        .send({
          authorizationBasis: 'consent',
          consentAuthorizationMode: 'initial_window',
          redecConsentId: consent.redecConsentId,
          dataCategoryCode: 'redec.consolidated_debt_record',
          scopeId: 'redec-debt',
          objectiveCode: '02',
          reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `sol-${randomUUID()}`, assertedAt: Date.now() - 1000 },
          sourceSystem: 'originacion',
          sourceReference: `acc-${randomUUID()}`,
          mandatary: { identifierRutInput: MANDATARY_RUT },
        });
      expect(authorized.status).toBe(201);
      expect(JSON.stringify(authorized.body)).not.toMatch(/12345678|mandatary/);

      const [grant] = await api.store.readStream(redecStreams.consent(tenantId, consent.redecConsentId));
      const [decision] = await api.store.readStream(redecStreams.access(tenantId, authorized.body.decision.redecAccessId));
      expect((grant.data as any).executive).toEqual({ identifierRut: { hash: expect.any(String), ciphertext: expect.stringMatching(/^v2\./) } });
      expect((decision.data as any).request.mandatary).toEqual({ identifierRut: { hash: expect.any(String), ciphertext: expect.stringMatching(/^v2\./) } });
      for (const stored of [grant, decision]) expect(JSON.stringify(stored)).not.toMatch(/7654321|12345678/);
    });

    it('refuse an executive on a digital capture and an invalid mandatary RUT, naming the field', async () => {
      await expect(redecConsents(api, key).grant({ fields: { executive: { identifierRutInput: EXECUTIVE_RUT } } })).rejects.toThrow(/grant: 400 .*executive_not_for_digital_channel/);
      const consent = await redecConsents(api, key).grant();
      const refused = await api.http
        .post('/v1/redec/accesses/authorize')
        .set(auth())
        .send({
          authorizationBasis: 'consent',
          consentAuthorizationMode: 'initial_window',
          redecConsentId: consent.redecConsentId,
          dataCategoryCode: 'redec.consolidated_debt_record',
          scopeId: 'redec-debt',
          objectiveCode: '02',
          reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'x', assertedAt: Date.now() - 1000 },
          sourceSystem: 'originacion',
          sourceReference: `acc-${randomUUID()}`,
          mandatary: { identifierRutInput: '12.345.678-0' },
        });
      expectValidationError(refused, [{ field: 'mandatary.identifierRutInput', reason: 'invalid_rut' }]);
    });
  });
});
