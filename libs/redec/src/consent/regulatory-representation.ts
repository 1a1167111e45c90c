import { CreditExtensionEndReason } from './consent.events';
import { ConsentState, CreditExtension } from './consent.state';
import { ExtensionIneffectiveReason, effectiveExtensions, extensionIneffectiveReason, inCreditOrder, isExtended, revocationEffect } from './enablement';

export type ConsentStatus = 'granted' | 'extended' | 'revoked' | 'expired';

/** docs/reference/regulatory-representation.md, "Fields". */
export interface RegulatoryRepresentation {
  redecConsentId: string;
  internalConsentCode: string;
  customerId: string;
  status: ConsentStatus;
  channel: string;
  captureTiming: string;
  grantedAt: number;
  initialAccessValidUntil: number;
  finalityCode: string;
  mediumCode: string;
  objectiveCodes: string[];
  revocation: RevocationView | null;
  creditExtensions: CreditExtensionView[];
  artifactStatus: string;
  retentionUntil: number | null;
  retentionBasis: RetentionBasis | null;
}

/** docs/reference/regulatory-representation.md, "Revocation". */
export interface RevocationView {
  revokedAt: number;
  channel: string;
  /** Whether the revocation stops the consent now: never false on a `revoked` consent. */
  effective: boolean;
  /** When it took effect (the floor counts from there); null while kept without effect. */
  effectiveAt: number | null;
  /** When a correction in force last made it ineffective; null when none. */
  correctedAt: number | null;
}

export function revocationView(state: ConsentState): RevocationView | null {
  const { revocation } = state;
  const effect = revocationEffect(state);
  if (!revocation || !effect) return null;
  const lastCorrection = revocation.corrections[revocation.corrections.length - 1];
  return { revokedAt: revocation.revokedAt, channel: revocation.channel, ...effect, correctedAt: lastCorrection?.correctedAt ?? null };
}

/**
 * A credit extension as the regulatory read shows it
 * (docs/reference/regulatory-representation.md, "Credit extensions"), with
 * whether it keeps the consent for its obligation and, when not, why.
 */
export type CreditExtensionView = CreditExtension & { effective: boolean; ineffectiveReason: ExtensionIneffectiveReason | null };

/** The consent's extensions in force, in the order their credits were granted (then by reference): the order things happened, not the order reported. */
export function creditExtensionViews(state: ConsentState): CreditExtensionView[] {
  return inCreditOrder(state.creditExtensions).map((extension) => creditExtensionView(state, extension));
}

export function creditExtensionView(state: ConsentState, extension: CreditExtension): CreditExtensionView {
  const ineffectiveReason = extensionIneffectiveReason(state, extension);
  return { ...extension, effective: ineffectiveReason === null, ineffectiveReason };
}

/** What the retention floor counts from: the effective revocation, the end of the initial window, or how the last obligation ended. */
export type RetentionBasis = 'revocation' | 'loss_of_validity' | CreditExtensionEndReason;

/** A minimum conservation floor of 5 years from the effective revocation, the loss of validity or the extinction of the obligation (docs/reference/regulatory-representation.md, "Retention floor"). */
export const RETENTION_YEARS = 5;

/**
 * Status and retention as of `now` (docs/decisions/0015, 0023 and 0054):
 * - `revoked` once a revocation is in effect; the floor runs from its
 *   `effectiveAt` (`revocation`);
 * - `extended` while an effective credit extension is active; no floor;
 * - otherwise `granted` through the initial window and `expired` after it,
 *   the floor running from the later of the loss of validity and the end of
 *   the last obligation the consent kept, named by how it ended.
 * An extension that keeps nothing (enablement.ts) moves none of these.
 */
export function deriveStatus(state: ConsentState, now: number): { status: ConsentStatus; retentionUntil: number | null; retentionBasis: RetentionBasis | null } {
  const { grant } = state;
  const effect = revocationEffect(state);
  if (effect?.effective) return retained('revoked', effect.effectiveAt!, 'revocation');
  if (isExtended(state)) return { status: 'extended', retentionUntil: null, retentionBasis: null };
  if (now <= grant.initialAccessValidUntil) return { status: 'granted', retentionUntil: null, retentionBasis: null };
  const lastEnded = effectiveExtensions(state).reduce<CreditExtension | null>((last, e) => (last && last.endedAt! >= e.endedAt! ? last : e), null);
  return lastEnded && lastEnded.endedAt! > grant.initialAccessValidUntil
    ? retained('expired', lastEnded.endedAt!, lastEnded.endReason!)
    : retained('expired', grant.initialAccessValidUntil, 'loss_of_validity');
}

function retained(status: ConsentStatus, from: number, basis: RetentionBasis) {
  return { status, retentionUntil: addYears(from, RETENTION_YEARS), retentionBasis: basis };
}

export function regulatoryRepresentation(state: ConsentState, now: number): RegulatoryRepresentation {
  const { grant } = state;
  const derived = deriveStatus(state, now);
  return {
    redecConsentId: grant.redecConsentId,
    internalConsentCode: grant.internalConsentCode,
    customerId: grant.customerId,
    status: derived.status,
    channel: grant.channel,
    captureTiming: grant.captureTiming,
    grantedAt: grant.grantedAt,
    initialAccessValidUntil: grant.initialAccessValidUntil,
    finalityCode: grant.finalityCode,
    mediumCode: grant.mediumCode,
    objectiveCodes: grant.objectiveCodes,
    revocation: revocationView(state),
    creditExtensions: creditExtensionViews(state),
    artifactStatus: state.artifact.status,
    retentionUntil: derived.retentionUntil,
    retentionBasis: derived.retentionBasis,
  };
}

/** The same calendar instant `years` later (29 February becomes 28 February). */
export function addYears(epochMs: number, years: number): number {
  const date = new Date(epochMs);
  const target = new Date(epochMs);
  target.setUTCFullYear(date.getUTCFullYear() + years);
  if (target.getUTCMonth() !== date.getUTCMonth()) target.setUTCDate(0);
  return target.getTime();
}
