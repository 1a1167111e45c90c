import { randomUUID } from 'node:crypto';
import { LedgerClient, Problem, createLedgerClient } from '@consent-ledger/client';

/** The consent captured by the walk-through, as the service read it back. */
export interface CapturedConsent {
  redecConsentId: string;
  internalConsentCode: string;
  status: string;
}

export async function captureConsent(baseUrl: string, apiKey: string): Promise<CapturedConsent> {
  const ledger: LedgerClient = createLedgerClient({ baseUrl, apiKey });

  const published = await ledger.POST('/v1/configurations', {
    body: {
      templateKey: 'redec-credit-evaluation',
      title: 'Consulta al Registro de Deuda Consolidada',
      text: 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada para evaluar mi solicitud de crédito.',
      channel: 'digital',
      captureTiming: 'deferred_external',
      redec: {
        finalityCode: '2',
        objectiveCodes: ['02', '03'],
        scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
        targets: ['Banco Ejemplo'],
        obligationSourceSystem: 'core-loans',
        regulatoryProfile: 'baseline',
      },
    },
  });
  const configuration = answerOf(published);

  const now = Date.now();
  const opened = await ledger.POST('/v1/redec/consent-interactions', {
    body: {
      configurationId: configuration.configurationId,
      userReference: 'cliente-42',
      identifiers: [
        {
          system: 'cl-sii',
          type: 'rut',
          value: '12.345.678-5',
          verification: { method: 'clave_unica', sourceReference: 'auth-9f2', verifiedAt: now - 120_000 },
        },
      ],
    },
  });
  const interaction = answerOf(opened);

  const granted = await ledger.POST('/v1/redec/consent-interactions/{interactionId}/grant', {
    params: { path: { interactionId: interaction.interactionId } },
    body: {
      occurredAt: now - 60_000,
      sourceSystem: 'web-onboarding',
      sourceReference: 'capture-7781',
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-9f2' } },
    },
  });
  const grant = answerOf(granted);

  const revocation = {
    occurredAt: Date.now() - 5_000,
    sourceType: 'direct',
    channel: 'digital',
    identityAssurance: 'client_authenticated',
  } as const;
  const idempotencyKey = randomUUID();
  const revoked = await ledger.POST('/v1/redec/consents/{redecConsentId}/revoke', {
    params: { path: { redecConsentId: grant.redecConsentId }, header: { 'Idempotency-Key': idempotencyKey } },
    body: revocation,
  });
  answerOf(revoked);

  const again = await ledger.POST('/v1/redec/consents/{redecConsentId}/revoke', {
    params: { path: { redecConsentId: grant.redecConsentId }, header: { 'Idempotency-Key': randomUUID() } },
    body: revocation,
  });
  if (again.error?.code !== 'redec_consent_already_revoked') throw new Error('a second revocation must be refused');

  const read = await ledger.GET('/v1/redec/consents/{redecConsentId}', {
    params: { path: { redecConsentId: grant.redecConsentId } },
  });
  const consent = answerOf(read);
  return { redecConsentId: consent.redecConsentId, internalConsentCode: consent.internalConsentCode, status: consent.status };
}

/** The answer's body, or the refusal as an error naming its problem `code`. */
function answerOf<T>(result: { data?: T; error?: Problem | unknown; response: Response }): T {
  if (result.data === undefined) {
    const problem = result.error as Problem | undefined;
    throw new Error(`${result.response.status} ${problem?.code ?? ''}: ${problem?.detail ?? ''}`);
  }
  return result.data;
}
