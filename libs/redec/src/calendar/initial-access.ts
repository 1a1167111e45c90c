import { BankingCalendar } from './banking-calendar';
import { endOfLocalDay, localDateOf } from './local-time';

/** Ley 21.680: the initial access window is 15 banking business days (docs/reference/limits.md, "Regulatory time limits"). */
export const INITIAL_ACCESS_BANKING_DAYS = 15;

/**
 * docs/reference/grants.md, "The initial access window": the end (23:59:59.999,
 * America/Santiago) of the 15th banking business day after the local calendar
 * day of `grantedAt`. The grant's own local day is day 0 and never counts, even
 * when it is a banking day and the grant came at 00:00:01; see
 * docs/decisions/0011-banking-calendar.md.
 */
export function initialAccessValidUntil(grantedAt: number, calendar: BankingCalendar): number {
  return endOfBankingDaysAfter(grantedAt, INITIAL_ACCESS_BANKING_DAYS, calendar);
}

/** The end (23:59:59.999, America/Santiago) of the `days`-th banking business day after the local day of `instant`, which is day 0. */
export function endOfBankingDaysAfter(instant: number, days: number, calendar: BankingCalendar): number {
  return endOfLocalDay(calendar.addBankingDays(localDateOf(instant), days));
}
