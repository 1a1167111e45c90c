import { DomainError } from '@ledger/platform';
import { refusalOf } from '@ledger/platform/testing';
import { Customer, evolveCustomer } from './customer.decider';
import { CustomerEvent } from './customer.events';
import { decidePlaceLegalHold, decideReleaseLegalHold, onLegalHold } from './legal-holds';

const customerId = 'c-1';
const registered: CustomerEvent = {
  type: 'CustomerRegistered',
  data: { customerId, userReference: { hash: 'h', ciphertext: 'c' }, identifiers: [], registeredAt: 1 },
};
const given = (...events: CustomerEvent[]): Customer | null => events.reduce<Customer | null>(evolveCustomer, null);
const placed = (legalHoldId: string, placedAt = 10): CustomerEvent => ({
  type: 'LegalHoldPlaced',
  data: { customerId, legalHoldId, reason: 'litigation', reference: 'case 2026-118', placedAt },
});

describe('legal holds', () => {
  it('places a hold on an existing customer, which puts it on hold', () => {
    const event = decidePlaceLegalHold(given(registered), 'lh-1', { reason: 'litigation', reference: 'case 2026-118' }, 10);
    expect(event).toEqual(placed('lh-1'));
    expect(onLegalHold(given(registered, event)!)).toBe(true);
    expect(onLegalHold(given(registered)!)).toBe(false);
  });

  it('refuses a hold on an unknown customer, or on one whose data was erased', () => {
    expect(refusalOf(() => decidePlaceLegalHold(null, 'lh-1', { reason: 'r', reference: 'x' }, 10))).toMatchObject({ kind: 'not_found' });
    const erased = given(registered, { type: 'CustomerDataErased', data: { customerId, dataKeyId: 'ck_1', redecConsentIds: [], retentionUntil: 5, deletedBlobs: [], erasedAt: 20 } });
    expect(refusalOf(() => decidePlaceLegalHold(erased, 'lh-1', { reason: 'r', reference: 'x' }, 30))).toMatchObject({ kind: 'conflict', code: 'customer_data_erased' });
  });

  it('releases a hold in force once; the customer stays on hold while another is in force', () => {
    const twoHolds = given(registered, placed('lh-1'), placed('lh-2'));
    const released = decideReleaseLegalHold(twoHolds, 'lh-1', 50);
    expect(released).toEqual({ type: 'LegalHoldReleased', data: { customerId, legalHoldId: 'lh-1', releasedAt: 50 } });
    const afterOne = evolveCustomer(twoHolds, released)!;
    expect(onLegalHold(afterOne)).toBe(true);
    expect(refusalOf(() => decideReleaseLegalHold(afterOne, 'lh-1', 60))).toMatchObject({ kind: 'conflict', code: 'legal_hold_already_released' });
    expect(onLegalHold(evolveCustomer(afterOne, decideReleaseLegalHold(afterOne, 'lh-2', 70))!)).toBe(false);
  });

  it('answers 404 for a hold the customer does not have', () => {
    const refusal: DomainError = refusalOf(() => decideReleaseLegalHold(given(registered, placed('lh-1')), 'lh-9', 50));
    expect(refusal).toMatchObject({ kind: 'not_found' });
  });
});
