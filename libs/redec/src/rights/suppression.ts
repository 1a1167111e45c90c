import { SuppressedRecord, SuppressionAssessment } from './rights-request.events';
import { SubjectReport } from './subject-report';

/**
 * Where each of the data subject's records stands for erasure at `now`
 * (decision 0073), read from the subject's report as of `now`: a REDEC
 * consent by its retention floor as the regulatory representation states
 * it, a general consent as having none. What a suppression's answer
 * records, so the bank can tell the person what is erased when, and why.
 */
export function assessSuppression(report: Pick<SubjectReport, 'redecConsents' | 'generalConsents' | 'legalHolds'>, now: number): SuppressionAssessment {
  const records: SuppressedRecord[] = [
    ...report.redecConsents.map(({ representation: { redecConsentId, retentionUntil, retentionBasis } }): SuppressedRecord => ({
      record: { kind: 'redec_consent', redecConsentId },
      reason: retentionUntil === null ? 'in_force' : retentionUntil < now ? 'past_floor' : 'within_floor',
      retentionUntil,
      retentionBasis,
    })),
    ...report.generalConsents.map(({ consentId }): SuppressedRecord => ({ record: { kind: 'general_consent', consentId }, reason: 'no_floor', retentionUntil: null, retentionBasis: null })),
  ];
  const inForce = records.some((record) => record.reason === 'in_force');
  const floors = records.filter((record) => record.reason === 'within_floor').map((record) => record.retentionUntil!);
  return {
    assessedAt: now,
    records,
    legalHoldsInForce: report.legalHolds.filter((hold) => hold.releasedAt === null).map((hold) => hold.legalHoldId),
    // Erasure takes the instant after the floor, as the retention verdict does.
    erasableFrom: inForce ? null : floors.length === 0 ? now : Math.max(...floors) + 1,
  };
}
