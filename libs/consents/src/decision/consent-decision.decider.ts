import { DomainError, conflict, fieldRefused, notFound, refusalOfPart, refusingAs } from '@ledger/platform';
import {
  CaptureTiming,
  GrantEvidence,
  GrantableConfiguration,
  IdentifierForCheck,
  RegulatoryProfile,
  checkGrant,
  checkInteraction,
  grantPolicyOf,
  redecConsentIdFor,
} from '@ledger/redec';
import { generalConsentIdFor } from '../general-consent.commands';
import { checkGeneralGrant } from '../general-consent.decider';
import { ConsentDecisionItem, ItemDecision, ItemGrantRequest } from './consent-decision.events';

/** How many configurations one decision may hold: a page or a request a person can still read. */
export const MAX_DECISION_ITEMS = 20;

/** Fields of a grant that a decision sends once, for all its items. */
const DECISION_FIELDS = new Set(['occurredAt', 'sourceSystem', 'sourceReference']);

export interface DecisionItemInput {
  configurationId: string;
  /** The configuration as published in the tenant; null when the tenant has none with this id. */
  configuration: GrantableConfiguration | null;
  /** The configuration's Regulatory Profile (REDEC only); null when this deployment has not loaded it. */
  profile: RegulatoryProfile | null;
  /** The item's interaction, which its consent's id derives from. */
  interactionId: string;
  decision: ItemDecision;
  /** The item's REDEC grant as sent, its RUT protected and its bytes stored; absent when not sent. */
  redec?: ItemGrantRequest;
}

export interface ConsentDecisionInput {
  tenantId: string;
  occurredAt: number;
  sourceSystem: string;
  sourceReference: string;
  capture: CaptureTiming;
  /**
   * The customer's identifiers and where they came from, checked against each
   * REDEC configuration's channel and profile; null when they were checked
   * already (an embed session checks them when it is opened).
   */
  identity: { identifiers: readonly IdentifierForCheck[]; field: 'identifiers' | 'customerId' } | null;
  items: DecisionItemInput[];
  /** What an accepted general item keeps as its evidence: the decision is its record. */
  generalEvidence: GrantEvidence;
  /** The receipt of the decision. */
  now: number;
}

/**
 * Decides every item of a Multi-Consent decision with the rules its consent
 * will be recorded under, so that nothing is recorded unless everything can
 * be: the first item that breaks a rule refuses the whole decision, its error
 * naming the item's fields (`items[1].redec.evidence.kind`). Answers the
 * items as the decision records them.
 */
export function decideConsentDecision(input: ConsentDecisionInput): ConsentDecisionItem[] {
  const { items } = input;
  if (items.length === 0) throw fieldRefused('items', 'too_few_items', 'A decision holds at least one item.');
  if (items.length > MAX_DECISION_ITEMS) throw fieldRefused('items', 'too_many_items', `A decision holds at most ${MAX_DECISION_ITEMS} items.`);
  if (input.occurredAt > input.now) throw fieldRefused('occurredAt', 'occurred_at_after_receipt', 'occurredAt is later than the receipt of the decision.');
  return items.map((item, index) => {
    if (items.findIndex((other) => other.configurationId === item.configurationId) !== index) {
      throw fieldRefused(`items[${index}].configurationId`, 'duplicate', 'A decision holds each configuration once.');
    }
    return decideItem(input, item, `items[${index}]`);
  });
}

function decideItem(input: ConsentDecisionInput, item: DecisionItemInput, at: string): ConsentDecisionItem {
  const { configurationId, interactionId, decision } = item;
  const configuration = refusingAs(`${at}.configurationId`, () => {
    if (!item.configuration) throw notFound('configuration');
    if (input.identity) checkInteraction(item.configuration, item.profile, input.identity.identifiers, input.identity.field, item.configuration.redec ? 'redec' : 'general');
    return item.configuration;
  });
  const kind = configuration.redec ? 'redec' : 'general';
  if (item.redec && kind === 'general') throw fieldRefused(`${at}.redec`, 'not_for_general_configuration', `${at}: a general configuration takes no redec grant.`);
  if (item.redec && decision === 'declined') throw fieldRefused(`${at}.redec`, 'not_for_declined_item', `${at}: a declined item takes no redec grant.`);
  const recorded = { configurationId, configuration, decision, interactionId };

  if (decision === 'declined') {
    // Declining is deciding on the configuration as it is captured: one captured on the consent page is declined there.
    if (configuration.captureTiming !== input.capture) throw refusalOfPart(captureConflict(kind, input.capture), at, { unnamed: `${at}.configurationId` });
    return { ...recorded, consent: null };
  }
  const { occurredAt, sourceSystem, sourceReference, now, capture } = input;
  if (kind === 'general') {
    asItem(at, () => checkGeneralGrant({ configuration, request: { occurredAt, sourceSystem, sourceReference, evidence: input.generalEvidence }, capture, now }));
    return { ...recorded, consent: { kind, consentId: generalConsentIdFor(input.tenantId, interactionId), evidence: input.generalEvidence } };
  }
  if (!item.redec) throw fieldRefused(`${at}.redec`, 'required', `${at}: an accepted REDEC configuration needs its redec grant.`);
  const grant = item.redec;
  asItem(at, () => {
    if (!item.profile) throw conflict('regulatory_profile_unavailable', `The configuration's Regulatory Profile is not loaded in this deployment.`);
    checkGrant({ request: { occurredAt, sourceSystem, sourceReference, ...grant }, configuration, policy: grantPolicyOf(item.profile), capture, now });
  });
  return { ...recorded, consent: { kind, redecConsentId: redecConsentIdFor(input.tenantId, interactionId), grant } };
}

/** Runs a grant rule for an item: its fields are the item's (`items[1].redec.evidence.kind`) but for those the decision sends once. */
function asItem(at: string, rule: () => void): void {
  try {
    rule();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    throw refusalOfPart(error, at, { unnamed: `${at}.configurationId`, fieldOf: (field) => (DECISION_FIELDS.has(field) ? field : `${at}.redec.${field}`) });
  }
}

/** The refusal the grant rules give a configuration captured otherwise. */
function captureConflict(kind: 'redec' | 'general', capture: CaptureTiming): DomainError {
  return capture === 'deferred_external'
    ? conflict(kind === 'redec' ? 'redec_capture_is_embedded' : 'capture_is_embedded', 'This configuration captures consent in the embedded flow, on the consent page.')
    : conflict('configuration_not_embedded', 'This configuration captures consent outside the service.');
}
