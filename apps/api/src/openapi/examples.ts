import type { OperationObject } from '@nestjs/swagger';

/** What a reader of the docs' walk-throughs sends and gets back, for one operation. */
export interface OperationExample {
  /** Path and query parameters, by name. */
  parameters?: Record<string, string | number>;
  /** The JSON body sent; absent for operations that take none. */
  request?: object;
  /** The JSON body of the success answer; absent where the answer is a file's bytes or empty (204). */
  response?: object;
}

const GRANTED_AT = 1763800000000;
const TENANT_ID = '6e5d4c3b-2a19-4f08-9e7d-6c5b4a392817';
const CUSTOMER_ID = '0b5f4c1e-8d1a-4c52-9a57-3f2e6d1b7c90';
const CONFIGURATION_ID = '5d0c7a8e-2f4b-4e61-8c3a-9b1d2e3f4a5b';
const INTERACTION_ID = 'a3e1f6b2-7c4d-4a9e-b5f0-1d2c3b4a5e6f';
const REDEC_CONSENT_ID = 'c7b2e9d4-1a3f-4e5b-8c6d-7f8091a2b3c4';
const CONSENT_ACTION_ID = 'e1f2a3b4-c5d6-4e7f-8091-a2b3c4d5e6f7';
const INTERNAL_CONSENT_CODE = '7K2M9Q4T8W1Z5C3V6B0N';
const ACCESS_ID = 'f4e3d2c1-b0a9-4887-9665-544332211000';
const CREDIT_EXTENSION_ID = 'b8a7c6d5-e4f3-4a2b-9c1d-0e9f8a7b6c5d';
const BINDING_ID = '9e8d7c6b-5a49-4382-a716-0f1e2d3c4b5a';
const ENDPOINT_ID = '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f';

const LEDGER_EVENT_ID = 'd1c2b3a4-9e8f-4a7b-8c6d-5e4f3a2b1c0d';
const LEDGER_VERIFIER_KEY = 'ledger.bank.example/consent-ledger+5a1d3c2b+AdmP4kJ5yR0Qq2n3Xv6t8WbZcLeHfUg7sKo9pNi1MjAy';
const LEDGER_CHECKPOINT =
  'ledger.bank.example/consent-ledger\n48213\npU7mZ9yq3F0rKJ2bX1cV8nHs4tLwQeRoA6iDgY5uBfM=\n\n' +
  '\u2014 ledger.bank.example/consent-ledger WlHTK3V0c2lnbmF0dXJlLWJ5dGVzLW9mLXRoZS1sb2ctb24tdGhlLWNoZWNrcG9pbnQtdGV4dC1hYmNkZWY=\n';
const PROOF_HASHES = [
  'xJ3n8Yb0lq9W2mZ4cR7tV1pK6sH5dF0gA8eU3iO2wQk=',
  'Qm4t9Zx2bN7cV1kL0pR8sH3jD6fG5aW2eY9uI4oT1yE=',
  'Zc2Fh7Qe1Wr9Ty4Ui0Op3As6Df8Gh5Jk2Lz7Xc1Vb0N=',
  'Ar5Bs8Ct1Du4Ev7Fw0Gx3Hy6Iz9Ja2Kb5Lc8Md1Ne4O=',
];

const GENERAL_CONSENT_ID = '4b3a2918-0706-4f5e-9d4c-3b2a19080706';
const GENERAL_CONFIGURATION_ID = '8f7e6d5c-4b3a-4291-8807-f6e5d4c3b2a1';
const DECISION_ID = '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d';
const RIGHTS_REQUEST_ID = '3c9e1f7a-5b2d-4e8c-a1f6-0d4b7e2c9a58';
/** Tuesday 1 December 2026, 10:00 in Santiago: due at the end of 31 December (decision 0067). */
const RIGHTS_REQUEST_RECEIVED_AT = 1796130000000;
const RIGHTS_REQUEST_RESOLVED_AT = 1797346800000;
const RIGHTS_RESPONSE = { channel: 'email', sentAt: RIGHTS_REQUEST_RESOLVED_AT, contentSha256: 'c4e8a2f6b0d4e8a2c6f0b4d8e2a6c0f4b8d2e6a0c4f8b2d6e0a4c8f2b6d0e4a8' };
const RIGHTS_REQUEST = {
  rightsRequestId: RIGHTS_REQUEST_ID,
  customerId: CUSTOMER_ID,
  kind: 'access',
  status: 'received',
  receivedAt: RIGHTS_REQUEST_RECEIVED_AT,
  dueAt: 1798772399999,
  extended: false,
  outcome: null,
  complaintDeadline: null,
  overdue: false,
  channel: 'web',
  sourceSystem: 'privacy-desk',
  sourceReference: 'solicitud-arco-118',
  description: 'Solicito saber qué datos personales míos tratan y con quién los comparten.',
  history: [{ step: 'received', occurredAt: RIGHTS_REQUEST_RECEIVED_AT, recordedAt: RIGHTS_REQUEST_RECEIVED_AT + 2_000, dueAt: 1798772399999 }],
};
/** The report sent with the answer, as of an hour before it was sent (decision 0071). */
const SUBJECT_REPORT_AS_OF = RIGHTS_REQUEST_RESOLVED_AT - 3_600_000;
const RESOLVED_RIGHTS_REQUEST = {
  ...RIGHTS_REQUEST,
  status: 'resolved',
  outcome: 'approved',
  history: [
    ...RIGHTS_REQUEST.history,
    {
      step: 'resolved',
      occurredAt: RIGHTS_REQUEST_RESOLVED_AT,
      recordedAt: RIGHTS_REQUEST_RESOLVED_AT + 1_000,
      outcome: 'approved',
      response: RIGHTS_RESPONSE,
      subjectReport: { asOf: SUBJECT_REPORT_AS_OF, jsonSha256: '5d1f9b3c7a2e6d0f4b8c2a6e0d4f8b2c6a0e4d8f2b6c0a4e8d2f6b0c4a8e2d6f', pdfSha256: RIGHTS_RESPONSE.contentSha256 },
    },
  ],
};
const REPORT_ID = '3c2b1a09-f8e7-4d6c-b5a4-938271605f4e';
const LEGAL_HOLD_ID = 'e09a8b7c-6d5e-4f40-a312-b4c5d6e7f809';
const SESSION_ID = '7a6b5c4d-3e2f-4109-8a7b-6c5d4e3f2a1b';
const MESSAGE_ID = 'evt_019aaaac26007b2e8c4f1a6d3e9b05c7';
const LEGAL_HOLD = { legalHoldId: LEGAL_HOLD_ID, customerId: CUSTOMER_ID, reason: 'litigio civil', reference: 'causa C-118-2026', placedAt: 1763900000000, releasedAt: null };
const WEBHOOK_ENDPOINT = {
  endpointId: ENDPOINT_ID,
  url: 'https://hooks.bank.example/redec',
  eventTypes: ['redec.notification.required'],
  status: 'active',
  createdAt: GRANTED_AT - 3_600_000,
  disabledAt: null,
  disabledReason: null,
  secretRotatedAt: null,
};
const CONSENT_DECISION = {
  decisionId: DECISION_ID,
  customerId: CUSTOMER_ID,
  occurredAt: GRANTED_AT,
  recordedAt: GRANTED_AT + 2_000,
  embedSessionId: null,
  items: [
    { configurationId: CONFIGURATION_ID, decision: 'accepted', redecConsentId: REDEC_CONSENT_ID, internalConsentCode: INTERNAL_CONSENT_CODE },
    { configurationId: GENERAL_CONFIGURATION_ID, decision: 'accepted', consentId: GENERAL_CONSENT_ID },
  ],
};
const TENANT_PRESENTATION = {
  displayName: 'Banco Ejemplo',
  logo: null,
  accentColor: '#0b3d91',
  terms: { finality: { '2': 'Evaluar si le otorgamos un crédito' }, objective: { '02': 'Evaluar una solicitud de crédito nueva', '03': 'Evaluar la renegociación de un crédito vigente' } },
};
const TENANT_SETTINGS = { institutionCode: '0000000012', weeklyReports: true, dailyRightsReport: true, scheduledErasure: false, presentation: TENANT_PRESENTATION, updatedAt: GRANTED_AT - 7_200_000 };
const ANNULMENT = { reason: 'registrado por error', sourceReference: 'ticket-3310' };

const REDEC_CONSENT = {
  redecConsentId: REDEC_CONSENT_ID,
  internalConsentCode: INTERNAL_CONSENT_CODE,
  customerId: CUSTOMER_ID,
  status: 'granted',
  channel: 'digital',
  captureTiming: 'deferred_external',
  grantedAt: GRANTED_AT,
  initialAccessValidUntil: 1765853999999,
  finalityCode: '2',
  mediumCode: '1',
  objectiveCodes: ['02', '03'],
  creditExtensions: [],
  artifactStatus: 'ready',
  retentionUntil: null,
  retentionBasis: null,
};
const ELECTRONIC_EVIDENCE = { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-9f2' } };
const REDEC_TERMS = {
  finalityCode: '2',
  objectiveCodes: ['02', '03'],
  scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
  targets: ['Banco Ejemplo'],
  obligationSourceSystem: 'core-loans',
  regulatoryProfile: 'baseline',
};
const CONFIGURATION_REQUEST = {
  templateKey: 'redec-credit-evaluation',
  title: 'Consulta al Registro de Deuda Consolidada',
  text: 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada para evaluar mi solicitud de crédito.',
  channel: 'digital',
  captureTiming: 'deferred_external',
  redec: REDEC_TERMS,
};
const CONFIGURATION = { configurationId: CONFIGURATION_ID, ...CONFIGURATION_REQUEST, embed: null, version: 1, publishedAt: GRANTED_AT - 86_400_000, gracePeriodDays: 0 };
const VERIFIED_RUT = {
  system: 'cl-sii',
  type: 'rut',
  value: '12.345.678-5',
  verification: { method: 'clave_unica', sourceReference: 'auth-9f2', verifiedAt: GRANTED_AT - 60_000 },
};
const REVOCATION = { revokedAt: GRANTED_AT + 3_600_000, channel: 'digital', effective: true, effectiveAt: GRANTED_AT + 3_600_000, correctedAt: null };
const DECISION = {
  redecAccessId: ACCESS_ID,
  status: 'authorized',
  redecConsentId: REDEC_CONSENT_ID,
  decidedAt: GRANTED_AT + 120_000,
  expiresAt: GRANTED_AT + 720_000,
  consentAuthorizationMode: 'initial_window',
  scopeId: 'redec-debt',
  dataCategoryCode: 'redec.consolidated_debt_record',
  objectiveCode: '02',
  sourceSystem: 'originacion',
  sourceReference: 'consulta-0001',
};
const CREDIT_EXTENSION = {
  creditExtensionId: CREDIT_EXTENSION_ID,
  objectiveCode: '02',
  creditOperationReference: 'credito-88123',
  creditGrantedAt: GRANTED_AT + 86_400_000,
  extendedAt: GRANTED_AT + 86_460_000,
  status: 'active',
  endReason: null,
  endedAt: null,
  supersededByObligationReference: null,
  effective: true,
  ineffectiveReason: null,
};

/** One delivery attempt, in both names of the delivery history's page. */
const DELIVERY_EXAMPLE = { messageId: MESSAGE_ID, eventType: 'redec.notification.required', attempt: 1, attemptedAt: GRANTED_AT + 62_000, outcome: 'delivered', status: 200, latencyMs: 84, error: null };

/**
 * Examples by `METHOD path`, taken from the walk-throughs in docs/*.md
 * (README's for customer resolution, redec-capture.md, redec-lifecycle.md,
 * webhooks.md, embedded-capture.md), so the reference page's "try it"
 * starts from a request the docs show working.
 */
export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExample>> = {
  'POST /v1/customers/resolve': {
    request: { userReference: 'cliente-42', identifiers: [{ system: 'cl-sii', type: 'rut', value: '12.345.678-5' }] },
    response: { customerId: CUSTOMER_ID, created: true, identifiers: [{ system: 'cl-sii', type: 'rut', verificationState: 'unverified' }] },
  },
  'POST /v1/configurations': { request: CONFIGURATION_REQUEST, response: CONFIGURATION },
  'GET /v1/configurations': { parameters: { templateKey: 'redec-credit-evaluation' }, response: { configurations: [CONFIGURATION] } },
  'GET /v1/configurations/{configurationId}': { parameters: { configurationId: CONFIGURATION_ID }, response: CONFIGURATION },
  'POST /v1/redec/consent-interactions': {
    request: { configurationId: CONFIGURATION_ID, userReference: 'cliente-42', identifiers: [VERIFIED_RUT] },
    response: { interactionId: INTERACTION_ID, customerId: CUSTOMER_ID, configurationId: CONFIGURATION_ID, customerCreated: true },
  },
  'POST /v1/redec/consent-interactions/{interactionId}/grant': {
    parameters: { interactionId: INTERACTION_ID },
    request: {
      occurredAt: GRANTED_AT,
      sourceSystem: 'web-onboarding',
      sourceReference: 'capture-7781',
      evidence: ELECTRONIC_EVIDENCE,
    },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      internalConsentCode: INTERNAL_CONSENT_CODE,
      artifactStatus: 'pending',
      consentActionId: CONSENT_ACTION_ID,
      grantedAt: GRANTED_AT,
      recordedAt: GRANTED_AT + 60_000,
      initialAccessValidUntil: 1765853999999,
    },
  },
  'GET /v1/redec/consents/{redecConsentId}': { parameters: { redecConsentId: REDEC_CONSENT_ID }, response: REDEC_CONSENT },
  'GET /v1/redec/consents': { parameters: { internalConsentCode: INTERNAL_CONSENT_CODE }, response: { consents: [REDEC_CONSENT] } },
  'GET /v1/redec/consent-exports': { parameters: { limit: 200 }, response: { items: [{ ...REDEC_CONSENT, updatedAt: GRANTED_AT + 65_000 }], nextCursor: null } },
  'GET /v1/customers/{customerId}/consents': {
    parameters: { customerId: CUSTOMER_ID },
    response: { consents: [{ kind: 'redec', templateKey: 'redec-credit-evaluation', configurationVersion: 1, ...REDEC_CONSENT }] },
  },
  'GET /v1/redec/consents/{redecConsentId}/evidence': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      internalConsentCode: INTERNAL_CONSENT_CODE,
      decision: 'granted',
      consentActionId: CONSENT_ACTION_ID,
      timestamps: { grantedAt: GRANTED_AT, recordedAt: GRANTED_AT + 60_000, initialAccessValidUntil: 1765853999999 },
      canonicalTiming: { clock: 'occurred_at', grantedAt: GRANTED_AT },
      template: { configurationId: CONFIGURATION_ID, templateKey: 'redec-credit-evaluation', version: 1, title: 'Consulta al Registro de Deuda Consolidada' },
      regulatoryProfile: 'baseline',
      channel: 'digital',
      captureTiming: 'deferred_external',
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: ['02', '03'],
      scopes: REDEC_TERMS.scopes,
      targets: ['Banco Ejemplo'],
      provenance: { sourceSystem: 'web-onboarding', sourceReference: 'capture-7781' },
      evidence: {
        kind: 'electronic',
        authentication: { method: 'clave_unica', reference: 'auth-9f2' },
        recordedAt: null,
        digitizedAt: null,
        artifactOrigin: 'generated_pdf',
        contentSha256: '3f0a8c2e9b1d4f6a7c5e8b0d2f4a6c8e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a',
      },
      representation: null,
      reportableObligation: null,
      notifications: [],
    },
  },
  'GET /v1/ledger/events/{eventId}/proof': { parameters: { eventId: LEDGER_EVENT_ID } },
  'GET /v1/ledger/tile/{path}': { parameters: { path: '0/188.p/85' } },
  'GET /v1/ledger/consistency': {
    parameters: { from: 48000, to: 48213 },
    response: { size1: 48000, size2: 48213, proof: [PROOF_HASHES[0], PROOF_HASHES[1], PROOF_HASHES[2]] },
  },
  'GET /v1/redec/consents/{redecConsentId}/audit-bundle': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      checkpoint: LEDGER_CHECKPOINT,
      verifierKey: LEDGER_VERIFIER_KEY,
      events: [
        {
          eventId: LEDGER_EVENT_ID,
          streamId: `redec-consent-${TENANT_ID}-${REDEC_CONSENT_ID}`,
          revision: 0,
          type: 'ConsentGranted',
          recordedAt: GRANTED_AT + 60_000,
          data: { redecConsentId: REDEC_CONSENT_ID, customerId: CUSTOMER_ID, grantedAt: GRANTED_AT },
          metadata: { tenantId: TENANT_ID, correlationId: 'req-4f1a', actor: 'key_7f3a', recordedAt: GRANTED_AT + 60_000, schemaVersion: 1 },
          hash: '9c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d',
          previousHash: null,
          leafIndex: 47123,
          leaf: 'Y29uc2VudC1sZWRnZXIvbGVhZi92MQozODVlMjcwN2E1YjBmNzM0NzJjZDYwMmI5OGY4ZjY5NjIwM2MyZjc4YTc4YzE2NGJjZGU1YzE2YjZiNTM3YjgwCjAKImQxYzJiM2E0LTllOGYtNGE3Yi04YzZkLTVlNGYzYTJiMWMwZCIKIkNvbnNlbnRHcmFudGVkIgoxNzYzODAwMDYwMDAwCjljMWQwZTlmOGE3YjZjNWQ0ZTNmMmExYjBjOWQ4ZTdmNmE1YjRjM2QyZTFmMGE5YjhjN2Q2ZTVmNGEzYjJjMWQK',
          inclusionProof: PROOF_HASHES,
        },
      ],
    },
  },
  'GET /v1/redec/consents/{redecConsentId}/history': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      asOf: GRANTED_AT + 120_000,
      events: [
        {
          position: 1841,
          stream: `redec-consent-${TENANT_ID}-${REDEC_CONSENT_ID}`,
          revision: 0,
          type: 'ConsentGranted',
          recordedAt: GRANTED_AT + 60_000,
          actor: 'key_7f3a',
          hash: '9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e',
          previousHash: null,
          data: { redecConsentId: REDEC_CONSENT_ID, internalConsentCode: INTERNAL_CONSENT_CODE, grantedAt: GRANTED_AT },
          state: REDEC_CONSENT,
        },
      ],
      representation: REDEC_CONSENT,
      dataSubject: { customerId: CUSTOMER_ID, erasedAt: null },
    },
  },
  'GET /v1/redec/consents/{redecConsentId}/artifact/download': { parameters: { redecConsentId: REDEC_CONSENT_ID } },
  'GET /v1/redec/reports/{reportId}/content': { parameters: { reportId: REPORT_ID } },
  'DELETE /v1/webhook-endpoints/{endpointId}': { parameters: { endpointId: ENDPOINT_ID } },
  'GET /v1/redec/consents/{redecConsentId}/artifact': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      status: 'ready',
      origin: 'generated_pdf',
      medium: 'consent_certificate',
      mediaType: 'application/pdf',
      contentSha256: '3f0a8c2e9b1d4f6a7c5e8b0d2f4a6c8e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a',
      size: 18432,
      externalReference: null,
    },
  },
  'POST /v1/redec/consents/{redecConsentId}/revoke': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    request: { channel: 'digital', occurredAt: REVOCATION.revokedAt, sourceType: 'direct', identityAssurance: 'client_authenticated' },
    response: {
      redecConsentId: REDEC_CONSENT_ID,
      consentActionId: 'd4c3b2a1-0f9e-4d8c-b7a6-958473625140',
      internalConsentCode: INTERNAL_CONSENT_CODE,
      revokedAt: REVOCATION.revokedAt,
      channel: 'digital',
      sourceType: 'direct',
      identityAssurance: 'client_authenticated',
      effective: true,
      recordedAt: REVOCATION.revokedAt + 5_000,
      consentStatus: 'revoked',
    },
  },
  'POST /v1/redec/consents/{redecConsentId}/notification-evidence': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    request: {
      notificationReason: 'grant',
      notificationChannel: 'email',
      recipientHash: 'sha256:9b74c9897bac770ffc029102a200c5de',
      status: 'sent',
      sentAt: GRANTED_AT + 300_000,
      sourceSystem: 'notifier',
      sourceReference: 'msg-4411',
      contentSha256: '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b',
    },
    response: {
      notificationEvidenceId: '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9',
      consentActionId: CONSENT_ACTION_ID,
      internalConsentCode: INTERNAL_CONSENT_CODE,
      notificationReason: 'grant',
      status: 'sent',
      sentAt: GRANTED_AT + 300_000,
      recordedAt: GRANTED_AT + 310_000,
    },
  },
  'POST /v1/redec/accesses/authorize': {
    request: {
      authorizationBasis: 'consent',
      consentAuthorizationMode: 'initial_window',
      redecConsentId: REDEC_CONSENT_ID,
      dataCategoryCode: 'redec.consolidated_debt_record',
      scopeId: 'redec-debt',
      objectiveCode: '02',
      reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'solicitud-5521', assertedAt: GRANTED_AT + 119_000 },
      sourceSystem: 'originacion',
      sourceReference: 'consulta-0001',
    },
    response: { decision: DECISION, replayed: false },
  },
  'POST /v1/redec/accesses/{redecAccessId}/confirm': {
    parameters: { redecAccessId: ACCESS_ID },
    request: { outcome: { kind: 'accessed', accessedAt: GRANTED_AT + 180_000 } },
    response: {
      redecAccessId: ACCESS_ID,
      status: 'accessed',
      outcome: { kind: 'accessed', accessedAt: GRANTED_AT + 180_000 },
      confirmedAt: GRANTED_AT + 181_000,
      decision: DECISION,
    },
  },
  'POST /v1/redec/consents/{redecConsentId}/credit-extensions': {
    parameters: { redecConsentId: REDEC_CONSENT_ID },
    request: {
      customerTenantId: CUSTOMER_ID,
      objectiveCode: '02',
      creditOperationReference: 'credito-88123',
      creditGrantedAt: CREDIT_EXTENSION.creditGrantedAt,
      sourceSystem: 'core-loans',
    },
    response: { ...CREDIT_EXTENSION, redecConsentId: REDEC_CONSENT_ID, consentStatus: 'extended', revocation: null },
  },
  'POST /v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/end': {
    parameters: { redecConsentId: REDEC_CONSENT_ID, creditExtensionId: CREDIT_EXTENSION_ID },
    request: { endReason: 'obligation_extinguished', occurredAt: GRANTED_AT + 31_536_000_000 },
    response: {
      ...CREDIT_EXTENSION,
      status: 'ended',
      endReason: 'obligation_extinguished',
      endedAt: GRANTED_AT + 31_536_000_000,
      redecConsentId: REDEC_CONSENT_ID,
      consentStatus: 'revoked',
      revocation: REVOCATION,
    },
  },
  'POST /v1/redec/reportable-obligations/bindings': {
    request: { sourceSystem: 'core-loans', obligationReference: 'credito-88123', kind: 'consent', redecConsentId: REDEC_CONSENT_ID, obligationGrantedAt: CREDIT_EXTENSION.creditGrantedAt },
    response: {
      bindingId: BINDING_ID,
      sourceSystem: 'core-loans',
      obligationReference: 'credito-88123',
      kind: 'consent',
      redecConsentId: REDEC_CONSENT_ID,
      internalConsentCode: INTERNAL_CONSENT_CODE,
      obligationGrantedAt: CREDIT_EXTENSION.creditGrantedAt,
      boundAt: CREDIT_EXTENSION.creditGrantedAt + 60_000,
    },
  },
  'GET /v1/redec/reportable-obligations/consent-code': {
    parameters: { sourceSystem: 'core-loans', obligationReference: 'credito-88123' },
    response: { sourceSystem: 'core-loans', obligationReference: 'credito-88123', result: 'consent_code', consentCode: INTERNAL_CONSENT_CODE },
  },
  'GET /v1/customers/{customerId}/legal-holds': { parameters: { customerId: CUSTOMER_ID }, response: { items: [LEGAL_HOLD] } },
  'POST /v1/customers/{customerId}/legal-holds': {
    parameters: { customerId: CUSTOMER_ID },
    request: { reason: 'litigio civil', reference: 'causa C-118-2026' },
    response: LEGAL_HOLD,
  },
  'POST /v1/customers/{customerId}/legal-holds/{legalHoldId}/release': {
    parameters: { customerId: CUSTOMER_ID, legalHoldId: LEGAL_HOLD_ID },
    response: { ...LEGAL_HOLD, releasedAt: 1763990000000 },
  },
  'POST /v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/annul': {
    parameters: { redecConsentId: REDEC_CONSENT_ID, creditExtensionId: CREDIT_EXTENSION_ID },
    request: ANNULMENT,
    response: { redecConsentId: REDEC_CONSENT_ID, creditExtensionId: CREDIT_EXTENSION_ID, annulled: 'credit_extension', ...ANNULMENT, annulledAt: GRANTED_AT + 90_000_000, consentStatus: 'granted', revocation: null },
  },
  'POST /v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/end/annul': {
    parameters: { redecConsentId: REDEC_CONSENT_ID, creditExtensionId: CREDIT_EXTENSION_ID },
    request: ANNULMENT,
    response: { redecConsentId: REDEC_CONSENT_ID, creditExtensionId: CREDIT_EXTENSION_ID, annulled: 'credit_extension_end', ...ANNULMENT, annulledAt: GRANTED_AT + 31_540_000_000, consentStatus: 'extended', revocation: null },
  },
  'POST /v1/redec/reportable-obligations/bindings/{bindingId}/annul': {
    parameters: { bindingId: BINDING_ID },
    request: ANNULMENT,
    response: { bindingId: BINDING_ID, sourceSystem: 'core-loans', obligationReference: 'credito-88123', ...ANNULMENT, annulledAt: GRANTED_AT + 90_000_000 },
  },
  'GET /v1/redec/notifications/overdue': {
    parameters: { afterBankingDays: 2, limit: 100 },
    response: {
      items: [{ redecConsentId: REDEC_CONSENT_ID, internalConsentCode: INTERNAL_CONSENT_CODE, reason: 'grant', actionAt: GRANTED_AT, consentActionId: CONSENT_ACTION_ID, dueAt: 1764284399999 }],
      nextCursor: null,
    },
  },
  'GET /v1/redec/accesses/contradicted': {
    parameters: { limit: 50 },
    response: {
      items: [
        {
          redecAccessId: ACCESS_ID,
          redecConsentId: REDEC_CONSENT_ID,
          decidedAt: DECISION.decidedAt,
          consentAuthorizationMode: 'initial_window',
          accessPurpose: null,
          reportingObligation: { sourceSystem: 'core-loans', sourceReference: 'solicitud-5521' },
          objectiveCode: '02',
          denyReasonCode: 'redec_consent_revoked',
          confirmation: { kind: 'accessed', accessedAt: GRANTED_AT + 180_000 },
          contradictedBy: { eventId: '5b2f9c1e-8d4a-4f6b-9a2e-3c1d7e8f9a0b', type: 'RevocationRecorded', position: 1_204, recordedAt: GRANTED_AT + 259_200_000 },
        },
      ],
      nextCursor: null,
    },
  },
  'GET /v1/redec/reportable-obligations/reconciliation': {
    parameters: { limit: 100 },
    response: { items: [{ sourceSystem: 'core-loans', obligationReference: 'credito-90001', result: 'unresolved', redecConsentIds: [] }], nextCursor: null },
  },
  'POST /v1/consent-interactions': {
    request: { configurationId: GENERAL_CONFIGURATION_ID, customerId: CUSTOMER_ID },
    response: { interactionId: INTERACTION_ID, customerId: CUSTOMER_ID, configurationId: GENERAL_CONFIGURATION_ID, customerCreated: false },
  },
  'POST /v1/consent-interactions/{interactionId}/grant': {
    parameters: { interactionId: INTERACTION_ID },
    request: {
      occurredAt: GRANTED_AT,
      sourceSystem: 'web-onboarding',
      sourceReference: 'terms-2210',
      evidence: ELECTRONIC_EVIDENCE,
    },
    response: { consentId: GENERAL_CONSENT_ID, consentActionId: CONSENT_ACTION_ID, templateKey: 'digital-account-terms', configurationVersion: 1, grantedAt: GRANTED_AT, recordedAt: GRANTED_AT + 1_000 },
  },
  'GET /v1/consents/{consentId}': {
    parameters: { consentId: GENERAL_CONSENT_ID },
    response: {
      kind: 'general',
      consentId: GENERAL_CONSENT_ID,
      customerId: CUSTOMER_ID,
      templateKey: 'digital-account-terms',
      configurationVersion: 1,
      configurationId: GENERAL_CONFIGURATION_ID,
      status: 'granted',
      channel: 'digital',
      captureTiming: 'deferred_external',
      grantedAt: GRANTED_AT,
      recordedAt: GRANTED_AT + 1_000,
      consentActionId: CONSENT_ACTION_ID,
      revocation: null,
    },
  },
  'POST /v1/consents/{consentId}/revoke': {
    parameters: { consentId: GENERAL_CONSENT_ID },
    request: { occurredAt: GRANTED_AT + 3_600_000, channel: 'digital', sourceSystem: 'web-onboarding', sourceReference: 'terms-revoke-77' },
    response: { consentActionId: 'd4c3b2a1-0f9e-4d8c-b7a6-958473625140', revokedAt: GRANTED_AT + 3_600_000, channel: 'digital', recordedAt: GRANTED_AT + 3_601_000 },
  },
  'GET /v1/customers/{customerId}/consent-compliance': {
    parameters: { customerId: CUSTOMER_ID, templateKey: 'digital-account-terms' },
    response: { templateKey: 'digital-account-terms', status: 'complies', acceptedVersion: 1, evaluatedVersion: 1, pendingRequirements: [], pendingVersionChanges: [] },
  },
  'GET /v1/embed/sessions/{sessionId}': {
    parameters: { sessionId: SESSION_ID },
    response: {
      sessionId: SESSION_ID,
      customerId: CUSTOMER_ID,
      configurationId: CONFIGURATION_ID,
      status: 'accepted',
      dynamicReference: 'solicitud-5521',
      openedAt: GRANTED_AT - 120_000,
      expiresAt: GRANTED_AT + 780_000,
      decidedAt: GRANTED_AT,
      consent: { kind: 'redec', consentId: REDEC_CONSENT_ID, internalConsentCode: INTERNAL_CONSENT_CODE },
      decisionId: null,
      items: [{ configurationId: CONFIGURATION_ID, decision: 'accepted', consent: { kind: 'redec', consentId: REDEC_CONSENT_ID, internalConsentCode: INTERNAL_CONSENT_CODE } }],
    },
  },
  'POST /v1/consent-decisions': {
    request: {
      customerId: CUSTOMER_ID,
      occurredAt: GRANTED_AT,
      sourceSystem: 'web-onboarding',
      sourceReference: 'decision-5521',
      items: [
        { configurationId: CONFIGURATION_ID, decision: 'accepted', redec: { evidence: ELECTRONIC_EVIDENCE } },
        { configurationId: GENERAL_CONFIGURATION_ID, decision: 'accepted' },
      ],
    },
    response: CONSENT_DECISION,
  },
  'GET /v1/consent-decisions/{decisionId}': { parameters: { decisionId: DECISION_ID }, response: CONSENT_DECISION },
  'POST /v1/rights-requests': {
    request: {
      customerId: CUSTOMER_ID,
      kind: 'access',
      receivedAt: RIGHTS_REQUEST_RECEIVED_AT,
      channel: 'web',
      sourceSystem: 'privacy-desk',
      sourceReference: 'solicitud-arco-118',
      description: 'Solicito saber qué datos personales míos tratan y con quién los comparten.',
    },
    response: RIGHTS_REQUEST,
  },
  'POST /v1/rights-requests/{rightsRequestId}/transitions': {
    parameters: { rightsRequestId: RIGHTS_REQUEST_ID },
    request: { to: 'resolved', occurredAt: RIGHTS_REQUEST_RESOLVED_AT, outcome: 'approved', response: RIGHTS_RESPONSE, subjectReportAsOf: SUBJECT_REPORT_AS_OF },
    response: RESOLVED_RIGHTS_REQUEST,
  },
  'POST /v1/rights-requests/{rightsRequestId}/rectifications': {
    parameters: { rightsRequestId: RIGHTS_REQUEST_ID },
    request: { occurredAt: RIGHTS_REQUEST_RESOLVED_AT - 86_400_000, record: { kind: 'bank_record', sourceSystem: 'crm', sourceReference: 'direccion-cliente-42' }, description: 'Corregimos su dirección postal.' },
    response: {
      ...RIGHTS_REQUEST,
      kind: 'rectification',
      history: [
        ...RIGHTS_REQUEST.history,
        {
          step: 'rectified',
          occurredAt: RIGHTS_REQUEST_RESOLVED_AT - 86_400_000,
          recordedAt: RIGHTS_REQUEST_RESOLVED_AT - 86_399_000,
          rectificationId: '8f7e6d5c-4b3a-4291-8f7e-6d5c4b3a2918',
          record: { kind: 'bank_record', sourceSystem: 'crm', sourceReference: 'direccion-cliente-42' },
          description: 'Corregimos su dirección postal.',
        },
      ],
    },
  },
  'GET /v1/rights-requests/{rightsRequestId}/subject-report': {
    parameters: { rightsRequestId: RIGHTS_REQUEST_ID },
    response: {
      schema: 'subject-report/1',
      rightsRequestId: RIGHTS_REQUEST_ID,
      kind: 'access',
      asOf: SUBJECT_REPORT_AS_OF,
      dataSubject: {
        customerId: CUSTOMER_ID,
        userReference: 'cliente-42',
        identifiers: [{ system: 'cl-sii', type: 'rut', value: '12345678-5', verification: { method: 'clave_unica', sourceReference: 'auth-9f2', verifiedAt: GRANTED_AT - 60_000 } }],
        registeredAt: GRANTED_AT - 60_000,
        erasedAt: null,
      },
      redecConsents: [
        {
          templateKey: 'redec-credit-evaluation',
          configurationVersion: 1,
          consentTitle: 'Consulta al Registro de Deuda Consolidada',
          representation: { ...REDEC_CONSENT, status: 'expired', revocation: null, retentionUntil: 1923620399999, retentionBasis: 'loss_of_validity' },
          accesses: [
            {
              redecAccessId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
              decidedAt: GRANTED_AT + 60_000,
              status: 'authorized',
              denyReasonCode: null,
              dataCategoryCode: 'redec.consolidated_debt_record',
              objectiveCode: '02',
              accessPurpose: 'evaluate_new_credit',
              throughMandatary: false,
              confirmation: { outcome: { kind: 'accessed', accessedAt: GRANTED_AT + 90_000 }, confirmedAt: GRANTED_AT + 120_000 },
            },
          ],
          notices: [
            { notificationEvidenceId: '1b2c3d4e-5f60-4718-92a3-b4c5d6e7f809', consentActionId: CONSENT_ACTION_ID, notificationReason: 'grant', notificationChannel: 'email', status: 'delivered', sentAt: GRANTED_AT + 30_000, recordedAt: GRANTED_AT + 31_000 },
          ],
        },
      ],
      generalConsents: [],
      legalHolds: [],
      rightsRequests: [
        (({ rightsRequestId, kind, status, receivedAt, dueAt, extended, outcome, complaintDeadline, description }) => ({
          rightsRequestId,
          kind,
          status,
          receivedAt,
          dueAt,
          extended,
          outcome,
          resolvedAt: null,
          complaintDeadline,
          description,
          rectifications: [],
          history: [{ step: 'received', occurredAt: receivedAt }],
        }))(RIGHTS_REQUEST),
      ],
    },
  },
  'GET /v1/rights-requests': {
    response: {
      items: [
        (({ history: _history, description: _description, ...summary }) => ({ ...summary, overdue: true }))(RIGHTS_REQUEST),
      ],
      nextCursor: null,
    },
  },
  'GET /v1/rights-requests/{rightsRequestId}': { parameters: { rightsRequestId: RIGHTS_REQUEST_ID }, response: RESOLVED_RIGHTS_REQUEST },
  'GET /v1/tenant-settings': { response: TENANT_SETTINGS },
  'PUT /v1/tenant-settings': { request: { institutionCode: '0000000012', weeklyReports: true, dailyRightsReport: true }, response: TENANT_SETTINGS },
  'PUT /v1/tenant-settings/presentation': { request: TENANT_PRESENTATION, response: TENANT_SETTINGS },
  'POST /v1/redec/reports': { request: { kind: 'rdc30', periodStart: 1763265600000, periodEnd: 1763870400000 }, response: { reportId: REPORT_ID, status: 'pending' } },
  'GET /v1/redec/reports/{reportId}': {
    parameters: { reportId: REPORT_ID },
    response: {
      reportId: REPORT_ID,
      kind: 'rdc30',
      status: 'ready',
      periodStart: 1763265600000,
      periodEnd: 1763870400000,
      records: 42,
      metadata: null,
      contentSha256: 'a3f5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5',
      layoutVersion: 'rdc30-2025.1',
      institutionCode: '0000000012',
      requestedAt: 1763870460000,
      renderedAt: 1763870461000,
      failureReason: null,
      contentErasedAt: null,
    },
  },
  'GET /v1/webhook-endpoints': { response: { endpoints: [WEBHOOK_ENDPOINT] } },
  'GET /v1/webhook-endpoints/{endpointId}': { parameters: { endpointId: ENDPOINT_ID }, response: WEBHOOK_ENDPOINT },
  'POST /v1/webhook-endpoints/{endpointId}/rotate-secret': {
    parameters: { endpointId: ENDPOINT_ID },
    request: { overlapSeconds: 86400 },
    response: { endpointId: ENDPOINT_ID, secret: 'whsec_YSByb3RhdGVkIHdlYmhvb2sgc2VjcmV0LCAzMiBieS4=', previousSecretsValidUntil: GRANTED_AT + 86_400_000 },
  },
  'GET /v1/webhook-endpoints/{endpointId}/deliveries': {
    parameters: { endpointId: ENDPOINT_ID, limit: 50 },
    response: {
      items: [DELIVERY_EXAMPLE],
      nextCursor: null,
      deliveries: [DELIVERY_EXAMPLE],
      next: null,
    },
  },
  'POST /v1/webhook-endpoints/{endpointId}/redeliver': {
    parameters: { endpointId: ENDPOINT_ID },
    request: { since: GRANTED_AT },
    response: { endpointId: ENDPOINT_ID, redelivered: 3 },
  },
  'POST /v1/webhook-endpoints/{endpointId}/messages/{messageId}/redeliver': { parameters: { endpointId: ENDPOINT_ID, messageId: MESSAGE_ID }, response: { messageId: MESSAGE_ID } },
  'POST /v1/webhook-endpoints': {
    request: { url: 'https://hooks.bank.example/redec', eventTypes: ['redec.notification.required'] },
    response: {
      endpointId: ENDPOINT_ID,
      url: 'https://hooks.bank.example/redec',
      eventTypes: ['redec.notification.required'],
      secret: 'whsec_YW4gZXhhbXBsZSB3ZWJob29rIHNlY3JldCwgMzIgYiE=',
      status: 'active',
      createdAt: GRANTED_AT - 3_600_000,
    },
  },
  'POST /v1/embed/sessions': {
    request: { configurationId: CONFIGURATION_ID, userReference: 'cliente-42', identifiers: [VERIFIED_RUT], returnUrl: 'https://www.bank.example/onboarding/done', dynamicReference: 'solicitud-5521' },
    response: {
      sessionId: SESSION_ID,
      customerId: CUSTOMER_ID,
      url: 'https://consent.bank.example/embed/pages/Wm8kR2vN5qT1xY7cB4hJ9dL3fP6sA0gE8uI2oK5mQ1wZ3rT7yV9nX4bC6jH8lD2fG5sA1kP7qW3eR9tY?token=pgt_2mQ8vX4kR7nB1cY5',
      expiresAt: GRANTED_AT + 900_000,
      customerCreated: false,
      resultSecret: 'embsec_3q2+7wAAAAAx9G3kN1pZ8rT5vW2yB4dF6hJ8lM0=',
    },
  },
  'DELETE /v1/privacy-center/sessions/{sessionId}': { parameters: { sessionId: SESSION_ID } },
  'POST /v1/privacy-center/sessions': {
    request: { customerId: CUSTOMER_ID, returnUrl: 'https://www.bank.example/privacidad' },
    response: {
      sessionId: SESSION_ID,
      customerId: CUSTOMER_ID,
      url: 'https://consent.bank.example/privacy-center/pages/Qx3vL8mT2nR6yB1cW9kF4hJ7dP0sA5gE2uI8oK3mZ6wX1rT4yV7nB9cH2jL5fG8sD0kP3qW6eR1tYu?token=Hn4kR8vX2mQ7nB1cY5pL9wT3',
      expiresAt: GRANTED_AT + 900_000,
      customerCreated: false,
    },
  },
};

/** Puts the operation's example on its parameters, its JSON body and its first success answer. */
export function addExample(key: string, operation: OperationObject): void {
  const example = OPERATION_EXAMPLES[key];
  if (!example) return;
  for (const parameter of operation.parameters ?? []) {
    if ('name' in parameter && example.parameters?.[parameter.name] !== undefined) parameter.example = example.parameters[parameter.name];
  }
  const body = operation.requestBody && 'content' in operation.requestBody ? operation.requestBody.content['application/json'] : undefined;
  if (body && example.request) body.example = example.request;
  const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
  const content = success && 'content' in success ? Object.values(success.content ?? {})[0] : undefined;
  if (content && example.response) content.example = example.response;
}
