import { DomainError, ErrorCodes } from '@ledger/platform';
import { CustomerEvent, CustomerIdentifier, ProtectedValue } from './customer.events';

export interface LegalHold {
  legalHoldId: string;
  reason: string;
  reference: string;
  placedAt: number;
  /** Null while in force. */
  releasedAt: number | null;
}

export interface Customer {
  customerId: string;
  userReferenceHash: string;
  identifiers: CustomerIdentifier[];
  registeredAt: number;
  legalHolds: LegalHold[];
  /** When the customer's data was erased (CustomerDataErased); null before. */
  erasedAt: number | null;
}

export function evolveCustomer(state: Customer | null, event: CustomerEvent): Customer | null {
  switch (event.type) {
    case 'CustomerRegistered':
      return {
        customerId: event.data.customerId,
        userReferenceHash: event.data.userReference.hash,
        identifiers: event.data.identifiers,
        registeredAt: event.data.registeredAt,
        legalHolds: [],
        erasedAt: null,
      };
    case 'CustomerIdentifierLinked':
      return state && { ...state, identifiers: [...state.identifiers, event.data.identifier] };
    case 'CustomerIdentifierVerificationAsserted': {
      const { system, type, verification } = event.data;
      return (
        state && {
          ...state,
          identifiers: state.identifiers.map((i) => (i.system === system && i.type === type ? { ...i, verification } : i)),
        }
      );
    }
    case 'LegalHoldPlaced': {
      const { legalHoldId, reason, reference, placedAt } = event.data;
      return state && { ...state, legalHolds: [...state.legalHolds, { legalHoldId, reason, reference, placedAt, releasedAt: null }] };
    }
    case 'LegalHoldReleased': {
      const { legalHoldId, releasedAt } = event.data;
      return state && { ...state, legalHolds: state.legalHolds.map((h) => (h.legalHoldId === legalHoldId ? { ...h, releasedAt } : h)) };
    }
    case 'CustomerDataErased':
      return state && { ...state, erasedAt: event.data.erasedAt };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/**
 * Who holds the uniqueness claim on a requested identifier:
 * - `free`: nobody, or an abandoned claim that may be taken over;
 * - `mine`: the customer this resolution resolves to;
 * - `other`: another customer that really has it;
 * - `pending`: another resolution claimed it moments ago and has not finished.
 */
export type IdentifierOwner = 'free' | 'mine' | 'other' | 'pending';

export interface ResolutionInput {
  /** The customer the userReference is claimed for, or a fresh id when it is not claimed yet. */
  customerId: string;
  /** That customer's current state; null when not registered yet. */
  customer: Customer | null;
  userReference: ProtectedValue;
  identifiers: CustomerIdentifier[];
  owners: IdentifierOwner[];
  now: number;
}

export type ResolutionDecision = { kind: 'resolved'; created: boolean; events: CustomerEvent[] } | { kind: 'wait' };

export function identityConflict(detail: string, field: string): DomainError {
  return new DomainError('conflict', ErrorCodes.CUSTOMER_IDENTITY_CONFLICT, detail, { errors: [{ field, reason: 'identity_conflict' }] });
}

/**
 * What the uniqueness claims alone decide: an identifier another customer
 * holds fails closed, one a concurrent resolution is claiming makes this one
 * wait. Taken before any value is protected, so a refused resolution does
 * not even create the key of a customer it would have registered.
 */
export function decideClaims(owners: readonly IdentifierOwner[]): 'proceed' | 'wait' {
  const taken = owners.indexOf('other');
  if (taken >= 0) {
    throw identityConflict('an identifier is already bound to another customer of this tenant', `identifiers[${taken}]`);
  }
  return owners.includes('pending') ? 'wait' : 'proceed';
}

/**
 * The same userReference with compatible identifiers resolves to the same
 * subject; an incompatible reference or identity fails closed
 * (docs/reference/customers.md, "Compatible and conflicting resolutions").
 */
export function decideResolution(input: ResolutionInput): ResolutionDecision {
  const { customer, customerId, now } = input;
  if (decideClaims(input.owners) === 'wait') return { kind: 'wait' };

  if (!customer) {
    return {
      kind: 'resolved',
      created: true,
      events: [{ type: 'CustomerRegistered', data: { customerId, userReference: input.userReference, identifiers: input.identifiers, registeredAt: now } }],
    };
  }

  const events: CustomerEvent[] = [];
  input.identifiers.forEach((requested, index) => {
    const known = customer.identifiers.find((i) => i.system === requested.system && i.type === requested.type);
    if (!known) {
      events.push({ type: 'CustomerIdentifierLinked', data: { customerId, identifier: requested, linkedAt: now } });
    } else if (known.value.hash !== requested.value.hash) {
      throw identityConflict('the userReference is bound to a different identifier of the same system and type', `identifiers[${index}]`);
    } else if (requested.verification && !sameVerification(known.verification, requested.verification)) {
      events.push({
        type: 'CustomerIdentifierVerificationAsserted',
        data: { customerId, system: requested.system, type: requested.type, verification: requested.verification, assertedAt: now },
      });
    }
  });
  return { kind: 'resolved', created: false, events };
}

function sameVerification(a: CustomerIdentifier['verification'], b: NonNullable<CustomerIdentifier['verification']>): boolean {
  return a !== null && a.method === b.method && a.sourceReference === b.sourceReference && a.verifiedAt === b.verifiedAt;
}

export interface PublicIdentifier {
  system: string;
  type: string;
  /** `asserted`: the integrator declared how it verified it. The service itself never verifies. */
  verificationState: 'asserted' | 'unverified';
}

/** What a response or the read model may say about an identifier: never its value, hash or ciphertext. */
export function publicIdentifier(identifier: Pick<CustomerIdentifier, 'system' | 'type' | 'verification'>): PublicIdentifier {
  return { system: identifier.system, type: identifier.type, verificationState: identifier.verification ? 'asserted' : 'unverified' };
}

export function publicIdentifiers(customer: Customer): PublicIdentifier[] {
  return customer.identifiers.map(publicIdentifier);
}
