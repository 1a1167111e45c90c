import { DomainError } from '@ledger/platform';
import { Customer, IdentifierOwner, decideResolution, evolveCustomer, publicIdentifiers } from './customer.decider';
import { CustomerEvent, CustomerIdentifier } from './customer.events';

const now = 1_763_800_000_000;
const reference = { hash: 'ref-hash', ciphertext: 'ref-ct' };
const rut = (hash: string, verification: CustomerIdentifier['verification'] = null): CustomerIdentifier => ({
  system: 'cl-sii',
  type: 'rut',
  value: { hash, ciphertext: `ct-${hash}` },
  verification,
});
const email = (hash: string): CustomerIdentifier => ({ system: 'bank', type: 'email', value: { hash, ciphertext: `ct-${hash}` }, verification: null });
const asserted = { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: now - 1000 };

function given(events: CustomerEvent[]): Customer | null {
  return events.reduce<Customer | null>(evolveCustomer, null);
}
const registered = (identifiers: CustomerIdentifier[]): CustomerEvent => ({
  type: 'CustomerRegistered',
  data: { customerId: 'c1', userReference: reference, identifiers, registeredAt: now - 10_000 },
});

function when(customer: Customer | null, identifiers: CustomerIdentifier[], owners: IdentifierOwner[] = identifiers.map(() => (customer ? 'mine' : 'free'))) {
  return decideResolution({ customerId: 'c1', customer, userReference: reference, identifiers, owners, now });
}

function conflictOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a conflict');
}

describe('customer resolution', () => {
  it('registers a new customer with every identifier the first time', () => {
    const decision = when(null, [rut('r1'), email('e1')]);
    expect(decision).toEqual({
      kind: 'resolved',
      created: true,
      events: [{ type: 'CustomerRegistered', data: { customerId: 'c1', userReference: reference, identifiers: [rut('r1'), email('e1')], registeredAt: now } }],
    });
  });

  it('resolves a compatible repeat to the same customer and records nothing', () => {
    expect(when(given([registered([rut('r1')])]), [rut('r1')])).toEqual({ kind: 'resolved', created: false, events: [] });
  });

  it('links an identifier of a new system and type to the existing customer', () => {
    const decision = when(given([registered([rut('r1')])]), [rut('r1'), email('e1')], ['mine', 'free']);
    expect(decision).toEqual({
      kind: 'resolved',
      created: false,
      events: [{ type: 'CustomerIdentifierLinked', data: { customerId: 'c1', identifier: email('e1'), linkedAt: now } }],
    });
  });

  it('fails closed when the same reference comes with another identity', () => {
    const error = conflictOf(() => when(given([registered([rut('r1')])]), [rut('r2')], ['free']));
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe('CUSTOMER_IDENTITY_CONFLICT');
    expect(error.errors).toEqual([{ field: 'identifiers[0]', reason: 'identity_conflict' }]);
  });

  it('fails closed when the identity is bound to another reference', () => {
    const error = conflictOf(() => when(null, [email('e9'), rut('r1')], ['free', 'other']));
    expect(error.code).toBe('CUSTOMER_IDENTITY_CONFLICT');
    expect(error.errors).toEqual([{ field: 'identifiers[1]', reason: 'identity_conflict' }]);
  });

  it('waits while another resolution holds a fresh claim on an identifier', () => {
    expect(when(null, [rut('r1')], ['pending'])).toEqual({ kind: 'wait' });
  });

  it('records a new verification assertion, and nothing when it is repeated', () => {
    const customer = given([registered([rut('r1')])]);
    const decision = when(customer, [rut('r1', asserted)]);
    expect(decision).toMatchObject({
      created: false,
      events: [{ type: 'CustomerIdentifierVerificationAsserted', data: { system: 'cl-sii', type: 'rut', verification: asserted, assertedAt: now } }],
    });
    const after = (decision as { events: CustomerEvent[] }).events.reduce(evolveCustomer, customer);
    expect(when(after, [rut('r1', asserted)])).toEqual({ kind: 'resolved', created: false, events: [] });
    expect(when(after, [rut('r1')])).toEqual({ kind: 'resolved', created: false, events: [] });
  });

  it('describes identifiers without values, hashes or ciphertext', () => {
    const customer = given([registered([rut('r1', asserted), email('e1')])])!;
    const described = publicIdentifiers(customer);
    expect(described).toEqual([
      { system: 'cl-sii', type: 'rut', verificationState: 'asserted' },
      { system: 'bank', type: 'email', verificationState: 'unverified' },
    ]);
    expect(JSON.stringify(described)).not.toMatch(/r1|e1|ct-/);
  });
});
