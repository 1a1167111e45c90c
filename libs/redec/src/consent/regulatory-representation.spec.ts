import { ConsentGranted } from './consent.events';
import { ConsentState, evolveConsent } from './consent.state';
import { addYears, regulatoryRepresentation } from './regulatory-representation';

const grantedAt = Date.UTC(2026, 10, 20, 15, 0, 0);
const validUntil = Date.UTC(2026, 11, 12, 2, 59, 59, 999);

const grant: ConsentGranted = {
  type: 'ConsentGranted',
  data: {
    redecConsentId: 'con-1',
    consentActionId: 'act-1',
    internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
    interactionId: 'int-1',
    customerId: 'cus-1',
    configurationId: 'cfg-1',
    templateKey: 'redec-credit-evaluation',
    configurationVersion: 1,
    consentTitle: 'Consulta REDEC',
    consentText: 'Autorizo la consulta.',
    regulatoryProfile: 'baseline',
    channel: 'digital',
    captureTiming: 'deferred_external',
    finalityCode: '2',
    mediumCode: '1',
    objectiveCodes: ['02'],
    scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
    targets: ['Banco Ejemplo'],
    obligationSourceSystem: 'core-loans',
    grantedAt,
    recordedAt: grantedAt + 1000,
    initialAccessValidUntil: validUntil,
    sourceSystem: 'web',
    sourceReference: 'cap-1',
    representation: null,
    reportableObligation: null,
    evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } },
    artifact: { origin: 'generated_pdf', status: 'pending', mediaType: 'application/pdf', contentSha256: null },
    grantRequestSha256: 'h',
  },
};

const state = evolveConsent(null, grant, 'ten-1') as ConsentState;

describe('regulatory representation', () => {
  it('shows every field of spec 2.5 from the grant, and not the request hash', () => {
    expect(regulatoryRepresentation(state, grantedAt + 1)).toEqual({
      redecConsentId: 'con-1',
      internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
      customerId: 'cus-1',
      status: 'granted',
      channel: 'digital',
      captureTiming: 'deferred_external',
      grantedAt,
      initialAccessValidUntil: validUntil,
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: ['02'],
      revocation: null,
      creditExtensions: [],
      artifactStatus: 'pending',
      retentionUntil: null,
      retentionBasis: null,
    });
    expect(JSON.stringify(state)).not.toContain('grantRequestSha256');
  });

  it('is granted through the last millisecond of the window and expired after it, without any job', () => {
    expect(regulatoryRepresentation(state, validUntil).status).toBe('granted');
    const expired = regulatoryRepresentation(state, validUntil + 1);
    expect(expired).toMatchObject({ status: 'expired', retentionBasis: 'loss_of_validity', retentionUntil: Date.UTC(2031, 11, 12, 2, 59, 59, 999) });
  });

  it('adds calendar years, keeping the end of February', () => {
    expect(addYears(Date.UTC(2028, 1, 29, 12), 5)).toBe(Date.UTC(2033, 1, 28, 12));
    expect(addYears(Date.UTC(2026, 0, 31), 5)).toBe(Date.UTC(2031, 0, 31));
  });
});
