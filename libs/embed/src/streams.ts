/** Stream names of the pages' sessions; like every tenant stream, each carries the tenant. */
export const embedStreams = {
  session: (tenantId: string, sessionId: string) => `embed-session-${tenantId}-${sessionId}`,
  privacyCenterSession: (tenantId: string, sessionId: string) => `privacy-center-session-${tenantId}-${sessionId}`,
};
