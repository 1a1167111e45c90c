/**
 * Stream names. Tenant data always carries the tenant in its stream name
 * (docs/architecture.md, "Principles"). Tenants and API keys are the roots of
 * tenancy: a key is looked up by its own id before any tenant is known.
 */
export const streams = {
  tenant: (tenantId: string) => `tenant-${tenantId}`,
  apiKey: (keyId: string) => `apikey-${keyId}`,
  /**
   * Every tenant's data key, wrapped by the master key: one stream, so a
   * master key rotation is one atomic append. Its facts name their tenant in
   * their data only, so that `audit verify --tenant` keeps to streams of one
   * tenant; a whole-ledger verify covers the keyring.
   */
  keyring: () => 'keyring',
  customer: (tenantId: string, customerId: string) => `customer-${tenantId}-${customerId}`,
  /**
   * Uniqueness claims before decision 0035: one stream per claimed value,
   * appended with `no_stream`. The service now claims in the key table's
   * blind index; ledgers written before still hold these streams.
   */
  reservation: (tenantId: string, kind: ReservationKind, valueHash: string) => `reservation-${tenantId}-${kind}-${valueHash}`,
};

export type ReservationKind = 'user-reference' | 'identifier';

/** The prefix every stream of a kind begins with, for listing the kinds that have no read model (EventStore.streamIds). */
export const streamPrefixes = {
  tenant: streams.tenant(''),
  apiKey: streams.apiKey(''),
};
