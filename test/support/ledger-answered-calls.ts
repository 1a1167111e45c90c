import { randomUUID } from 'node:crypto';
import type { ApiApp } from './api-app';
import type { GrantedConsent } from './redec-consents';
import { initialWindowAccess, rutOf } from './redec-fixtures';

let nextRutBody = 30_000_000;

/**
 * One call of each kind a bank makes while the read model cannot answer
 * (rebuilt after a loss, or Redis out of reach), for the suites that take it
 * away: the writes and reads the ledger alone answers (resolve, authorize,
 * `GET` consent and configuration, a whole capture), and the consent-code
 * lookup, which only the model answers.
 */
export function ledgerAnsweredCalls(api: Pick<ApiApp, 'http'>, apiKey: string, consent: GrantedConsent, configurationId: string) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  const rut = () => rutOf((nextRutBody += 13));
  return {
    resolve: () => api.http.post('/v1/customers/resolve').set(auth).send({ userReference: `lost-${randomUUID()}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rut() }] }),
    authorize: () => api.http.post('/v1/redec/accesses/authorize').set(auth).send(initialWindowAccess(consent.redecConsentId)),
    consent: () => api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth),
    lookup: () => api.http.get('/v1/redec/consents').query({ internalConsentCode: consent.internalConsentCode }).set(auth),
    configuration: () => api.http.get(`/v1/configurations/${configurationId}`).set(auth),
    // A new capture: an interaction opened on the configuration (read from the ledger while the model cannot answer), then its grant.
    capture: async () => {
      const opened = await api.http
        .post('/v1/redec/consent-interactions')
        .set(auth)
        .send({
          configurationId,
          userReference: `capture-${randomUUID()}`,
          identifiers: [{ system: 'cl-sii', type: 'rut', value: rut(), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - 120_000 } }],
        });
      if (opened.status !== 201) return opened;
      return api.http
        .post(`/v1/redec/consent-interactions/${opened.body.interactionId}/grant`)
        .set(auth)
        .send({ occurredAt: Date.now() - 60_000, sourceSystem: 'crm', sourceReference: `cap-${randomUUID()}`, evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } } });
    },
  };
}

export type LedgerAnsweredCall = keyof ReturnType<typeof ledgerAnsweredCalls>;

/**
 * Checks one answer to a call of `ledgerAnsweredCalls` made while the model
 * may not answer: the ledger's answers are whole and the same as `before`
 * (taken while the model answered); the lookup is the model's answer, or a
 * 503 `refusal` with Retry-After, never an empty list from an empty model.
 */
export function expectRightAnswer(
  answer: { kind: LedgerAnsweredCall; status: number; body: any; retryAfter?: string },
  before: { configuration: unknown; consent: unknown; lookup: unknown },
  refusal: 'read_model_rebuilding' | 'read_model_unavailable',
): void {
  switch (answer.kind) {
    case 'resolve':
      expect(answer.status).toBe(201);
      break;
    case 'authorize':
      expect({ status: answer.status, decision: answer.body.decision?.status }).toEqual({ status: 201, decision: 'authorized' });
      break;
    case 'capture':
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 201, code: undefined });
      break;
    case 'configuration':
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: before.configuration });
      break;
    case 'consent':
      // From the consent's stream while the model cannot answer, from the model otherwise: the same answer.
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: before.consent });
      break;
    case 'lookup':
      if (answer.status === 200) expect(answer.body).toEqual(before.lookup);
      else expect({ status: answer.status, code: answer.body.code, retryAfter: answer.retryAfter }).toEqual({ status: 503, code: refusal, retryAfter: '5' });
      break;
  }
}
