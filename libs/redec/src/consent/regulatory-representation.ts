import { ConsentState, CreditExtension } from './consent.state';

export type ConsentStatus = 'granted' | 'extended' | 'revoked' | 'expired';

/** Spec 2.5: the regulatory consent representation. */
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
  creditExtensions: CreditExtension[];
  artifactStatus: string;
  retentionUntil: number | null;
  retentionBasis: RetentionBasis | null;
}

/** Spec 2.5: the revocation as the regulatory read shows it. */
export interface RevocationView {
  revokedAt: number;
  channel: string;
  effective: boolean;
  correctedAt: number | null;
}

export function revocationView(revocation: ConsentState['revocation']): RevocationView | null {
  return revocation && { revokedAt: revocation.revokedAt, channel: revocation.channel, effective: revocation.effective, correctedAt: revocation.correctedAt };
}

export type RetentionBasis = 'effective_revocation' | 'loss_of_validity' | 'obligation_extinguished';

/** Spec 2.5: a minimum conservation floor of 5 years from the effective revocation, the loss of validity or the extinction of the obligation. */
export const RETENTION_YEARS = 5;

/**
 * Status and retention as of `now` (docs/decisions/0015):
 * - `revoked` while a revocation is in force; its floor runs from revokedAt;
 * - `extended` while a credit extension is active; no floor;
 * - once every extension has ended, a revocation kept without effect takes
 *   effect (`revoked`), its floor running from the obligation's extinction;
 * - otherwise `granted` through the initial window and `expired` after it,
 *   the floor running from the later of the loss of validity and the
 *   extinction of the last obligation.
 */
export function deriveStatus(state: ConsentState, now: number): { status: ConsentStatus; retentionUntil: number | null; retentionBasis: RetentionBasis | null } {
  const { revocation, creditExtensions, grant } = state;
  if (revocation?.effective) return retained('revoked', revocation.revokedAt, 'effective_revocation');
  if (creditExtensions.some((e) => e.status === 'active')) return { status: 'extended', retentionUntil: null, retentionBasis: null };
  const lastExtinction = Math.max(...creditExtensions.map((e) => e.endedAt ?? -Infinity));
  if (revocation && lastExtinction > -Infinity) return retained('revoked', lastExtinction, 'obligation_extinguished');
  if (now <= grant.initialAccessValidUntil) return { status: 'granted', retentionUntil: null, retentionBasis: null };
  return lastExtinction > grant.initialAccessValidUntil
    ? retained('expired', lastExtinction, 'obligation_extinguished')
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
    revocation: revocationView(state.revocation),
    creditExtensions: state.creditExtensions,
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
