import type { CustomerIdentifier } from '@ledger/ledger';
import type { FieldError } from '@ledger/platform';
import type { Channel, EvidenceKind } from '../consent/consent.events';
import type { RightsDeadlines } from '../rights/rights-clocks';

export const CHANNELS = ['digital', 'phone', 'in_person'] as const satisfies readonly Channel[];
export const EVIDENCE_KINDS = ['electronic', 'audio_recording', 'physical_document'] as const satisfies readonly EvidenceKind[];

/**
 * One identifier a channel needs before a consent interaction may be opened
 * on it. No identityAssurance level is universally sufficient, so what counts
 * is decided per channel and per profile (docs/reference/configurations.md,
 * "Regulatory Profiles").
 */
export interface IdentifierRequirement {
  /** Identifier type, lower-case as identifiers are normalized (`rut`). */
  type: string;
  /** When set, only an identifier of this issuing system satisfies the requirement. */
  system?: string;
  /** The integrator must have asserted how it verified the identifier: `method`, `sourceReference`, `verifiedAt`. */
  verificationRequired: boolean;
  /** When set (only with `verificationRequired`), the assertion's `method` must be one of these. */
  acceptedVerificationMethods?: string[];
}

export interface ChannelRules {
  /** The evidence kinds a grant on this channel may carry; never empty. */
  evidenceKinds: EvidenceKind[];
  identifiers: IdentifierRequirement[];
  /**
   * The `identityAssurance` a revocation received on this channel
   * (docs/reference/revocations.md, "Recording a revocation")
   * may declare. A revocation stops the consent, so one whose revoker was not
   * established the way this channel accepts is refused, not recorded.
   */
  revocationIdentityAssurance: string[];
}

/**
 * The rules a REDEC consent is held to, by channel. `baseline` ships with the
 * service (baseline.profile.json); other profiles come from
 * LEDGER_PROFILES_FILE. A channel absent from `channels` is not supported by
 * the profile: no configuration may publish it.
 */
export interface RegulatoryProfile {
  id: string;
  /** Bumped whenever the rules under this id change, so records can say which rules applied. */
  version: number;
  description?: string;
  /** How far before its receipt a grant's `occurredAt` may lie (baseline 7 calendar days; docs/reference/grants.md, "Timing rules"). */
  maxOccurredAtSkewMs: number;
  /** How far a call recording's instant may be from `occurredAt` (baseline 5 minutes; docs/reference/grants.md, "Timing rules"). */
  recordingToleranceMs: number;
  /**
   * How much later than the service clock an instant the bank's clock
   * produced may read without being false (`accessedAt`, `assertedAt`,
   * `obligationGrantedAt`): the two clocks are not the same (baseline 5 minutes).
   */
  callerClockSkewMs: number;
  /** How long an `authorized` access decision may be used: its `expiresAt` is `decidedAt` plus this (baseline 10 minutes). */
  authorizationTtlMs: number;
  /**
   * The terms of a data subject's rights request (Ley 21.719 in the
   * baseline; decision 0067). Rights requests are the data subject's, not a
   * configuration's, so the service reads the baseline's: a change of the
   * law is a new version of the baseline. Optional in other profiles.
   */
  rightsDeadlines?: RightsDeadlines;
  /** The REDEC medium code of each evidence kind: the medium is derived from the evidence, never sent. */
  mediumCodes: Record<EvidenceKind, string>;
  channels: Partial<Record<Channel, ChannelRules>>;
}

/** What the identifier check reads of an identifier: normalized system and type, and the verification assertion if any. */
export type IdentifierForCheck = Pick<CustomerIdentifier, 'system' | 'type' | 'verification'>;

export function supportsChannel(profile: RegulatoryProfile, channel: Channel): boolean {
  return profile.channels[channel] !== undefined;
}

export function acceptsEvidence(profile: RegulatoryProfile, channel: Channel, kind: EvidenceKind): boolean {
  return profile.channels[channel]?.evidenceKinds.includes(kind) ?? false;
}

/** Whether a revocation on `channel` with this `identityAssurance` meets the profile (docs/reference/revocations.md, "Recording a revocation"). */
export function acceptsRevocation(profile: RegulatoryProfile, channel: string, identityAssurance: string): boolean {
  return profile.channels[channel as Channel]?.revocationIdentityAssurance.includes(identityAssurance) ?? false;
}

export function mediumCodeFor(profile: RegulatoryProfile, kind: EvidenceKind): string {
  return profile.mediumCodes[kind];
}

/**
 * docs/reference/grants.md, "Opening an interaction": the identifiers and their
 * provenance must satisfy the channel and the profile. Returns one error per
 * unmet requirement (none when they are met). `field` names where the
 * identifiers came from, so that a caller that checks a stored customer's
 * identifiers can point at `customerId` instead.
 *
 * Missing identifiers are reported once, on `field` itself, with the reason
 * `required_identifier_missing` (the profile names the types it requires);
 * an identifier without the verification the channel needs, on its own path.
 */
export function checkIdentifiersForChannel(
  profile: RegulatoryProfile,
  channel: Channel,
  identifiers: readonly IdentifierForCheck[],
  field = 'identifiers',
): FieldError[] {
  const rules = profile.channels[channel];
  if (!rules) return [{ field: 'channel', reason: 'not_supported_by_regulatory_profile' }];
  const errors: FieldError[] = [];
  for (const requirement of rules.identifiers) {
    const index = identifiers.findIndex((i) => i.type === requirement.type && (requirement.system === undefined || i.system === requirement.system));
    if (index < 0) {
      if (!errors.some((e) => e.field === field)) errors.push({ field, reason: 'required_identifier_missing' });
      continue;
    }
    if (!requirement.verificationRequired) continue;
    const verification = identifiers[index].verification;
    const path = `${field}[${index}].verification`;
    if (!verification) {
      errors.push({ field: path, reason: 'verification_required' });
    } else if (!verification.method.trim() || !verification.sourceReference.trim() || !Number.isInteger(verification.verifiedAt)) {
      // Provenance is all three or nothing: an assertion that cannot be traced back proves nothing.
      errors.push({ field: path, reason: 'verification_provenance_incomplete' });
    } else if (requirement.acceptedVerificationMethods && !requirement.acceptedVerificationMethods.includes(verification.method)) {
      errors.push({ field: `${path}.method`, reason: 'verification_method_not_accepted' });
    }
  }
  return errors;
}
