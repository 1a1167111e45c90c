import { fieldRefused } from '@ledger/platform';

/**
 * The grant's timing rule (docs/reference/grants.md, "Timing rules"),
 * applied to every instant a caller states for a fact of the
 * past (a grant's, a revocation's or an obligation end's `occurredAt`): not
 * after the receipt, and not further back than the Regulatory Profile allows.
 * A fact back-dated without limit would rewrite what the ledger already
 * answered (an access authorized, a window still open).
 */
export function checkOccurredAt(
  field: string,
  occurredAt: number,
  now: number,
  profile: { id: string; maxOccurredAtSkewMs: number },
): void {
  if (occurredAt > now) throw fieldRefused(field, 'occurred_at_after_receipt', `${field} is later than the receipt of the request.`);
  if (now - occurredAt > profile.maxOccurredAtSkewMs) {
    throw fieldRefused(field, 'occurred_at_beyond_profile_skew', `${field} lies further back than the ${profile.id} profile allows.`);
  }
}

/**
 * An instant the bank's clock produced for something that just happened
 * (`accessedAt`, `assertedAt`, `obligationGrantedAt`) may read up to the
 * profile's `callerClockSkewMs` later than the service clock without being
 * false: the two clocks are not the same.
 */
export function checkNotAfterReceipt(field: string, reason: string, instant: number, now: number, callerClockSkewMs: number): void {
  if (instant > now + callerClockSkewMs) throw fieldRefused(field, reason, `${field} is later than the receipt of the request.`);
}
