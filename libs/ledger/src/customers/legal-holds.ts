import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { conflict, customerDataErased, notFound } from '@ledger/platform';
import { CommandContext } from '../command-context';
import { loadAggregate } from '../load-aggregate';
import { Decision, runCommand } from '../run-command';
import { streams } from '../streams';
import { Customer, LegalHold, evolveCustomer } from './customer.decider';
import { LegalHoldPlaced, LegalHoldReleased } from './customer.events';

export interface PlaceLegalHoldRequest {
  reason: string;
  reference: string;
}

/** A hold is placed on a customer that exists and whose data still exists: a hold after erasure would hold nothing. */
export function decidePlaceLegalHold(customer: Customer | null, legalHoldId: string, request: PlaceLegalHoldRequest, now: number): LegalHoldPlaced {
  if (!customer) throw notFound('customer');
  if (customer.erasedAt !== null) throw customerDataErased();
  return { type: 'LegalHoldPlaced', data: { customerId: customer.customerId, legalHoldId, reason: request.reason, reference: request.reference, placedAt: now } };
}

/** Only a hold in force is released; a second release is refused for what it is. */
export function decideReleaseLegalHold(customer: Customer | null, legalHoldId: string, now: number): LegalHoldReleased {
  if (!customer) throw notFound('customer');
  const hold = customer.legalHolds.find((h) => h.legalHoldId === legalHoldId);
  if (!hold) throw notFound('legal hold');
  if (hold.releasedAt !== null) throw conflict('legal_hold_already_released', 'This legal hold was already released.');
  return { type: 'LegalHoldReleased', data: { customerId: customer.customerId, legalHoldId, releasedAt: now } };
}

/** Whether erasure must pass the customer by. */
export function onLegalHold(customer: Customer): boolean {
  return customer.legalHolds.some((h) => h.releasedAt === null);
}

export interface LegalHoldChange {
  customerId: string;
  legalHold: LegalHold;
  position: number;
}

/** Places a hold through the one command path: decided on the customer's facts, recorded only while they are as read. */
export async function placeLegalHold(store: EventStore, customerId: string, request: PlaceLegalHoldRequest, context: CommandContext & { tenantId: string }): Promise<LegalHoldChange> {
  const legalHoldId = randomUUID();
  return changeLegalHolds(store, customerId, legalHoldId, context, (customer) => decidePlaceLegalHold(customer, legalHoldId, request, context.now));
}

/** Releases a hold through the one command path: a release recorded meanwhile makes this one be refused as already released. */
export async function releaseLegalHold(store: EventStore, customerId: string, legalHoldId: string, context: CommandContext & { tenantId: string }): Promise<LegalHoldChange> {
  return changeLegalHolds(store, customerId, legalHoldId, context, (customer) => decideReleaseLegalHold(customer, legalHoldId, context.now));
}

async function changeLegalHolds(
  store: EventStore,
  customerId: string,
  legalHoldId: string,
  context: CommandContext & { tenantId: string },
  decide: (customer: Customer | null) => LegalHoldPlaced | LegalHoldReleased,
): Promise<LegalHoldChange> {
  const stream = streams.customer(context.tenantId, customerId);
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<Customer>> => {
    const customer = await reads.fold(stream, evolveCustomer);
    const event = decide(customer);
    return { record: { streamId: stream, facts: [event] }, answer: evolveCustomer(customer, event)! };
  });
  return changed(result, legalHoldId, position!);
}

/** The customer's holds, in force or released, oldest first; 404 for a customer not of this tenant. */
export async function readLegalHolds(store: EventStore, tenantId: string, customerId: string): Promise<LegalHold[]> {
  const { state } = await loadAggregate(store, streams.customer(tenantId, customerId), evolveCustomer);
  if (!state) throw notFound('customer');
  return state.legalHolds;
}

function changed(customer: Customer, legalHoldId: string, position: number): LegalHoldChange {
  return { customerId: customer.customerId, legalHold: customer.legalHolds.find((h) => h.legalHoldId === legalHoldId)!, position };
}
