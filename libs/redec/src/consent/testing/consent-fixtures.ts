import { ConsentEvent, ConsentGranted, CreditExtensionEnded } from '../consent.events';
import { specify } from '@ledger/platform/testing';
import { ConsentState, evolveConsent } from '../consent.state';

/** A granted electronic consent for specs of the rules that read consents. */
export const grantedAt = Date.UTC(2026, 10, 20, 15, 0, 0);
export const validUntil = Date.UTC(2026, 11, 12, 2, 59, 59, 999);

export const grant: ConsentGranted = {
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

export const state = evolveConsent(null, grant, 'ten-1') as ConsentState;

/** The consent after `events`, on top of the grant. */
export function given(...events: ConsentEvent[]): ConsentState {
  return events.reduce<ConsentState | null>((s, e) => evolveConsent(s, e, 'ten-1'), state) as ConsentState;
}

/** Given/when/then over the fixture consent: `givenConsent(...facts)` starts from its grant. */
export const givenConsent = (...facts: ConsentEvent[]) => specifyConsent(grant, ...facts);
const specifyConsent = specify<ConsentState, ConsentEvent>({ evolve: (state, event) => evolveConsent(state, event, 'ten-1') });

/** Lifecycle facts of the fixture consent, for specs that need them as given. */
export const facts = {
  revocation: (revokedAt: number, effective: boolean): ConsentEvent => ({
    type: 'RevocationRecorded',
    data: {
      redecConsentId: 'con-1',
      consentActionId: 'rev-1',
      internalConsentCode: grant.data.internalConsentCode,
      revokedAt,
      channel: 'digital',
      sourceType: 'direct',
      identityAssurance: 'client_authenticated',
      effective,
      recordedAt: revokedAt,
    },
  }),
  extension: (creditExtensionId: string, creditOperationReference: string, creditGrantedAt: number, objectiveCode = '02'): ConsentEvent => ({
    type: 'CreditExtensionRegistered',
    data: {
      redecConsentId: 'con-1',
      creditExtensionId,
      internalConsentCode: grant.data.internalConsentCode,
      obligationSourceSystem: 'core-loans',
      objectiveCode,
      creditOperationReference,
      creditGrantedAt,
      extendedAt: creditGrantedAt + 1000,
      sourceSystem: 'core-loans',
      sourceReference: `ref-${creditExtensionId}`,
    },
  }),
  /** The end of the extension `creditExtensionId`; name its creditOperationReference for specs of what follows the obligation. */
  extensionEnded: (creditExtensionId: string, endedAt: number, overrides: Partial<CreditExtensionEnded['data']> = {}): ConsentEvent => ({
    type: 'CreditExtensionEnded',
    data: {
      redecConsentId: 'con-1',
      creditExtensionId,
      obligationSourceSystem: 'core-loans',
      creditOperationReference: `op-of-${creditExtensionId}`,
      endReason: 'obligation_extinguished',
      supersededByObligationReference: null,
      endedAt,
      ...overrides,
    },
  }),
};
