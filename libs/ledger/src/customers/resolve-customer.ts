import { randomUUID } from 'node:crypto';
import { EventStore, WrongExpectedVersionError } from '@ledger/event-store';
import { conflict } from '@ledger/platform';
import { CommandContext } from '../command-context';
import { CommandReads, Decision, runCommand } from '../run-command';
import { ClaimRevision, CustomerKeyTable } from '../customer-keys/customer-key-table.port';
import { streams } from '../streams';
import { Customer, IdentifierOwner, decideClaims, decideResolution, evolveCustomer, publicIdentifiers } from './customer.decider';
import { CustomerIdentifier, ProtectedValue } from './customer.events';
import { IdentifierInput, identityKey, normalizeIdentifiers } from './identifier-input';

/** The keyed hashes and encryption of identifier values (IdentifierProtection in @ledger/platform). */
export interface ValueProtection {
  /** The blind index: keyed by the tenant, so it finds a customer before the customer is known. */
  hash(tenantId: string, purpose: string, value: string): Promise<string>;
  /** Under the tenant's key: what is the bank's rather than a data subject's (its executive's or mandatary's RUT). */
  encrypt(tenantId: string, plaintext: string): Promise<string>;
  /** What a fact records of a customer's value: hash and ciphertext under the customer's own key (decision 0035). */
  protectForCustomer(tenantId: string, customerId: string, purpose: string, matchKey: string, plaintext?: string): Promise<ProtectedValue>;
  hashForCustomer(tenantId: string, customerId: string, purpose: string, matchKey: string): Promise<string>;
}

/** Uniqueness claims on blind index entries, in the key table (decision 0035). */
export type BlindIndex = Pick<CustomerKeyTable, 'readClaim' | 'writeClaim'>;

export interface CustomerIdentityDependencies {
  store: EventStore;
  protection: ValueProtection;
  blindIndex: BlindIndex;
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
 * Uniqueness of the userReference and of each identifier is claimed on its
 * blind index entry in the key table, at the revision read (`no_stream` for
 * a first claim), never in the event log: erasure must be able to delete
 * the entries (decision 0035). Order of writes: identifier claims, then the
 * userReference claim, then the customer fact. The customer fact is the
 * commit point: a claim is honoured only when the customer it names
 * recorded the value, so a crash in between leaves no visible half-state.
 *
 * The customer fact takes the one command path: it is appended only while
 * the customer's stream, and the stream of every other customer a claim was
 * judged on, is where the decision read it; otherwise the decision is taken
 * again (409 `concurrent_change` when that keeps happening). The claims are
 * the key table's, not the event store's: a claim written meanwhile by
 * another resolution throws out of the command path, and the whole
 * resolution is taken again here, as it is after waiting for a claim
 * another resolution has not committed yet; 409
 * `CUSTOMER_RESOLUTION_IN_PROGRESS` when that keeps happening.
 */
export async function resolveCustomer(
  deps: CustomerIdentityDependencies,
  request: ResolveCustomerRequest,
  context: CommandContext & { tenantId: string },
): Promise<ResolveCustomerResult> {
  const { store, protection, blindIndex } = deps;
  const { tenantId, now } = context;
  const normalized = normalizeIdentifiers(request.identifiers, now);
  const userReference = request.userReference.trim();
  const referenceEntry = await protection.hash(tenantId, 'user-reference', userReference);
  const identifierEntries = await Promise.all(normalized.map((i) => protection.hash(tenantId, 'identifier', identityKey(i))));
  const freshCustomerId = randomUUID();

  const decide = async (reads: CommandReads): Promise<Decision<Omit<ResolveCustomerResult, 'position'> | 'wait'>> => {
    const referenceClaim = await blindIndex.readClaim(tenantId, 'user-reference', referenceEntry);
    // A userReference claimed for a customer that is not registered yet is
    // adopted: whoever appends the customer fact first wins, the other decides again.
    const customerId = referenceClaim?.customerId ?? freshCustomerId;
    const stream = streams.customer(tenantId, customerId);
    const customer = await reads.fold(stream, evolveCustomer);

    const claims = await Promise.all(
      identifierEntries.map((entry, index) => classifyIdentifierClaim(deps, reads, tenantId, entry, identityKey(normalized[index]), customerId, now)),
    );
    if (decideClaims(claims.map((c) => c.owner)) === 'wait') return { answer: 'wait', position: null };
    // Under the resolved customer's key, so that the values are compared with what it holds and erased with it.
    const identifiers: CustomerIdentifier[] = await Promise.all(
      normalized.map(async (i) => ({
        system: i.system,
        type: i.type,
        value: await protection.protectForCustomer(tenantId, customerId, 'identifier', identityKey(i), i.value),
        verification: i.verification,
      })),
    );
    const protectedReference = await protection.protectForCustomer(tenantId, customerId, 'user-reference', userReference);
    const decision = decideResolution({ customerId, customer, userReference: protectedReference, identifiers, owners: claims.map((c) => c.owner), now });
    // The claims were judged above, on the same owners.
    if (decision.kind === 'wait') throw new Error('unreachable: the claims were judged on the same owners');
    const resolved = decision.events.reduce<Customer | null>(evolveCustomer, customer)!;
    const answer = { customerId, created: decision.created, identifiers: publicIdentifiers(resolved) };
    if (decision.events.length === 0) return { answer, position: null };

    // Written here, between the decision and the fact it commits: the claims must be held before the customer records the values.
    for (const [index, claim] of claims.entries()) {
      if (claim.owner === 'free') await blindIndex.writeClaim(tenantId, 'identifier', identifierEntries[index], { customerId, claimedAt: now }, claim.expectedRevision);
    }
    if (!referenceClaim) await blindIndex.writeClaim(tenantId, 'user-reference', referenceEntry, { customerId, claimedAt: now }, 'no_stream');
    return { record: { streamId: stream, facts: decision.events }, answer };
  };

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      const { result, position } = await runCommand(store, context, decide);
      if (result !== 'wait') return { ...result, position };
      await delay(PENDING_RETRY_MS);
    } catch (error) {
      // Only a claim in the key table throws it: the command path answers a moved stream itself.
      if (!(error instanceof WrongExpectedVersionError)) throw error;
    }
  }
  throw conflict('CUSTOMER_RESOLUTION_IN_PROGRESS', 'another resolution of this customer is in progress; retry shortly');
}

async function classifyIdentifierClaim(
  { protection, blindIndex }: CustomerIdentityDependencies,
  reads: CommandReads,
  tenantId: string,
  entry: string,
  matchKey: string,
  customerId: string,
  now: number,
): Promise<{ owner: IdentifierOwner; expectedRevision: ClaimRevision }> {
  const claim = await blindIndex.readClaim(tenantId, 'identifier', entry);
  if (!claim) return { owner: 'free', expectedRevision: 'no_stream' };
  if (claim.customerId === customerId) return { owner: 'mine', expectedRevision: claim.revision };
  // Read through the command path: the customer fact is recorded only while the holder is as judged here.
  const holder = await reads.fold(streams.customer(tenantId, claim.customerId), evolveCustomer);
  if (holder) {
    const held = await protection.hashForCustomer(tenantId, claim.customerId, 'identifier', matchKey);
    if (holder.identifiers.some((i) => i.value.hash === held)) return { owner: 'other', expectedRevision: claim.revision };
  }
  const abandoned = now - claim.claimedAt > ABANDONED_CLAIM_AFTER_MS;
  return { owner: abandoned ? 'free' : 'pending', expectedRevision: claim.revision };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
