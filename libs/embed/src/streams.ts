/** Embed session stream names; like every tenant stream, each carries the tenant. */
export const embedStreams = {
  session: (tenantId: string, sessionId: string) => `embed-session-${tenantId}-${sessionId}`,
};
