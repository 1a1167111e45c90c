import { conflict, fieldRefused, notFound, unprocessable } from '@ledger/platform';
import { RegulatoryProfile, acceptsRevocation, supportsChannel } from '../profiles/regulatory-profile';
import { Channel, ConsentEvent, CreditExtensionEndReason } from './consent.events';
import { ConsentState } from './consent.state';

export const REVOCATION_SOURCE_TYPES = ['direct', 'representative'] as const;

/** Spec 2.12. */
export interface RevokeRequest {
  channel: Channel;
  occurredAt: number;
  sourceType: (typeof REVOCATION_SOURCE_TYPES)[number];
  identityAssurance: string;
}

/** Spec 2.10. */
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
}

/**
 * Spec 2.12 and 3: a revocation whose revoker was established the way the
 * consent's profile accepts on that channel is always recorded; it is
 * effective unless a credit had been granted before it (an active extension
 * whose credit predates `occurredAt`), in which case the consent keeps its
 * status. `profile` is the consent's Regulatory Profile, null when this
 * deployment no longer loads it.
 */
export function decideRevoke(
  consent: ConsentState | null,
  profile: RegulatoryProfile | null,
  request: RevokeRequest,
  consentActionId: string,
  now: number,
): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  if (!profile) throw conflict('regulatory_profile_unavailable', `The consent's Regulatory Profile is not loaded in this deployment.`);
  if (!supportsChannel(profile, request.channel)) {
    throw fieldRefused('channel', 'channel_not_supported_by_regulatory_profile', "The consent's Regulatory Profile has no rules for this revocation channel.");
  }
  if (!acceptsRevocation(profile, request.channel, request.identityAssurance)) {
    throw fieldRefused('identityAssurance', 'identity_assurance_not_accepted', "This identityAssurance is not accepted for a revocation on this channel by the consent's Regulatory Profile.");
  }
  if (consent.revocation) throw conflict('redec_consent_already_revoked', 'A revocation of this consent is already recorded.');
  if (request.occurredAt > now) throw fieldRefused('occurredAt', 'occurred_at_after_receipt', 'occurredAt is later than the receipt of the revocation.');
  if (request.occurredAt < consent.grant.grantedAt) throw fieldRefused('occurredAt', 'occurred_at_before_grant', 'A consent cannot be revoked before it was granted.');
  const creditBefore = consent.creditExtensions.some((e) => e.status === 'active' && e.creditGrantedAt < request.occurredAt);
  return [
    {
      type: 'RevocationRecorded',
      data: {
        redecConsentId: consent.grant.redecConsentId,
        consentActionId,
        internalConsentCode: consent.grant.internalConsentCode,
        revokedAt: request.occurredAt,
        channel: request.channel,
        sourceType: request.sourceType,
        identityAssurance: request.identityAssurance,
        effective: !creditBefore,
        recordedAt: now,
      },
    },
  ];
}

/**
 * Spec 2.10 and 3: an extension keeps the consent for the exact obligation it
 * arose from. A credit granted before an accepted revocation corrects it
 * (append-only) but only with a non-empty `sourceReference`; a credit granted
 * after an effective revocation cannot extend the consent.
 */
export function decideRegisterExtension(
  consent: ConsentState | null,
  request: RegisterExtensionRequest,
  creditExtensionId: string,
  now: number,
): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  const { grant, revocation } = consent;
  if (request.customerTenantId !== grant.customerId) {
    throw unprocessable('redec_credit_extension_customer_mismatch', "The extension's customer is not the consent's.");
  }
  if (!grant.objectiveCodes.includes(request.objectiveCode)) {
    throw unprocessable('redec_objective_not_granted', 'The objective is not one the consent grants.');
  }
  if (request.creditGrantedAt > now) throw fieldRefused('creditGrantedAt', 'credit_granted_after_receipt', 'creditGrantedAt is later than the receipt.');
  if (request.creditGrantedAt < grant.grantedAt || request.creditGrantedAt > grant.initialAccessValidUntil) {
    throw unprocessable('redec_credit_granted_outside_initial_window', 'The credit was not granted while the consent was in its initial window.');
  }
  if (consent.creditExtensions.some((e) => e.status === 'active' && e.creditOperationReference === request.creditOperationReference)) {
    throw conflict('redec_credit_extension_already_registered', 'An active extension already covers this credit operation.');
  }

  const registered: ConsentEvent = {
    type: 'CreditExtensionRegistered',
    data: {
      redecConsentId: grant.redecConsentId,
      creditExtensionId,
      internalConsentCode: grant.internalConsentCode,
      obligationSourceSystem: grant.obligationSourceSystem,
      objectiveCode: request.objectiveCode,
      creditOperationReference: request.creditOperationReference,
      creditGrantedAt: request.creditGrantedAt,
      extendedAt: now,
      sourceSystem: request.sourceSystem,
      sourceReference: request.sourceReference ?? '',
    },
  };
  if (!revocation?.effective) return [registered];
  if (request.creditGrantedAt >= revocation.revokedAt) {
    throw conflict('redec_consent_revoked', 'A credit granted after an effective revocation cannot extend the consent.');
  }
  if (!request.sourceReference?.trim()) {
    throw unprocessable(
      'redec_revocation_correction_requires_source_reference',
      'A credit granted before the accepted revocation needs a non-empty sourceReference to correct it.',
    );
  }
  return [registered, { type: 'RevocationCorrected', data: { redecConsentId: grant.redecConsentId, creditExtensionId, correctedAt: now } }];
}

/** Spec 2.10: reported once; `supersededByObligationReference` only, and always, with `superseded_by_new_obligation`. */
export function decideEndExtension(consent: ConsentState | null, creditExtensionId: string, request: EndExtensionRequest, now: number): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  const extension = consent.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId);
  if (!extension) throw notFound('credit extension');
  const superseding = request.endReason === 'superseded_by_new_obligation';
  if (superseding && !request.supersededByObligationReference?.trim()) {
    throw fieldRefused('supersededByObligationReference', 'required', 'superseded_by_new_obligation needs the new obligation reference.');
  }
  if (!superseding && request.supersededByObligationReference !== undefined) {
    throw fieldRefused('supersededByObligationReference', 'only_with_superseded_by_new_obligation', 'supersededByObligationReference is only sent with superseded_by_new_obligation.');
  }
  if (extension.status === 'ended') throw conflict('redec_credit_extension_already_ended', 'The end of this credit extension was already reported.');
  return [
    {
      type: 'CreditExtensionEnded',
      data: {
        redecConsentId: consent.grant.redecConsentId,
        creditExtensionId,
        endReason: request.endReason,
        supersededByObligationReference: request.supersededByObligationReference ?? null,
        endedAt: now,
      },
    },
  ];
}
