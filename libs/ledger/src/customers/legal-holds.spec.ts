import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { DomainError } from '@ledger/platform';
import { refusalOf } from '@ledger/platform/testing';
import { toNewEvent } from '../command-context';
import { streams } from '../streams';
import { Customer, evolveCustomer } from './customer.decider';
import { CustomerEvent } from './customer.events';
import { decidePlaceLegalHold, decideReleaseLegalHold, onLegalHold, placeLegalHold, releaseLegalHold } from './legal-holds';

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

// Integration: the real SQLite store, for what the decider cannot show: concurrent changes of one customer's holds.
describe('legal holds on the SQLite store', () => {
  let dir: string;
  let store: SqliteEventStore;
  const context = { tenantId: 't-1', actor: 'key-1', correlationId: 'c', now: 100 };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legal-holds-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    await store.append(streams.customer(context.tenantId, customerId), [toNewEvent(registered, context)], 'no_stream');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records one of two concurrent releases of a hold and refuses the other as already released', async () => {
    const { legalHold } = await placeLegalHold(store, customerId, { reason: 'litigation', reference: 'case 2026-118' }, context);
    const outcomes = await Promise.allSettled([0, 1].map(() => releaseLegalHold(store, customerId, legalHold.legalHoldId, context)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused.reason).toMatchObject({ code: 'legal_hold_already_released' });
    expect((await store.readStream(streams.customer(context.tenantId, customerId))).map((e) => e.type)).toEqual(['CustomerRegistered', 'LegalHoldPlaced', 'LegalHoldReleased']);
  });

  it('records two holds placed at once, each decided on the other', async () => {
    const request = { reason: 'litigation', reference: 'case 2026-118' };
    const [first, second] = await Promise.all([placeLegalHold(store, customerId, request, context), placeLegalHold(store, customerId, request, context)]);
    expect(first.legalHold.legalHoldId).not.toBe(second.legalHold.legalHoldId);
    expect((await store.readStream(streams.customer(context.tenantId, customerId))).map((e) => e.type)).toEqual(['CustomerRegistered', 'LegalHoldPlaced', 'LegalHoldPlaced']);
  });
});
