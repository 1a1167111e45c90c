/** General consent and Multi-Consent decision stream names; like every tenant stream, each carries the tenant. */
export const consentStreams = {
  generalConsent: (tenantId: string, consentId: string) => `general-consent-${tenantId}-${consentId}`,
  decision: (tenantId: string, decisionId: string) => `consent-decision-${tenantId}-${decisionId}`,
};
