/** General consent stream names; like every tenant stream, each carries the tenant. */
export const consentStreams = {
  generalConsent: (tenantId: string, consentId: string) => `general-consent-${tenantId}-${consentId}`,
};
