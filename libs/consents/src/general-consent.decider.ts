import { conflict, fieldRefused } from '@ledger/platform';
import type { CaptureTiming, Channel, GrantEvidence, GrantableConfiguration } from '@ledger/redec';
import { GeneralConsentEvent, GeneralConsentGranted, GeneralConsentRevoked } from './general-consent.events';

export type GeneralConsentStatus = 'granted' | 'revoked';

export interface GeneralConsentState {
  tenantId: string;
  grant: Omit<GeneralConsentGranted['data'], 'grantRequestSha256'>;
  revocation: Omit<GeneralConsentRevoked['data'], 'consentId'> | null;
}

export function evolveGeneralConsent(state: GeneralConsentState | null, event: GeneralConsentEvent, tenantId: string): GeneralConsentState | null {
  switch (event.type) {
    case 'GeneralConsentGranted': {
      const { grantRequestSha256: _requestHash, ...grant } = event.data;
      return { tenantId, grant, revocation: null };
    }
    case 'GeneralConsentRevoked': {
      const { consentId: _consentId, ...revocation } = event.data;
      return state && { ...state, revocation };
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** A general consent does not expire: it holds until it is revoked. */
export function generalConsentStatus(state: GeneralConsentState): GeneralConsentStatus {
  return state.revocation ? 'revoked' : 'granted';
}

export interface GeneralGrantRequest {
  occurredAt: number;
  sourceSystem: string;
  sourceReference: string;
  evidence: GrantEvidence;
}

export interface GeneralGrantInput {
  request: GeneralGrantRequest;
  requestSha256: string;
  interaction: { interactionId: string; customerId: string; configuration: GrantableConfiguration };
  /** How it was captured; it must be the configuration's (embedded: `occurredAt` is the service's receipt of the acceptance). */
  capture: CaptureTiming;
  existing: GeneralConsentGranted['data'] | null;
  ids: { consentId: string; consentActionId: string };
  now: number;
}

/** A second grant of an interaction: an identical request answers the first, a different one is refused. */
export function repeatedGeneralGrant(existing: GeneralConsentGranted['data'], requestSha256: string): GeneralConsentGranted['data'] {
  if (existing.grantRequestSha256 === requestSha256) return existing;
  throw conflict('consent_interaction_already_granted', 'This interaction was already granted with a different request.');
}

export type GeneralGrantDecision = { kind: 'granted'; event: GeneralConsentGranted } | { kind: 'already_granted'; grant: GeneralConsentGranted['data'] };

/** What the general grant's rules read. */
export type GeneralGrantCheck = Pick<GeneralGrantInput, 'request' | 'capture' | 'now'> & { configuration: GrantableConfiguration };

/** The rules of a general consent: a configuration without REDEC, captured as it says, accepted no later than the receipt. */
export function checkGeneralGrant(input: GeneralGrantCheck): void {
  const { configuration, request, now } = input;
  if (configuration.redec) throw conflict('general_configuration_required', 'This configuration includes REDEC: its consents are REDEC grants.');
  if (configuration.captureTiming !== input.capture) {
    throw input.capture === 'deferred_external'
      ? conflict('capture_is_embedded', 'This configuration captures consent in the embedded flow, not through grant.')
      : conflict('configuration_not_embedded', 'This configuration captures consent outside the service, through grant.');
  }
  if (request.occurredAt > now) throw fieldRefused('occurredAt', 'occurred_at_after_receipt', 'occurredAt is later than the receipt of the grant.');
}

export function decideGeneralGrant(input: GeneralGrantInput): GeneralGrantDecision {
  const { request, interaction, now } = input;
  const { configuration } = interaction;
  if (input.existing) return { kind: 'already_granted', grant: repeatedGeneralGrant(input.existing, input.requestSha256) };
  checkGeneralGrant({ ...input, configuration });
  const event: GeneralConsentGranted = {
    type: 'GeneralConsentGranted',
    data: {
      ...input.ids,
      interactionId: interaction.interactionId,
      customerId: interaction.customerId,
      configurationId: configuration.configurationId,
      templateKey: configuration.templateKey,
      configurationVersion: configuration.version,
      consentTitle: configuration.title,
      consentText: configuration.text,
      channel: configuration.channel,
      captureTiming: configuration.captureTiming,
      grantedAt: request.occurredAt,
      recordedAt: input.capture === 'embedded' ? request.occurredAt : now,
      sourceSystem: request.sourceSystem,
      sourceReference: request.sourceReference,
      evidence: request.evidence,
      grantRequestSha256: input.requestSha256,
    },
  };
  return { kind: 'granted', event };
}

export interface GeneralRevocationRequest {
  occurredAt: number;
  channel: Channel;
  sourceSystem: string;
  sourceReference: string;
}

/** Withdraws the consent: once, at an instant between the grant and the receipt. */
export function decideGeneralRevocation(
  state: GeneralConsentState,
  request: GeneralRevocationRequest,
  consentActionId: string,
  now: number,
): GeneralConsentRevoked {
  if (state.revocation) throw conflict('consent_already_revoked', 'This consent was already revoked.');
  if (request.occurredAt > now) throw fieldRefused('occurredAt', 'occurred_at_after_receipt', 'occurredAt is later than the receipt of the revocation.');
  if (request.occurredAt < state.grant.grantedAt) throw fieldRefused('occurredAt', 'occurred_at_before_grant', 'occurredAt precedes the grant.');
  const { occurredAt, channel, sourceSystem, sourceReference } = request;
  return {
    type: 'GeneralConsentRevoked',
    data: { consentId: state.grant.consentId, consentActionId, revokedAt: occurredAt, channel, sourceSystem, sourceReference, recordedAt: now },
  };
}
