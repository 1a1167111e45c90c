import { createHash } from 'node:crypto';

/** REDEC stream names; like every tenant stream, each carries the tenant. */
export const redecStreams = {
  /**
   * One stream per template of a tenant, so that its versions are numbered by
   * appending at the exact expected revision. The key is hashed: it is the
   * integrator's free text and stream names stay short and plain.
   */
  configurationTemplate: (tenantId: string, templateKey: string) =>
    `configuration-template-${tenantId}-${createHash('sha256').update(templateKey).digest('hex')}`,
  interaction: (tenantId: string, interactionId: string) => `redec-interaction-${tenantId}-${interactionId}`,
  consent: (tenantId: string, redecConsentId: string) => `redec-consent-${tenantId}-${redecConsentId}`,
  /** Uniqueness of an internalConsentCode in the tenant, claimed with `no_stream`. */
  internalConsentCode: (tenantId: string, code: string) => `reservation-${tenantId}-internal-consent-code-${code}`,
};
