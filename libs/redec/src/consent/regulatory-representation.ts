import { ConsentState } from './consent.state';

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
  revocation: { revokedAt: number; channel: string; effective: boolean; correctedAt: number | null } | null;
  creditExtensions: unknown[];
  artifactStatus: string;
  retentionUntil: number | null;
  retentionBasis: 'loss_of_validity' | null;
}

/** Spec 2.5: a minimum conservation floor of 5 years from the loss of validity (among others). */
export const RETENTION_YEARS = 5;

/**
 * The representation as of `now`. A consent is `granted` through the end of
 * its initial window and `expired` after it; retention is null while the
 * consent is valid and starts at the loss of validity.
 */
export function regulatoryRepresentation(state: ConsentState, now: number): RegulatoryRepresentation {
  const { grant } = state;
  const expired = now > grant.initialAccessValidUntil;
  return {
    redecConsentId: grant.redecConsentId,
    internalConsentCode: grant.internalConsentCode,
    customerId: grant.customerId,
    status: expired ? 'expired' : 'granted',
    channel: grant.channel,
    captureTiming: grant.captureTiming,
    grantedAt: grant.grantedAt,
    initialAccessValidUntil: grant.initialAccessValidUntil,
    finalityCode: grant.finalityCode,
    mediumCode: grant.mediumCode,
    objectiveCodes: grant.objectiveCodes,
    revocation: null,
    creditExtensions: [],
    artifactStatus: state.artifact.status,
    retentionUntil: expired ? addYears(grant.initialAccessValidUntil, RETENTION_YEARS) : null,
    retentionBasis: expired ? 'loss_of_validity' : null,
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
