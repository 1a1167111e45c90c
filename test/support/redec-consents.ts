import { randomUUID } from 'node:crypto';
import { ApiApp, waitUntil } from './api-app';
import { redecConfiguration, rutOf } from './redec-fixtures';

const MINUTE = 60_000;
let nextRutBody = 21_000_000;

export interface GrantedConsent {
  redecConsentId: string;
  internalConsentCode: string;
  consentActionId: string;
  customerId: string;
  grantedAt: number;
  recordedAt: number;
  initialAccessValidUntil: number;
}

/**
 * Grants REDEC consents through the API, as an integrator would: one
 * published configuration (baseline profile, objectives 02 and 03, scope
 * `redec-debt`, obligation source system `core-loans`), then per consent a
 * verified customer, an interaction and an electronic grant (another profile
 * than baseline when `options` names one). The key needs
 * consent:admin, consent:write and consent:identity-assert.
 */
export function redecConsents(api: Pick<ApiApp, 'http'>, apiKey: string, options: { regulatoryProfile?: string; channel?: 'digital' | 'phone' | 'in_person' } = {}) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  let configurationId: Promise<string> | undefined;

  async function publish(): Promise<string> {
    const published = await api.http
      .post('/v1/configurations')
      .set(auth)
      .send(redecConfiguration({ templateKey: `redec-${randomUUID()}`, ...(options.channel ? { channel: options.channel } : {}), ...(options.regulatoryProfile ? { redec: { regulatoryProfile: options.regulatoryProfile } } : {}) }));
    if (published.status !== 201) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
    return published.body.configurationId as string;
  }

  async function resolveCustomer(): Promise<string> {
    const resolved = await api.http
      .post('/v1/customers/resolve')
      .set(auth)
      .send({
        userReference: `cliente-${randomUUID()}`,
        identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRutBody += 7919)), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
      });
    if (resolved.status !== 201) throw new Error(`resolve: ${resolved.status} ${JSON.stringify(resolved.body)}`);
    return resolved.body.customerId as string;
  }

  return {
    /**
     * A consent granted as by `grant`, returned once its certificate is
     * stored: the certificate worker appends nothing more to it while a
     * refusal is checked to record nothing.
     */
    async grantSettled(options: { occurredAt?: number; customerId?: string } = {}): Promise<GrantedConsent> {
      const consent = await this.grant(options);
      const read = () => api.http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth);
      await waitUntil(async () => (await read()).body.artifactStatus === 'ready', 15_000);
      return consent;
    },

    /** A consent granted `occurredAt` (default a minute ago), for a new customer unless one is given; `fields` are added to the grant body. */
    async grant(options: { occurredAt?: number; customerId?: string; fields?: Record<string, unknown> } = {}): Promise<GrantedConsent> {
      configurationId ??= publish();
      const customerId = options.customerId ?? (await resolveCustomer());
      const opened = await api.http.post('/v1/redec/consent-interactions').set(auth).send({ configurationId: await configurationId, customerId });
      if (opened.status !== 201) throw new Error(`interaction: ${opened.status} ${JSON.stringify(opened.body)}`);
      const granted = await api.http
        .post(`/v1/redec/consent-interactions/${opened.body.interactionId}/grant`)
        .set(auth)
        .send({
          occurredAt: options.occurredAt ?? Date.now() - MINUTE,
          sourceSystem: 'crm',
          sourceReference: `cap-${randomUUID()}`,
          evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
          ...options.fields,
        });
      if (granted.status !== 201) throw new Error(`grant: ${granted.status} ${JSON.stringify(granted.body)}`);
      const { redecConsentId, internalConsentCode, consentActionId, grantedAt, recordedAt, initialAccessValidUntil } = granted.body;
      return { redecConsentId, internalConsentCode, consentActionId, customerId, grantedAt, recordedAt, initialAccessValidUntil };
    },

    /** Revokes `consent` directly and digitally, `occurredAt` (default a second ago); the answer, for the caller to check. */
    revoke(consent: Pick<GrantedConsent, 'redecConsentId'>, { occurredAt = Date.now() - 1_000 }: { occurredAt?: number } = {}) {
      return api.http
        .post(`/v1/redec/consents/${consent.redecConsentId}/revoke`)
        .set(auth)
        .set('Idempotency-Key', randomUUID())
        .send({ channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });
    },
  };
}
