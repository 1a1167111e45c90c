import { conflict } from './errors';
import { CUSTOMER_KEY_PREFIX, protectedValueKeyId, type CustomerKeySource, type TenantKeySource } from './keys/tenant-data-key';

/** A customer's identifier as recorded in a fact: a keyed hash and a ciphertext, both under the customer's own key. */
export interface CustomerProtectedValue {
  hash: string;
  ciphertext: string;
}

/** The customer's data key was destroyed (decision 0035): the value existed and is gone for good. */
export function customerDataErased(): Error {
  return conflict('customer_data_erased', "The customer's personal data was erased after its retention floor; nothing can be recorded or recovered for it.");
}

/**
 * Keeps identifiers out of events in clear (docs/architecture.md, "Principles").
 * - The blind index (`hash`) is keyed by the tenant's data key (decision
 *   0028): it finds a customer by a value before the customer is known, so
 *   it only ever goes to the key table, which erasure can delete from.
 * - A customer's identifiers and evidence are recorded under the customer's
 *   own data key (`protectForCustomer`, decision 0035), so that destroying
 *   that key erases them from the immutable log.
 * - Secrets of the tenant itself (webhook secrets, stored responses) stay
 *   under the tenant's key (`encrypt`).
 * `decrypt` opens either: the ciphertext names its key.
 */
export class IdentifierProtection {
  constructor(
    private readonly keys: TenantKeySource,
    private readonly customerKeys: CustomerKeySource,
  ) {}

  /** HMAC-SHA256 (base64url) of `value` under the tenant's key; `purpose` separates kinds of values, e.g. `identifier` or `user-reference`. */
  async hash(tenantId: string, purpose: string, value: string): Promise<string> {
    return (await this.keys.dataKey(tenantId)).hash(purpose, value);
  }

  /** AES-256-GCM with a random IV and the tenant id as associated data: `v2.<dataKeyId>.<iv>.<tag>.<ciphertext>` (base64url). */
  async encrypt(tenantId: string, plaintext: string): Promise<string> {
    return (await this.keys.dataKey(tenantId)).encrypt(plaintext);
  }

  /** The keyed hash (for comparing within the customer) and the ciphertext of one of the customer's values, under the customer's key. */
  async protectForCustomer(tenantId: string, customerId: string, purpose: string, matchKey: string, plaintext = matchKey): Promise<CustomerProtectedValue> {
    const key = await this.customerKeys.keyFor(tenantId, customerId);
    return { hash: key.hash(purpose, matchKey), ciphertext: key.encrypt(plaintext) };
  }

  /** The keyed hash `protectForCustomer` records, to compare a value with one the customer holds. */
  async hashForCustomer(tenantId: string, customerId: string, purpose: string, matchKey: string): Promise<string> {
    return (await this.customerKeys.keyFor(tenantId, customerId)).hash(purpose, matchKey);
  }

  /** Throws when the text was altered, is not ours, or belongs to another tenant; `customer_data_erased` when its customer's key was destroyed. */
  async decrypt(tenantId: string, protectedText: string): Promise<string> {
    const keyId = protectedValueKeyId(protectedText);
    if (keyId?.startsWith(CUSTOMER_KEY_PREFIX)) {
      const key = await this.customerKeys.keyNamed(tenantId, keyId);
      if (!key) throw customerDataErased();
      return key.decrypt(protectedText);
    }
    return (await this.keys.dataKey(tenantId)).decrypt(protectedText);
  }
}
