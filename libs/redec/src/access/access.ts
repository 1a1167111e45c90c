import { EventStore, canonicalJson } from '@ledger/event-store';
import { AggregateCache, CommandContext, CommandReads, Decision, ValueProtection, factsOfSameRequest, runCommand } from '@ledger/ledger';
import { sha256Hex } from '@ledger/platform';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { derivedUuid } from '../derived-id';
import { BASELINE_PROFILE, ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { ProcessingBlocks, evolveProcessingBlocks } from '../rights/processing-blocks';
import { normalizeRutField } from '../consent/grant.decider';
import { protectRut } from '../consent/protected-rut';
import { AccessRequest, AccessRequestInput, checkAccessRequest } from './access.decider';
import { AccessDecided, AccessEvent, AccessOutcome, AccessRecord, evolveAccess } from './access.events';
import { AccessPolicy, decideAuthorize, decideConfirm, repeatedDecision } from './access-record.decider';

type Context = CommandContext & { tenantId: string };

/** An access request is identified by its sourceSystem + sourceReference (docs/reference/accesses.md, "The answer"), so its id, and its stream, follow from them. */
export function redecAccessIdFor(tenantId: string, sourceSystem: string, sourceReference: string): string {
  return derivedUuid('redec-access', tenantId, sourceSystem, sourceReference);
}

export interface AuthorizeResult {
  decision: AccessDecided['data'];
  replayed: boolean;
  /** The decision's position when this call recorded it; null for a replay. */
  position: number | null;
}

/**
 * Decides on the consent's facts (docs/reference/accesses.md, "What is
 * weighed") read from the store (never a read model that may lag behind a
 * revocation) and records the decision before answering, so no answer goes out
 * that is not a fact. Any fault on the way is an error, never `authorized`.
 */
export interface AccessDependencies {
  store: EventStore;
  profiles: ProfileCatalog;
  protection: ValueProtection;
  /** Kept between calls by the service; without it every call folds the streams from their start. */
  aggregates?: AccessAggregates;
}

/** How many consents, and how many access records, authorize keeps folded: the ones in use, not the ledger. */
const HOT_STREAMS = 2_000;

/**
 * The streams authorize reads on every call, folded and kept between calls:
 * each call then reads only what was recorded since (usually nothing) and
 * parses no event it has parsed before, and a repeat of a decision already
 * folded reads nothing at all (decision 0037).
 */
export class AccessAggregates {
  readonly consents = new AggregateCache<ConsentState>(HOT_STREAMS);
  readonly accesses = new AggregateCache<AccessRecord>(HOT_STREAMS);
  readonly processingBlocks = new AggregateCache<ProcessingBlocks>(HOT_STREAMS);
}

export async function authorizeAccess({ store, profiles, protection, aggregates }: AccessDependencies, input: AccessRequestInput, context: Context): Promise<AuthorizeResult> {
  checkAccessRequest(input);
  const redecAccessId = redecAccessIdFor(context.tenantId, input.sourceSystem, input.sourceReference);
  const stream = redecStreams.access(context.tenantId, redecAccessId);
  // The request as sent identifies a repeat; what is recorded keeps the mandatary's RUT protected (its ciphertext differs each time).
  const requestSha256 = sha256Hex(canonicalJson(input));
  // A recorded decision never changes (later facts only confirm the access): a repeat of one already folded here is answered reading nothing.
  const known = aggregates?.accesses.lookup(stream)?.state;
  if (known) return { decision: repeatedDecision(known, requestSha256).decision, replayed: true, position: null };
  const { mandatary, ...fields } = input;
  const request: AccessRequest = mandatary
    ? { ...fields, mandatary: { identifierRut: await protectRut(protection, context.tenantId, 'mandatary-rut', normalizeRutField(mandatary.identifierRutInput, 'mandatary.identifierRutInput')) } }
    : fields;
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<Omit<AuthorizeResult, 'position'>>> => {
    const consentStream = redecStreams.consent(context.tenantId, request.redecConsentId);
    // Independent reads: a store over the network (PostgreSQL) answers both in one round trip's time.
    const [existing, consent] = await Promise.all([
      reads.fold(stream, evolveAccess, aggregates?.accesses),
      reads.fold(consentStream, evolveConsentOf(context.tenantId), aggregates?.consents),
    ]);
    const consentRevision = reads.revisionOf(consentStream);
    // Read only once the consent names its data subject; the decision is recorded only while their blocks stand as read.
    const processingBlocks = consent && (await readProcessingBlocks(reads, context.tenantId, consent, aggregates));
    const outcome = decideAuthorize({
      existing,
      consent,
      processingBlocks,
      consentRevision: typeof consentRevision === 'number' ? consentRevision : null,
      policy: accessPolicy(profiles, consent),
      request,
      requestSha256,
      redecAccessId,
      now: context.now,
    });
    // A repeat, or the same request decided concurrently and recorded first: its decision, or a refusal of a different body.
    if (outcome.replayed) return { answer: { decision: outcome.decision, replayed: true }, position: null };
    // Recorded only while the consent is still at the revision decided on: a revocation recorded meanwhile makes the decision be taken again.
    return { record: { streamId: stream, facts: [outcome.event] }, answer: { decision: outcome.event.data, replayed: false } };
  });
  return { ...result, position };
}

/** Records the outcome the bank reports for an authorized access (docs/reference/accesses.md, "Confirming the outcome"), judged on the consent's facts as they stand, and recorded only while they still do. */
export async function confirmAccess(deps: AccessDependencies, redecAccessId: string, outcome: AccessOutcome, context: Context): Promise<{ record: AccessRecord; position: number }> {
  const stream = redecStreams.access(context.tenantId, redecAccessId);
  const { result, position } = await runCommand(deps.store, context, async (reads): Promise<Decision<AccessRecord>> => {
    const recorded = await reads.events(stream);
    const record = recorded.reduce<AccessRecord | null>((state, e) => evolveAccess(state, e as unknown as AccessEvent), null);
    // The outcome of a request already recorded whose answer was lost.
    const [earlier] = factsOfSameRequest(recorded, context);
    if (record && earlier) return { answer: record, position: earlier.position };
    const consent = record && (await reads.fold(redecStreams.consent(context.tenantId, record.decision.redecConsentId), evolveConsentOf(context.tenantId), deps.aggregates?.consents));
    const processingBlocks = consent && (await readProcessingBlocks(reads, context.tenantId, consent, deps.aggregates));
    const confirmed = decideConfirm(record, consent, processingBlocks, accessPolicy(deps.profiles, consent), outcome, context.now);
    return { record: { streamId: stream, facts: [confirmed] }, answer: evolveAccess(record, confirmed)! };
  });
  return { record: result, position: position! };
}

/** The blocks of the consent's data subject, from their stream of blocks (decision 0068). */
function readProcessingBlocks(reads: CommandReads, tenantId: string, consent: ConsentState, aggregates: AccessAggregates | undefined): Promise<ProcessingBlocks | null> {
  return reads.fold(redecStreams.processingBlocks(tenantId, consent.grant.customerId), evolveProcessingBlocks, aggregates?.processingBlocks);
}

const evolveConsentOf = (tenantId: string) => (state: ConsentState | null, event: ConsentEvent) => evolveConsent(state, event, tenantId);

/**
 * The consent's profile decides the authorization's lifetime and the bank's
 * clock skew. A request naming no consent of the tenant is still held to the
 * baseline's skew, and a consent whose profile this deployment no longer
 * loads is too: the skew only bounds what the bank may state, never what is
 * authorized.
 */
function accessPolicy(profiles: ProfileCatalog, consent: ConsentState | null): AccessPolicy {
  const profile = (consent && profiles.get(consent.grant.regulatoryProfile)) ?? BASELINE_PROFILE;
  return { callerClockSkewMs: profile.callerClockSkewMs, authorizationTtlMs: profile.authorizationTtlMs };
}
