import { randomUUID } from 'node:crypto';
import { EventStore, ExpectedRevision, WrongExpectedVersionError } from '@ledger/event-store';
import { conflict } from '@ledger/platform';
import { CommandContext, toNewEvent } from '../command-context';
import { loadAggregate } from '../load-aggregate';
import { ReservationKind, streams } from '../streams';
import { Customer, IdentifierOwner, decideResolution, evolveCustomer, publicIdentifiers } from './customer.decider';
import { CustomerIdentifier, ReservationClaimed } from './customer.events';
import { IdentifierInput, identityKey, normalizeIdentifiers } from './identifier-input';

/** The keyed hash and encryption of identifier values (IdentifierProtection in @ledger/platform). */
export interface ValueProtection {
  hash(tenantId: string, purpose: string, value: string): Promise<string>;
  encrypt(tenantId: string, plaintext: string): Promise<string>;
}

export interface ResolveCustomerRequest {
  userReference: string;
  identifiers: IdentifierInput[];
}

export interface ResolveCustomerResult {
  customerId: string;
  created: boolean;
  identifiers: ReturnType<typeof publicIdentifiers>;
  /** Global position of the last fact this call appended; null when it appended nothing. */
  position: number | null;
}

/**
 * How long a uniqueness claim whose customer never recorded the value is
 * respected before another resolution may take it over: a resolution that
 * crashed between its claim and its customer fact must not block the
 * identity forever, and a live one finishes well within this.
 */
export const ABANDONED_CLAIM_AFTER_MS = 10_000;
const PENDING_RETRY_MS = 50;
const MAX_ATTEMPTS = 40;

/**
 * Uniqueness of the userReference and of each identifier is claimed in a
 * reservation stream with `no_stream` (DESIGN.md). Order of writes:
 * identifier claims, then the userReference claim, then the customer fact.
 * The customer fact is the commit point: a claim is honoured only when the
 * customer it names recorded the value, so a crash in between leaves no
 * visible half-state. Any concurrent write shows up as a wrong expected
 * revision and the whole decision is taken again on fresh facts.
 */
export async function resolveCustomer(
  store: EventStore,
  protection: ValueProtection,
  request: ResolveCustomerRequest,
  context: CommandContext & { tenantId: string },
): Promise<ResolveCustomerResult> {
  const { tenantId, now } = context;
  const normalized = normalizeIdentifiers(request.identifiers, now);
  const userReference = await protect(protection, tenantId, 'user-reference', request.userReference.trim());
  const identifiers: CustomerIdentifier[] = await Promise.all(
    normalized.map(async (i) => ({
      system: i.system,
      type: i.type,
      value: await protect(protection, tenantId, 'identifier', identityKey(i), i.value),
      verification: i.verification,
    })),
  );
  const freshCustomerId = randomUUID();

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const referenceStream = streams.reservation(tenantId, 'user-reference', userReference.hash);
    const referenceClaim = await currentClaim(store, referenceStream);
    // A userReference claimed for a customer that is not registered yet is
    // adopted: whoever appends the customer fact first wins, the other retries.
    const customerId = referenceClaim?.customerId ?? freshCustomerId;
    const { state: customer, expectedRevision } = await loadAggregate(store, streams.customer(tenantId, customerId), evolveCustomer);

    const claims = await Promise.all(
      identifiers.map((i) => classifyIdentifierClaim(store, tenantId, 'identifier', i.value.hash, customerId, context.now)),
    );
    const decision = decideResolution({ customerId, customer, userReference, identifiers, owners: claims.map((c) => c.owner), now });
    if (decision.kind === 'wait') {
      await delay(PENDING_RETRY_MS);
      continue;
    }

    try {
      let position: number | null = null;
      if (decision.events.length > 0) {
        for (const [index, claim] of claims.entries()) {
          if (claim.owner === 'free') {
            await claimReservation(store, streams.reservation(tenantId, 'identifier', identifiers[index].value.hash), customerId, claim.expectedRevision, context);
          }
        }
        if (!referenceClaim) await claimReservation(store, referenceStream, customerId, 'no_stream', context);
        const appended = await store.append(
          streams.customer(tenantId, customerId),
          decision.events.map((e) => toNewEvent(e, context)),
          expectedRevision,
        );
        position = appended.position;
      }
      const resolved = decision.events.reduce<Customer | null>(evolveCustomer, customer)!;
      return { customerId, created: decision.created, identifiers: publicIdentifiers(resolved), position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('CUSTOMER_RESOLUTION_IN_PROGRESS', 'another resolution of this customer is in progress; retry shortly');
}

async function protect(protection: ValueProtection, tenantId: string, purpose: ReservationKind, matchKey: string, plaintext = matchKey) {
  return { hash: await protection.hash(tenantId, purpose, matchKey), ciphertext: await protection.encrypt(tenantId, plaintext) };
}

interface Claim {
  customerId: string;
  claimedAt: number;
  revision: number;
}

async function currentClaim(store: EventStore, streamId: string): Promise<Claim | null> {
  const [last] = await store.readStream(streamId, { direction: 'backwards', maxCount: 1 });
  if (!last) return null;
  const { customerId, claimedAt } = (last as unknown as ReservationClaimed).data;
  return { customerId, claimedAt, revision: last.revision };
}

async function classifyIdentifierClaim(
  store: EventStore,
  tenantId: string,
  kind: ReservationKind,
  valueHash: string,
  customerId: string,
  now: number,
): Promise<{ owner: IdentifierOwner; expectedRevision: ExpectedRevision }> {
  const claim = await currentClaim(store, streams.reservation(tenantId, kind, valueHash));
  if (!claim) return { owner: 'free', expectedRevision: 'no_stream' };
  if (claim.customerId === customerId) return { owner: 'mine', expectedRevision: claim.revision };
  const { state: holder } = await loadAggregate(store, streams.customer(tenantId, claim.customerId), evolveCustomer);
  if (holder?.identifiers.some((i) => i.value.hash === valueHash)) return { owner: 'other', expectedRevision: claim.revision };
  const abandoned = now - claim.claimedAt > ABANDONED_CLAIM_AFTER_MS;
  return { owner: abandoned ? 'free' : 'pending', expectedRevision: claim.revision };
}

async function claimReservation(store: EventStore, streamId: string, customerId: string, expectedRevision: ExpectedRevision, context: CommandContext) {
  const event: ReservationClaimed = { type: 'ReservationClaimed', data: { customerId, claimedAt: context.now } };
  await store.append(streamId, [toNewEvent(event, context)], expectedRevision);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
