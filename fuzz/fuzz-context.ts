/**
 * What the harness knows about the ledger it seeded: two tenants with valid
 * ids of every kind, API keys, the shapes of requests that succeeded, and the
 * RUTs it may put in identifier fields.
 */
export interface TenantFixtures {
  tenantId: string;
  /**
   * Valid values by the name the API gives them, as path parameters or body
   * fields: `redecConsentId`, `customerId`, `sessionId`, `token` (the consent
   * page's), ...
   */
  values: Record<string, string[]>;
}

/** The keys the harness holds; requests carry one of them or none. */
export interface ApiKeys {
  /** The own tenant's key with every scope. */
  all: string;
  /** The own tenant's key with consent:read only. */
  readOnly: string;
  /** An own tenant's key revoked with `ledger key revoke`. */
  revoked: string;
  /** The other tenant's key with every scope. */
  other: string;
}

/** A request that succeeded while seeding: the base that most fuzzed requests of its operation mutate. */
export interface Example {
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
}

export interface FuzzContext {
  own: TenantFixtures;
  other: TenantFixtures;
  keys: ApiKeys;
  /** By operation name (`POST /v1/redec/consent-interactions/{interactionId}/grant`). */
  examples: Record<string, Example>;
  /** RUTs (`12345678-5`) the generator puts in identifier fields; every one is watched for leaks. */
  ruts: string[];
  /** The own tenant's webhook endpoint's secret: a secret the generator puts where none belongs (a URL), watched for leaks like the keys. */
  webhookSecret: string;
}
