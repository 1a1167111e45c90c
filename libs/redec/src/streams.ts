/** REDEC stream names; like every tenant stream, each carries the tenant. */
export const redecStreams = {
  interaction: (tenantId: string, interactionId: string) => `redec-interaction-${tenantId}-${interactionId}`,
  consent: (tenantId: string, redecConsentId: string) => `redec-consent-${tenantId}-${redecConsentId}`,
  /** Uniqueness of an internalConsentCode in the tenant, claimed with `no_stream`. */
  internalConsentCode: (tenantId: string, code: string) => `reservation-${tenantId}-internal-consent-code-${code}`,
};
