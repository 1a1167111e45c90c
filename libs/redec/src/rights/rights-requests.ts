import { randomUUID } from 'node:crypto';
import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { CommandContext, CustomerIdentityDependencies, runCommand, toNewEvent } from '@ledger/ledger';
import { DomainError, IdentifierProtection, fieldRefused } from '@ledger/platform';
import { loadConsent } from '../consent/load-consent';
import { BankingCalendar } from '../calendar/banking-calendar';
import { CustomerReference, customerOfRequest } from '../interaction/create-interaction';
import { BASELINE_PROFILE, RIGHTS_DEADLINES } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { isProcessingBlockFact } from './processing-blocks';
import { LONGEST_DUE_SOON_MS } from './rights-clocks';
import { openRightsRequestsByDeadline } from './rights-requests.projection';
import type { ReadModel } from '@ledger/projections';
import {
  AnswerContent,
  ReceiveRightsRequest,
  RightsPolicy,
  RightsTransition,
  checkRectification,
  checkRightsRequest,
  decideDeadlineNotice,
  decideReceiveRightsRequest,
  decideRectification,
  decideRightsTransition,
  isOverdue,
} from './rights-request.decider';
import { RectifiedRecord, RightsRequestEvent, RightsRequestState, evolveRightsRequest } from './rights-request.events';

type Context = CommandContext & { tenantId: string };

export interface RightsRequestDependencies extends CustomerIdentityDependencies {
  protection: IdentifierProtection;
  calendar: BankingCalendar;
}

/** The terms of rights requests and the bank's clock skew, both the baseline Regulatory Profile's: the law is the same whatever configuration a consent was captured on. */
function policyOf(deps: RightsRequestDependencies): RightsPolicy {
  return { calendar: deps.calendar, deadlines: RIGHTS_DEADLINES, callerClockSkewMs: BASELINE_PROFILE.callerClockSkewMs };
}

export type ReceiveRightsRequestInput = Omit<ReceiveRightsRequest, 'rightsRequestId' | 'customerId' | 'descriptionCiphertext'> & { customer: CustomerReference; description?: string };

/** A request as its facts say, with the description opened (null once the customer's data was erased). */
export interface LoadedRightsRequest {
  state: RightsRequestState;
  facts: RightsRequestEvent[];
  description: string | null;
  /** Each correction's description opened, by rectificationId (null once erased). */
  rectifications: ReadonlyMap<string, string | null>;
  /** Still open after its deadline, at the time of the call. */
  overdue: boolean;
  /** The last position this call appended, or of the facts read; for read-your-writes. */
  position: number;
}

/** Records a request the data subject made: the customer by id or resolved inline, its description sealed under the customer's key. */
export async function receiveRightsRequest(deps: RightsRequestDependencies, input: ReceiveRightsRequestInput, context: Context): Promise<LoadedRightsRequest> {
  const { customer, description, ...request } = input;
  // Checked first: a refused request records nothing, not even the customer it names.
  if (request.redecConsentIds !== undefined) await checkConsentsOfCustomer(deps.store, request, customer, policyOf(deps), context);
  const subject = await customerOfRequest(deps, customer, context, () => checkRightsRequest(request, policyOf(deps), context.now));
  const rightsRequestId = randomUUID();
  const descriptionCiphertext = description === undefined ? undefined : (await deps.protection.protectForCustomer(context.tenantId, subject.customerId, 'rights-request-description', description)).ciphertext;
  const facts = decideReceiveRightsRequest({ ...request, rightsRequestId, customerId: subject.customerId, ...(descriptionCiphertext ? { descriptionCiphertext } : {}) }, policyOf(deps), context.now);
  const appended = await deps.store.append(redecStreams.rightsRequest(context.tenantId, rightsRequestId), facts.map((fact) => toNewEvent(fact, context)), 'no_stream');
  const state = facts.reduce<RightsRequestState | null>(evolveRightsRequest, null)!;
  return { state, facts, description: description ?? null, rectifications: new Map(), overdue: isOverdue(state, context.now), position: appended.position };
}

/**
 * The consents an opposition concerns must be the data subject's own
 * (decision 0070). A consent never changes its customer, so a plain read
 * decides; the customer is named by id, since an inline reference would be
 * resolved, and so perhaps recorded, before it could be compared.
 */
async function checkConsentsOfCustomer(store: EventStore, request: Pick<ReceiveRightsRequest, 'kind' | 'receivedAt' | 'redec' | 'redecConsentIds'>, customer: CustomerReference, policy: RightsPolicy, context: Context): Promise<void> {
  checkRightsRequest(request, policy, context.now);
  if (!('customerId' in customer)) throw fieldRefused('customerId', 'required_with_consents', 'An opposition that names consents names its customer by customerId.');
  for (const [index, redecConsentId] of (request.redecConsentIds ?? []).entries()) {
    if (!(await isConsentOfCustomer(store, context.tenantId, redecConsentId, customer.customerId))) {
      throw fieldRefused(`redecConsentIds[${index}]`, 'not_a_consent_of_the_customer', 'Each consent named is one of this customer, in this tenant.');
    }
  }
}

/** A consent never changes its customer, so a plain read of its stream decides; an unknown consent and another customer's are alike. */
async function isConsentOfCustomer(store: EventStore, tenantId: string, redecConsentId: string, customerId: string): Promise<boolean> {
  return (await loadConsent(store, tenantId, redecConsentId))?.grant.customerId === customerId;
}

/**
 * One step of the request's life, decided on its facts as recorded and
 * appended only while they still stand: to the request's stream, or for the
 * resolution and lifting of a block to the data subject's stream of blocks
 * (decision 0068). An answer records what the caller prepared for it
 * (AnswerContent).
 */
export async function transitionRightsRequest(
  deps: RightsRequestDependencies,
  rightsRequestId: string,
  transition: RightsTransition,
  context: Context,
  content: AnswerContent = {},
): Promise<LoadedRightsRequest> {
  const { position } = await runCommand(deps.store, context, async (reads) => {
    const recorded = await recordedFacts((streamId) => reads.events(streamId), context.tenantId, rightsRequestId);
    const state = recorded && recorded.state;
    const facts = decideRightsTransition(state, transition, policyOf(deps), context.now, content);
    const streamId = facts.every((fact) => isProcessingBlockFact(state!.kind, fact)) ? redecStreams.processingBlocks(context.tenantId, state!.customerId) : redecStreams.rightsRequest(context.tenantId, rightsRequestId);
    return { record: { streamId, facts }, answer: null };
  });
  return { ...(await readRightsRequest(deps, rightsRequestId, context))!, position: position! };
}

export interface RectifyRightsRequestInput {
  occurredAt: number;
  record: RectifiedRecord;
  description: string;
}

/**
 * Records a correction made for a rectification or a REDEC dispute
 * (decision 0072), decided on the request's facts as recorded: its
 * description sealed under the data subject's key, a consent it names
 * checked to be the subject's, and nothing sealed for one refused.
 */
export async function rectifyRightsRequest(deps: RightsRequestDependencies, rightsRequestId: string, input: RectifyRightsRequestInput, context: Context): Promise<LoadedRightsRequest> {
  const policy = policyOf(deps);
  const { position } = await runCommand(deps.store, context, async (reads) => {
    const recorded = await recordedFacts((streamId) => reads.events(streamId), context.tenantId, rightsRequestId);
    const request = checkRectification(recorded && recorded.state, input, policy, context.now);
    if (input.record.kind === 'redec_consent' && !(await isConsentOfCustomer(deps.store, context.tenantId, input.record.redecConsentId, request.customerId))) {
      throw fieldRefused('record.redecConsentId', 'not_a_consent_of_the_customer', 'The consent corrected is one of the data subject of the request, in this tenant.');
    }
    const { ciphertext } = await deps.protection.protectForCustomer(context.tenantId, request.customerId, 'rights-request-rectification', input.description);
    const facts = decideRectification(request, { rectificationId: randomUUID(), occurredAt: input.occurredAt, record: input.record, descriptionCiphertext: ciphertext }, policy, context.now);
    return { record: { streamId: redecStreams.rightsRequest(context.tenantId, rightsRequestId), facts }, answer: null };
  });
  return { ...(await readRightsRequest(deps, rightsRequestId, context))!, position: position! };
}

/**
 * Gives every open request of every tenant the deadline notice it calls
 * for now (decision 0069): the list of open requests by deadline finds the
 * candidates, up to the furthest a notice looks ahead; each is then
 * decided on its facts as recorded, and recorded only while they stand, so
 * a list that lags behind an answer or another sweep records nothing
 * twice. Answers how many notices were recorded.
 */
export async function noticeRightsRequestDeadlines(deps: { store: EventStore; readModel: ReadModel }, context: CommandContext): Promise<number> {
  let recorded = 0;
  for await (const listed of openRightsRequestsByDeadline(deps.readModel)) {
    if (listed.dueAt > context.now + LONGEST_DUE_SOON_MS) break;
    if (decideDeadlineNotice(listed, context.now).length === 0) continue;
    const { tenantId, rightsRequestId } = listed;
    const { position } = await runCommand(deps.store, { ...context, tenantId }, async (reads) => {
      const request = await recordedFacts((streamId) => reads.events(streamId), tenantId, rightsRequestId);
      const facts = decideDeadlineNotice(request && request.state, context.now);
      return facts.length === 0 ? { answer: null, position: null } : { record: { streamId: redecStreams.rightsRequest(tenantId, rightsRequestId), facts }, answer: null };
    });
    if (position !== null) recorded += 1;
  }
  return recorded;
}

/** The request and its facts; null for one the tenant does not hold. */
export async function readRightsRequest(deps: RightsRequestDependencies, rightsRequestId: string, context: Context): Promise<LoadedRightsRequest | null> {
  const recorded = await recordedFacts((streamId) => deps.store.readStream(streamId), context.tenantId, rightsRequestId);
  if (!recorded) return null;
  const { state, facts, position } = recorded;
  const received = facts[0].type === 'RightsRequestReceived' ? facts[0].data : undefined;
  const description = await openUnlessErased(deps.protection, context.tenantId, received?.descriptionCiphertext);
  const rectifications = new Map<string, string | null>();
  for (const fact of facts) {
    if (fact.type === 'RightsRequestRectified') rectifications.set(fact.data.rectificationId, await openUnlessErased(deps.protection, context.tenantId, fact.data.descriptionCiphertext));
  }
  return { state, facts, description, rectifications, overdue: isOverdue(state, context.now), position };
}

/** A request's facts as recorded (its own stream's and its blocks'); null for one the tenant does not hold. */
export async function readRightsRequestFacts(store: EventStore, tenantId: string, rightsRequestId: string): Promise<RightsRequestEvent[] | null> {
  return (await recordedFacts((streamId) => store.readStream(streamId), tenantId, rightsRequestId))?.facts ?? null;
}

/**
 * A request's facts in the order recorded: its own stream's, and for a
 * blocking request those of the data subject's stream of blocks that are
 * its own. `read` reads a whole stream (a command's reads, so that the
 * append is guarded on both).
 */
async function recordedFacts(
  read: (streamId: string) => Promise<RecordedEvent[]>,
  tenantId: string,
  rightsRequestId: string,
): Promise<{ state: RightsRequestState; facts: RightsRequestEvent[]; position: number } | null> {
  const own = await read(redecStreams.rightsRequest(tenantId, rightsRequestId));
  const received = own[0] as unknown as RightsRequestEvent | undefined;
  if (received?.type !== 'RightsRequestReceived') return null;
  const { kind, customerId } = received.data;
  const blocks = kind === 'blocking' ? await read(redecStreams.processingBlocks(tenantId, customerId)) : [];
  const recorded = [...own, ...blocks.filter((event) => (event.data as { rightsRequestId: string }).rightsRequestId === rightsRequestId)].sort((a, b) => a.position - b.position);
  const facts = recorded.map((event) => ({ type: event.type, data: event.data }) as RightsRequestEvent);
  return { state: facts.reduce<RightsRequestState | null>(evolveRightsRequest, null)!, facts, position: recorded[recorded.length - 1].position };
}

/** A value sealed under the customer's key, in clear; null when there is none, or once it was erased with the key. */
export async function openUnlessErased(protection: IdentifierProtection, tenantId: string, ciphertext: string | undefined): Promise<string | null> {
  if (ciphertext === undefined) return null;
  try {
    return await protection.decrypt(tenantId, ciphertext);
  } catch (error) {
    // Erased with the customer's key: the facts stay, the words are gone.
    if (error instanceof DomainError && error.code === 'customer_data_erased') return null;
    throw error;
  }
}
