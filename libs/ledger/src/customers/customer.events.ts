/**
 * Customer facts. Identifier values and the userReference never appear in
 * clear: each is kept as a keyed hash (for exact matching inside the tenant)
 * and a ciphertext (for authorized recovery): docs/architecture.md,
 * "Principles".
 */
export interface ProtectedValue {
  hash: string;
  ciphertext: string;
}

/** The integrator's assertion of how it verified an identifier; the service records it, it does not verify. */
export interface Verification {
  method: string;
  sourceReference: string;
  verifiedAt: number;
}

export interface CustomerIdentifier {
  system: string;
  type: string;
  value: ProtectedValue;
  verification: Verification | null;
}

export interface CustomerRegistered {
  type: 'CustomerRegistered';
  data: { customerId: string; userReference: ProtectedValue; identifiers: CustomerIdentifier[]; registeredAt: number };
}
export interface CustomerIdentifierLinked {
  type: 'CustomerIdentifierLinked';
  data: { customerId: string; identifier: CustomerIdentifier; linkedAt: number };
}
export interface CustomerIdentifierVerificationAsserted {
  type: 'CustomerIdentifierVerificationAsserted';
  data: { customerId: string; system: string; type: string; verification: Verification; assertedAt: number };
}
/** An operator's legal hold on the customer's data (decision 0036): while it is in force, erasure passes the customer by. */
export interface LegalHoldPlaced {
  type: 'LegalHoldPlaced';
  data: { customerId: string; legalHoldId: string; reason: string; reference: string; placedAt: number };
}
export interface LegalHoldReleased {
  type: 'LegalHoldReleased';
  data: { customerId: string; legalHoldId: string; releasedAt: number };
}
/**
 * The customer's data key was destroyed after every consent passed its
 * retention floor (decision 0035): every ciphertext and keyed hash recorded
 * for the customer is unreadable from here on, its evidence blobs and blind
 * index entries are deleted. Names only what the ledger already shows.
 */
export interface CustomerDataErased {
  type: 'CustomerDataErased';
  data: {
    customerId: string;
    /** Null for a customer that never needed a key. */
    dataKeyId: string | null;
    /** The consents whose floors had all passed, by id. */
    redecConsentIds: string[];
    /** The latest retentionUntil among them: erasure came after it. Null when the customer had no consent with a floor, erased at their request. */
    retentionUntil: number | null;
    /** The data subject's suppression request answered `approved`, when there was one (decision 0073). */
    rightsRequestId?: string;
    /**
     * SHA-256 of the evidence and certificates whose blobs were deleted (hashes of recordings and certificates, not of
     * identifiers): since decision 0048 every one the customer's consents name, each the customer's own; before, only
     * those no other customer named.
     */
    deletedBlobs: string[];
    erasedAt: number;
  };
}
export type CustomerEvent =
  | CustomerRegistered
  | CustomerIdentifierLinked
  | CustomerIdentifierVerificationAsserted
  | LegalHoldPlaced
  | LegalHoldReleased
  | CustomerDataErased;

/** A uniqueness claim on a userReference or an identifier (streams.reservation), as recorded before decision 0035. */
export interface ReservationClaimed {
  type: 'ReservationClaimed';
  data: { customerId: string; claimedAt: number };
}
