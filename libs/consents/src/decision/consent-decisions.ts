import { EventStore } from '@ledger/event-store';
import { CommandContext, Decision as CommandDecision, runCommand } from '@ledger/ledger';
import { DomainError, ErrorCodes, notFound, refusalOfPart } from '@ledger/platform';
import {
  CustomerReference,
  GrantConsentRequest,
  GrantDependencies,
  GrantEvidence,
  IdentifierForCheck,
  InteractionDependencies,
  checkOnlyPreparation,
  customerOfRequest,
  derivedUuid,
  prepareGrantRequest,
  profileOf,
  recordGrant,
} from '@ledger/redec';
import { recordGeneralGrant } from '../general-consent.commands';
import { consentStreams } from '../streams';
import { DecisionItemInput, decideConsentDecision } from './consent-decision.decider';
import { ConsentDecisionRecorded, ItemDecision, ItemGrantRequest } from './consent-decision.events';

type Context = CommandContext & { tenantId: string };
type Decision = ConsentDecisionRecorded['data'];

/** Resolving the customer, reading configurations and profiles, and recording grants. */
export interface DecisionDependencies extends InteractionDependencies, GrantDependencies {}

/** `POST /v1/consent-decisions` after its shape was validated. */
export interface ConsentDecisionRequest {
  customer: CustomerReference;
  /** How the certificates of what is accepted name the data subject, as the bank chose; null for none. */
  dataSubjectName: string | null;
  occurredAt: number;
  sourceSystem: string;
  sourceReference: string;
  items: Array<{
    configurationId: string;
    decision: ItemDecision;
    redec?: Omit<GrantConsentRequest, 'occurredAt' | 'sourceSystem' | 'sourceReference'>;
  }>;
}

/** The consent an accepted item recorded. */
export type ItemConsent = { kind: 'redec'; redecConsentId: string; internalConsentCode: string } | { kind: 'general'; consentId: string };

export interface CompletedConsentDecision {
  decision: Decision;
  /** Per item, in order: the consent it recorded, null for a declined item. */
  consents: Array<ItemConsent | null>;
  /** The last position recorded by this call, null when everything was recorded before. */
  position: number | null;
}

/** The evidence a general consent derived from a decision sent to the API keeps: the decision (its id the reference) is its record. */
const CONSENT_DECISION_EVIDENCE_METHOD = 'consent_decision';

/**
 * A decision sent to the API is named by its Idempotency-Key: a retry after
 * the process stopped finds the decision the first attempt recorded.
 */
export function consentDecisionIdFor(tenantId: string, idempotencyKey: string): string {
  return derivedUuid('consent-decision', tenantId, idempotencyKey);
}

/** An item of a decision sent to the API is an interaction opened and decided at once; its id, and so its consent's, derives from the decision. */
export function decisionItemInteractionId(tenantId: string, decisionId: string, configurationId: string): string {
  return derivedUuid('consent-decision-item', tenantId, decisionId, configurationId);
}

/**
 * Records a Multi-Consent decision: every item is checked with every rule
 * before anything is recorded (the customer is resolved inline only then);
 * the decision is appended as one fact, and the consents derived from it
 * are recorded after it. A retry with the same Idempotency-Key finds the
 * decision and completes it instead, answering the same.
 */
export async function recordConsentDecision(deps: DecisionDependencies, request: ConsentDecisionRequest, context: Context): Promise<CompletedConsentDecision> {
  const { tenantId, idempotencyKey, requestHash, now } = context;
  if (idempotencyKey === undefined || requestHash === undefined) throw new Error('a consent decision is recorded under an Idempotency-Key');
  const decisionId = consentDecisionIdFor(tenantId, idempotencyKey);
  const earlier = await loadConsentDecision(deps.store, tenantId, decisionId);
  if (earlier) {
    if (earlier.requestSha256 !== requestHash) throw new DomainError('unprocessable', ErrorCodes.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was used with a different request.');
    return completeConsentDecision(deps, earlier, context);
  }

  const { occurredAt, sourceSystem, sourceReference } = request;
  const generalEvidence: GrantEvidence = { kind: 'electronic', authentication: { method: CONSENT_DECISION_EVIDENCE_METHOD, reference: decisionId } };
  const decide = (items: DecisionItemInput[], identity: { identifiers: readonly IdentifierForCheck[]; field: 'identifiers' | 'customerId' } | null) =>
    decideConsentDecision({ tenantId, occurredAt, sourceSystem, sourceReference, capture: 'deferred_external', identity, items, generalEvidence, now });
  // Every item is checked before the customer is resolved, so a refused
  // request records no customer; only then is what the items record
  // protected and stored, under the customer's key (decision 0035).
  const checked = await prepareItems(deps, request, tenantId, decisionId, checkOnlyPreparation, null);
  const customer = await customerOfRequest(deps, request.customer, context, (identifiers, field) => decide(checked, { identifiers, field }));
  const items = await prepareItems(deps, request, tenantId, decisionId, deps, customer.customerId);
  // Personal data: under the customer's own key, erased with it, as an interaction keeps it.
  const dataSubjectNameCiphertext = request.dataSubjectName
    ? (await deps.protection.protectForCustomer(tenantId, customer.customerId, 'data-subject-name', request.dataSubjectName)).ciphertext
    : null;
  return recordDecision(deps, {
    type: 'ConsentDecisionRecorded',
    data: {
      decisionId,
      customerId: customer.customerId,
      occurredAt,
      recordedAt: now,
      sourceSystem,
      sourceReference,
      captureTiming: 'deferred_external',
      embedSessionId: null,
      dataSubjectNameCiphertext,
      requestSha256: requestHash,
      items: decide(items, null),
    },
  }, context);
}

async function prepareItems(
  deps: DecisionDependencies,
  request: ConsentDecisionRequest,
  tenantId: string,
  decisionId: string,
  preparation: Pick<GrantDependencies, 'protection' | 'blobs'>,
  customerId: string | null,
): Promise<DecisionItemInput[]> {
  const items: DecisionItemInput[] = [];
  // One after the other, so that of several refused items the first is the one reported.
  for (const [index, item] of request.items.entries()) {
    const configuration = await deps.findConfiguration(tenantId, item.configurationId);
    items.push({
      configurationId: item.configurationId,
      configuration,
      profile: profileOf(deps.profiles, configuration),
      interactionId: decisionItemInteractionId(tenantId, decisionId, item.configurationId),
      decision: item.decision,
      redec: item.redec && (await prepareItemGrant(preparation, tenantId, customerId ?? '', item.redec, `items[${index}]`)),
    });
  }
  return items;
}

async function prepareItemGrant(
  preparation: Pick<GrantDependencies, 'protection' | 'blobs'>,
  tenantId: string,
  customerId: string,
  grant: NonNullable<ConsentDecisionRequest['items'][number]['redec']>,
  at: string,
): Promise<ItemGrantRequest> {
  try {
    return await prepareGrantRequest(preparation, tenantId, customerId, grant);
  } catch (error) {
    if (error instanceof DomainError) throw refusalOfPart(error, at, { unnamed: `${at}.redec`, fieldOf: (field) => `${at}.redec.${field}` });
    throw error;
  }
}

/**
 * Records a decision as the first fact of its stream, through the one
 * command path, then records the consents it derives. A decision recorded
 * first under the same id (a concurrent retry, another read of the same
 * embed session) is the same decision: it is completed instead.
 */
export async function recordDecision(deps: DecisionDependencies, recorded: ConsentDecisionRecorded, context: Context): Promise<CompletedConsentDecision> {
  const stream = consentStreams.decision(context.tenantId, recorded.data.decisionId);
  const { result: decision, position } = await runCommand(deps.store, context, async (reads): Promise<CommandDecision<Decision>> => {
    const [first] = await reads.events(stream);
    if (first) return { answer: first.data as Decision, position: null };
    return { record: { streamId: stream, facts: [recorded] }, answer: recorded.data };
  });
  const completed = await completeConsentDecision(deps, decision, context);
  return { ...completed, position: later(position, completed.position) };
}

/**
 * Records each consent the decision derives, under its derived id: one
 * recorded before (by this request's first attempt, or a reader) answers as
 * recorded, so completing a decision again writes nothing. The consents'
 * rules read the decision's receipt, not the time of completion.
 */
export async function completeConsentDecision(deps: DecisionDependencies, decision: Decision, context: Context): Promise<CompletedConsentDecision> {
  const { decisionId, customerId, occurredAt, sourceSystem, sourceReference, requestSha256 } = decision;
  const grantContext = { ...context, causationId: decisionId };
  const options = { capture: decision.captureTiming, receivedAt: decision.recordedAt };
  const consents: CompletedConsentDecision['consents'] = [];
  let position: number | null = null;
  for (const { consent, interactionId, configuration } of decision.items) {
    const subject = { interactionId, customerId, configuration };
    if (consent === null) {
      consents.push(null);
    } else if (consent.kind === 'redec') {
      const granted = await recordGrant(deps, subject, { occurredAt, sourceSystem, sourceReference, ...consent.grant }, requestSha256, grantContext, options);
      consents.push({ kind: 'redec', redecConsentId: granted.grant.redecConsentId, internalConsentCode: granted.grant.internalConsentCode });
      position = later(position, granted.position);
    } else {
      const granted = await recordGeneralGrant(deps.store, subject, { occurredAt, sourceSystem, sourceReference, evidence: consent.evidence }, requestSha256, grantContext, options);
      consents.push({ kind: 'general', consentId: granted.grant.consentId });
      position = later(position, granted.position);
    }
  }
  return { decision, consents, position };
}

function later(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

export async function loadConsentDecision(store: EventStore, tenantId: string, decisionId: string): Promise<Decision | null> {
  const [first] = await store.readStream(consentStreams.decision(tenantId, decisionId), { maxCount: 1 });
  return first ? (first.data as Decision) : null;
}

/** A decision as recorded, its consents completed if the process that recorded it stopped first; 404 for another tenant's. */
export async function readConsentDecision(deps: DecisionDependencies, decisionId: string, context: Context): Promise<CompletedConsentDecision> {
  const decision = await loadConsentDecision(deps.store, context.tenantId, decisionId);
  if (!decision) throw notFound('consent decision');
  return completeConsentDecision(deps, decision, context);
}
