import { conflict, fieldRefused, notFound, unprocessable } from '@ledger/platform';
import { isSameCustomerId } from '@ledger/ledger';
import { RegulatoryProfile, acceptsRevocation, supportsChannel } from '../profiles/regulatory-profile';
import { checkOccurredAt } from './caller-instants';
import { Channel, ConsentEvent, CreditExtensionEndReason, RevocationRecorded } from './consent.events';
import { ConsentState, CreditExtension, evolveConsent } from './consent.state';
import { effectiveExtensions, extensionIneffectiveReason, revocationEffect } from './enablement';

export const REVOCATION_SOURCE_TYPES = ['direct', 'representative'] as const;

/** docs/reference/revocations.md, "Recording a revocation". */
export interface RevokeRequest {
  channel: Channel;
  occurredAt: number;
  sourceType: (typeof REVOCATION_SOURCE_TYPES)[number];
  identityAssurance: string;
}

/** docs/reference/credit-extensions.md, "Registering an extension". */
export interface RegisterExtensionRequest {
  customerTenantId: string;
  objectiveCode: string;
  creditOperationReference: string;
  creditGrantedAt: number;
  sourceSystem: string;
  sourceReference?: string;
}

export interface EndExtensionRequest {
  endReason: CreditExtensionEndReason;
  supersededByObligationReference?: string;
  /** When the obligation ended at the bank; the receipt when not sent. */
  occurredAt?: number;
}

/** An append-only annulment of a fact recorded by mistake (docs/reference/credit-extensions.md, "Annulling a fact recorded by mistake"). */
export interface AnnulRequest {
  reason: string;
  sourceReference: string;
}

/**
 * What the tenant's other consents say about an obligation: whether an
 * extension of it has ended (and was not annulled) on any of them. Read from
 * the obligations read model once it has caught up with the store.
 */
export interface ObligationElsewhere {
  extensionEnded: boolean;
}

/**
 * docs/reference/revocations.md, "Effective and kept revocations": a revocation
 * whose revoker was established the way the consent's profile accepts on that
 * channel is always recorded; it is effective unless an extension of a credit
 * granted before it is active (an `extended` consent is not revocable), in
 * which case it is kept and takes effect when the last such extension ends. A
 * credit granted after it, reported earlier, keeps nothing alive
 * (enablement.ts). `occurredAt` may neither precede the grant nor lie further
 * back than the profile's skew. `profile` is the consent's Regulatory Profile,
 * null when this deployment no longer loads it.
 */
export function decideRevoke(
  consent: ConsentState | null,
  profile: RegulatoryProfile | null,
  request: RevokeRequest,
  consentActionId: string,
  now: number,
): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  profile = loadedProfile(profile);
  if (!supportsChannel(profile, request.channel)) {
    throw fieldRefused('channel', 'channel_not_supported_by_regulatory_profile', "The consent's Regulatory Profile has no rules for this revocation channel.");
  }
  if (!acceptsRevocation(profile, request.channel, request.identityAssurance)) {
    throw fieldRefused('identityAssurance', 'identity_assurance_not_accepted', "This identityAssurance is not accepted for a revocation on this channel by the consent's Regulatory Profile.");
  }
  if (consent.revocation) throw conflict('redec_consent_already_revoked', 'A revocation of this consent is already recorded.');
  checkOccurredAt('occurredAt', request.occurredAt, now, profile);
  if (request.occurredAt < consent.grant.grantedAt) throw fieldRefused('occurredAt', 'occurred_at_before_grant', 'A consent cannot be revoked before it was granted.');
  const recorded: RevocationRecorded = {
    type: 'RevocationRecorded',
    data: {
      redecConsentId: consent.grant.redecConsentId,
      consentActionId,
      internalConsentCode: consent.grant.internalConsentCode,
      revokedAt: request.occurredAt,
      channel: request.channel,
      sourceType: request.sourceType,
      identityAssurance: request.identityAssurance,
      effective: true,
      recordedAt: now,
    },
  };
  // Whether it stops the consent is derived as every later read derives it, from the consent with this revocation.
  const { effective } = revocationEffect(evolveConsent(consent, recorded, consent.tenantId)!)!;
  return [{ ...recorded, data: { ...recorded.data, effective } }];
}

/**
 * docs/reference/credit-extensions.md, "Registering an extension": an
 * extension keeps the consent for the exact obligation it
 * arose from, a credit granted inside the initial window and before any
 * revocation. A credit granted before a recorded revocation needs a
 * non-empty `sourceReference`, and corrects the revocation (append-only) when
 * it was effective. An obligation whose extension ended on any consent of the
 * tenant can not be registered; nor can one that, registered, would keep
 * nothing alive (decision 0054): one superseding an obligation of this
 * consent, or a credit granted at or after the revocation. Reported in the
 * other order, the same credit is recorded and keeps nothing alive.
 */
export function decideRegisterExtension(
  consent: ConsentState | null,
  elsewhere: ObligationElsewhere,
  request: RegisterExtensionRequest,
  creditExtensionId: string,
  now: number,
): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  const { grant, revocation } = consent;
  const reference = request.creditOperationReference;
  if (!isSameCustomerId(request.customerTenantId, grant.customerId)) {
    throw unprocessable('redec_credit_extension_customer_mismatch', "The extension's customer is not the consent's.");
  }
  if (!grant.objectiveCodes.includes(request.objectiveCode)) {
    throw unprocessable('redec_objective_not_granted', 'The objective is not one the consent grants.');
  }
  if (request.creditGrantedAt > now) throw fieldRefused('creditGrantedAt', 'credit_granted_after_receipt', 'creditGrantedAt is later than the receipt.');
  if (request.creditGrantedAt < grant.grantedAt || request.creditGrantedAt > grant.initialAccessValidUntil) {
    throw unprocessable('redec_credit_granted_outside_initial_window', 'The credit was not granted while the consent was in its initial window.');
  }
  const registered: ConsentEvent = {
    type: 'CreditExtensionRegistered',
    data: {
      redecConsentId: grant.redecConsentId,
      creditExtensionId,
      internalConsentCode: grant.internalConsentCode,
      obligationSourceSystem: grant.obligationSourceSystem,
      objectiveCode: request.objectiveCode,
      creditOperationReference: reference,
      creditGrantedAt: request.creditGrantedAt,
      extendedAt: now,
      sourceSystem: request.sourceSystem,
      sourceReference: request.sourceReference ?? '',
    },
  };
  const after = evolveConsent(consent, registered, consent.tenantId)!;
  const ineffective = extensionIneffectiveReason(after, after.creditExtensions[after.creditExtensions.length - 1]);
  if (ineffective === 'superseding_obligation') throw supersedingObligationRefused();
  const same = consent.creditExtensions.find((e) => e.creditOperationReference === reference);
  if (same?.status === 'active') throw conflict('redec_credit_extension_already_registered', 'An active extension already covers this credit operation.');
  if (same || elsewhere.extensionEnded) {
    throw conflict('redec_credit_extension_already_ended', 'An extension of this obligation already ended: its end is reported once and the obligation is not extended again.');
  }
  if (revocation && request.creditGrantedAt >= revocation.revokedAt) {
    throw unprocessable('redec_credit_granted_after_revocation', 'A credit granted at or after the revocation of the consent cannot extend it.');
  }
  // A credit that precedes an accepted revokedAt, kept or not, is traced to the bank's record of it
  // (docs/reference/credit-extensions.md, "Correcting an accepted revocation").
  if (revocation && !request.sourceReference?.trim()) {
    throw unprocessable(
      'redec_revocation_correction_requires_source_reference',
      'A credit granted before the accepted revocation needs a non-empty sourceReference.',
    );
  }
  return withRevocationChange(consent, now, [registered]);
}

/**
 * docs/reference/credit-extensions.md, "Ending an extension": reported once;
 * `supersededByObligationReference` only, and always, with
 * `superseded_by_new_obligation`. The obligation ended at `occurredAt`, bounded
 * like every caller instant and not before the credit was granted.
 */
export function decideEndExtension(
  consent: ConsentState | null,
  profile: RegulatoryProfile | null,
  creditExtensionId: string,
  request: EndExtensionRequest,
  now: number,
): ConsentEvent[] {
  const extension = extensionInForce(consent, creditExtensionId);
  const superseding = request.endReason === 'superseded_by_new_obligation';
  const supersededBy = request.supersededByObligationReference;
  if (superseding && !supersededBy?.trim()) {
    throw fieldRefused('supersededByObligationReference', 'required', 'superseded_by_new_obligation needs the new obligation reference.');
  }
  if (!superseding && supersededBy !== undefined) {
    throw fieldRefused('supersededByObligationReference', 'only_with_superseded_by_new_obligation', 'supersededByObligationReference is only sent with superseded_by_new_obligation.');
  }
  if (supersededBy === extension.creditOperationReference) {
    throw fieldRefused('supersededByObligationReference', 'superseding_obligation_is_the_ended_one', 'An obligation cannot supersede itself.');
  }
  if (extension.status === 'ended') throw conflict('redec_credit_extension_already_ended', 'The end of this credit extension was already reported.');
  const endedAt = request.occurredAt ?? now;
  checkOccurredAt('occurredAt', endedAt, now, loadedProfile(profile));
  if (endedAt < extension.creditGrantedAt) throw fieldRefused('occurredAt', 'occurred_at_before_credit_granted', 'An obligation cannot end before it was granted.');
  return withRevocationChange(consent!, now, [
    {
      type: 'CreditExtensionEnded',
      data: { ...obligationOf(consent!, extension), endReason: request.endReason, supersededByObligationReference: supersededBy ?? null, endedAt },
    },
  ]);
}

/** An extension registered by mistake is annulled, once; whether it has ended or not, the read then behaves as if it had never been registered. */
export function decideAnnulExtension(consent: ConsentState | null, creditExtensionId: string, request: AnnulRequest, now: number): ConsentEvent[] {
  const extension = extensionInForce(consent, creditExtensionId);
  const { supersededByObligationReference } = extension;
  return withRevocationChange(consent!, now, [
    { type: 'CreditExtensionAnnulled', data: { ...obligationOf(consent!, extension), supersededByObligationReference, ...request, annulledAt: now } },
  ]);
}

/** The end of an extension reported by mistake is annulled, once: the extension is active again and can be ended anew. */
export function decideAnnulExtensionEnd(consent: ConsentState | null, creditExtensionId: string, request: AnnulRequest, now: number): ConsentEvent[] {
  const extension = extensionInForce(consent, creditExtensionId);
  if (extension.status !== 'ended') throw conflict('redec_credit_extension_not_ended', 'This credit extension has no end in force to annul.');
  const { supersededByObligationReference } = extension;
  return withRevocationChange(consent!, now, [
    { type: 'CreditExtensionEndAnnulled', data: { ...obligationOf(consent!, extension), supersededByObligationReference, ...request, annulledAt: now } },
  ]);
}

export function supersedingObligationRefused() {
  return unprocessable(
    'redec_superseding_obligation_does_not_inherit_consent',
    'This obligation superseded one of the consent’s obligations: the new obligation does not inherit the consent.',
  );
}

/** A profile removed from the deployment since the grant is the operator's fault, not the caller's. */
function loadedProfile(profile: RegulatoryProfile | null): RegulatoryProfile {
  if (!profile) throw conflict('regulatory_profile_unavailable', `The consent's Regulatory Profile is not loaded in this deployment.`);
  return profile;
}

/** The extension a command acts on: 404 when the consent never had it, 409 when it was annulled. */
function extensionInForce(consent: ConsentState | null, creditExtensionId: string): CreditExtension {
  if (!consent) throw notFound('consent');
  const extension = consent.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId);
  if (extension) return extension;
  if (consent.annulledCreditExtensions.some((e) => e.creditExtensionId === creditExtensionId)) {
    throw conflict('redec_credit_extension_annulled', 'This credit extension was annulled.');
  }
  throw notFound('credit extension');
}

function obligationOf(consent: ConsentState, extension: CreditExtension) {
  const { redecConsentId, obligationSourceSystem } = consent.grant;
  return { redecConsentId, creditExtensionId: extension.creditExtensionId, obligationSourceSystem, creditOperationReference: extension.creditOperationReference };
}

/**
 * Every command that changes whether the revocation is in effect records the
 * change beside its own facts: `RevocationTookEffect` when a kept revocation
 * starts to stop the consent, `RevocationCorrected` when an effective one
 * stops doing so (a credit granted before it, or an end annulled). The
 * effect itself is derived (revocationEffect); these facts are the audit
 * trail of when it changed, and they are written in the same append.
 */
function withRevocationChange(consent: ConsentState, now: number, events: ConsentEvent[]): ConsentEvent[] {
  const before = revocationEffect(consent);
  const afterState = events.reduce<ConsentState | null>((state, event) => evolveConsent(state, event, consent.tenantId), consent)!;
  const after = revocationEffect(afterState);
  if (!before || !after || before.effective === after.effective) return events;
  const { redecConsentId } = consent.grant;
  if (after.effective) {
    return [...events, { type: 'RevocationTookEffect', data: { redecConsentId, consentActionId: consent.revocation!.consentActionId, effectiveAt: after.effectiveAt! } }];
  }
  const keptBefore = new Set(effectiveExtensions(consent).filter((e) => e.status === 'active').map((e) => e.creditExtensionId));
  const revived = effectiveExtensions(afterState).find((e) => e.status === 'active' && !keptBefore.has(e.creditExtensionId))!;
  return [...events, { type: 'RevocationCorrected', data: { redecConsentId, creditExtensionId: revived.creditExtensionId, correctedAt: now } }];
}
