/**
 * Customer facts. Identifier values and the userReference never appear in
 * clear: each is kept as a keyed hash (for exact matching inside the tenant)
 * and a ciphertext (for authorized recovery), DESIGN.md principle 5.
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
export type CustomerEvent = CustomerRegistered | CustomerIdentifierLinked | CustomerIdentifierVerificationAsserted;

/** A uniqueness claim on a userReference or an identifier (streams.reservation). */
export interface ReservationClaimed {
  type: 'ReservationClaimed';
  data: { customerId: string; claimedAt: number };
}
