import { canonicalJson } from '@ledger/event-store';
import type { ConsentDocument } from './consents.projection';

/**
 * A consent document as a bank's would look: its field names, the values
 * they take from a small set (channels, statuses, reasons, modes), and a
 * consent text in the words such texts use. Deflate starts each document
 * with this as its dictionary, so what it holds is written as a reference
 * into it instead of again: about 3.5 KB of JSON per consent stored in about
 * 0.6 KB (decision 0084).
 *
 * The ids, hashes and instants are made up. The text is this project's own
 * wording, not a template's, so the compression measured does not depend on
 * a ledger reusing these very words. Changing anything here changes the
 * dictionary, which a stored document needs to be read again: bump the
 * projection's version in the same change (a test holds the two together).
 */
const EXAMPLE: ConsentDocument = {
  tenantId: '5b0e1a8c-2f4d-4c61-9e07-3a9b6d2c8f15',
  updatedAt: 1767225600000,
  grant: {
    redecConsentId: '7f3c2a91-4b6e-8d20-a5c4-19e8b7d6f302',
    consentActionId: '019b7a2c-5e10-7c3a-9f48-2d6e1b0a4c95',
    internalConsentCode: 'K7Q2M9X4P1R8T5W3Z6VB',
    interactionId: 'c2d9e4f1-6a3b-4e87-b1c5-0f9a8d7e6b24',
    customerId: '3e8a1f5c-9b27-4d06-8c3e-7a1f0b9d5c62',
    configurationId: '9a4c6e2b-1d8f-4a37-b5e0-c3f7d1a9e846',
    templateKey: 'redec-credit-evaluation',
    configurationVersion: 2,
    consentTitle: 'Autorización de consulta al Registro de Deuda Consolidada',
    consentText:
      'Por medio del presente autorizo a Banco Ejemplo S.A. para consultar y tratar la información de mis obligaciones contenida en el Registro de Deuda Consolidada (REDEC) que administra la Comisión para el Mercado Financiero, de acuerdo con la Ley N° 21.680, con el fin de evaluar mi solicitud de crédito y, si éste se otorga, de gestionar la obligación correspondiente durante su vigencia. Entiendo que esta autorización es voluntaria, que puedo revocarla en cualquier momento a través de los mismos canales en que la otorgué y que su revocación no afectará la validez de las consultas efectuadas previamente.',
    regulatoryProfile: 'baseline',
    channel: 'digital',
    captureTiming: 'embedded',
    finalityCode: '2',
    mediumCode: '1',
    objectiveCodes: ['01', '02', '03'],
    scopes: [{ dataCategoryCode: 'redec.consolidated_debt_record', scopeId: 'redec-debt' }],
    targets: ['Banco Ejemplo S.A.'],
    obligationSourceSystem: 'core-loans',
    grantedAt: 1767225540000,
    recordedAt: 1767225541000,
    initialAccessValidUntil: 1769050799999,
    sourceSystem: 'web-onboarding',
    sourceReference: 'solicitud-2026-000123',
    representation: null,
    reportableObligation: { status: 'current', sourceSystem: 'core-loans', sourceReference: 'LN-000987654' },
    evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-7c1e9a' } },
    artifact: { origin: 'generated_pdf', status: 'pending', mediaType: 'application/pdf', contentSha256: null },
  },
  artifact: {
    origin: 'generated_pdf',
    status: 'ready',
    mediaType: 'application/pdf',
    contentSha256: '4f2a9c7e1b8d3f6a0c5e9b2d7f1a4c8e3b6d0f9a2c5e8b1d4f7a0c3e6b9d2f5a',
    size: 41235,
  },
  revocation: {
    consentActionId: '019b9d4e-7a21-7f0c-8b63-5e2a9c1d7f40',
    revokedAt: 1770000000000,
    channel: 'phone',
    corrections: [{ creditExtensionId: 'd4a7c1e9-3b5f-4e28-9a06-1c8e7b2f5d93', correctedAt: 1770100000000 }],
  },
  creditExtensions: [
    {
      creditExtensionId: 'd4a7c1e9-3b5f-4e28-9a06-1c8e7b2f5d93',
      objectiveCode: '03',
      creditOperationReference: 'LN-000987654',
      creditGrantedAt: 1767830400000,
      extendedAt: 1767830460000,
      status: 'ended',
      endReason: 'obligation_extinguished',
      endedAt: 1798761600000,
      supersededByObligationReference: null,
    },
  ],
  annulledCreditExtensions: [],
  notifications: [
    {
      consentActionId: '019b7a2c-5e10-7c3a-9f48-2d6e1b0a4c95',
      notificationEvidenceId: 'a8e2c5f1-7d3b-4096-be14-6f9c2a7d0e38',
      notificationReason: 'grant',
      notificationChannel: 'email',
      status: 'sent',
      sentAt: 1767225600000,
      recordedAt: 1767225660000,
      recipientHash: '9d3f7a1c5e8b2d6f0a4c9e3b7d1f5a8c2e6b0d4f9a3c7e1b5d8f2a6c0e4b9d3f',
      contentSha256: '2b7e5a9c3f1d8b6e0a4c7f2d9b5e1a8c3f6d0b9e4a7c2f5d8b1e6a3c0f9d4b7e',
      contentReference: null,
      sourceSystem: 'notifier',
      sourceReference: 'msg-5a1c9e',
    },
    {
      consentActionId: '019b9d4e-7a21-7f0c-8b63-5e2a9c1d7f40',
      notificationEvidenceId: 'f1c6a9d3-2e8b-4f75-a0c7-9b4e1d6f3a82',
      notificationReason: 'revoke',
      notificationChannel: 'sms',
      status: 'delivered',
      sentAt: 1770000060000,
      recordedAt: 1770000120000,
      recipientHash: 'c8a2e6b0d4f9a3c7e1b5d8f2a6c0e4b9d3f7a1c5e8b2d6f0a4c9e3b7d1f5a8c2',
      contentSha256: '7f1a4c8e3b6d0f9a2c5e8b1d4f7a0c3e6b9d2f5a4f2a9c7e1b8d3f6a0c5e9b2d',
      contentReference: null,
      sourceSystem: 'notifier',
      sourceReference: 'msg-8d2f4b',
    },
  ],
  obligationBindings: [
    { bindingId: '019ba3f2-1c7e-7d59-a4b8-3e6c0f9a2d71', sourceSystem: 'core-loans', obligationReference: 'LN-000987654', obligationGrantedAt: 1767830400000 },
  ],
  authorizationSpans: [
    { consentAuthorizationMode: 'initial_window', objectiveCode: null, sourceSystem: null, obligationReference: null, first: 1767225700000, last: 1767312000000 },
    {
      consentAuthorizationMode: 'credit_lifecycle_extension',
      objectiveCode: '03',
      sourceSystem: 'core-loans',
      obligationReference: 'LN-000987654',
      first: 1767916800000,
      last: 1796947200000,
    },
  ],
};

/** In the stored documents' own key order (canonical JSON), so that runs of keys match whole. */
export const CONSENT_DOCUMENT_DICTIONARY = canonicalJson(EXAMPLE);
