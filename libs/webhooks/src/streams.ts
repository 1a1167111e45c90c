/** Webhook stream names; like every tenant stream, each carries the tenant. */
export const webhookStreams = {
  /** Every endpoint of a tenant, in one stream: which endpoints receive a fact follows from positions alone. */
  endpoints: (tenantId: string) => `webhook-endpoints-${tenantId}`,
  /** Every delivery attempt to one endpoint, readable through the API. */
  deliveries: (tenantId: string, endpointId: string) => `webhook-deliveries-${tenantId}-${endpointId}`,
  /** The deliveries to one endpoint that failed for good: what a redelivery of its failures reads, instead of the queue's whole failed set. */
  failedDeliveries: (tenantId: string, endpointId: string) => `webhook-failed-deliveries-${tenantId}-${endpointId}`,
};
