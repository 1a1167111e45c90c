import { randomUUID } from 'node:crypto';
import { ApiApp } from './api-app';

/**
 * Grants general (non-REDEC) consents through the API, as an integrator
 * would: one published configuration without REDEC terms ("Términos del
 * servicio"), then per consent an interaction and an electronic grant for
 * the customer given. The key needs consent:admin and consent:write.
 */
export function generalConsents(api: Pick<ApiApp, 'http'>, apiKey: string) {
  const auth = { Authorization: `Bearer ${apiKey}` };
  let configurationId: Promise<string> | undefined;

  async function publish(): Promise<string> {
    const published = await api.http
      .post('/v1/configurations')
      .set(auth)
      .send({ templateKey: `terminos-${randomUUID()}`, title: 'Términos del servicio', text: 'Acepto.', channel: 'digital', captureTiming: 'deferred_external' });
    if (published.status !== 201) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`);
    return published.body.configurationId as string;
  }

  return {
    /** A general consent of `customerId`, granted a minute ago. */
    async grant(customerId: string): Promise<{ consentId: string; grantedAt: number }> {
      configurationId ??= publish();
      const opened = await api.http.post('/v1/consent-interactions').set(auth).send({ configurationId: await configurationId, customerId });
      if (opened.status !== 201) throw new Error(`interaction: ${opened.status} ${JSON.stringify(opened.body)}`);
      const granted = await api.http
        .post(`/v1/consent-interactions/${opened.body.interactionId}/grant`)
        .set(auth)
        .send({ occurredAt: Date.now() - 60_000, sourceSystem: 'web', sourceReference: `tos-${randomUUID()}`, evidence: { kind: 'electronic', authentication: { method: 'password', reference: 'session-9' } } });
      if (granted.status !== 201) throw new Error(`grant: ${granted.status} ${JSON.stringify(granted.body)}`);
      return { consentId: granted.body.consentId, grantedAt: granted.body.grantedAt };
    },
  };
}
