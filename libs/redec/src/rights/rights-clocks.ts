import { BankingCalendar } from '../calendar/banking-calendar';
import { addCalendarDays, endOfLocalDay, localDateOf } from '../calendar/local-time';
import { RightsRequestKind } from './rights-request.events';

/** The legal terms of a rights request, in the units the law counts them in (docs/decisions/0067-rights-request-clocks.md); the baseline Regulatory Profile carries Ley 21.719's (RIGHTS_DEADLINES). */
export interface RightsDeadlines {
  /** Art. 11: the answer is due within this many calendar days after the day of receipt. */
  answerCalendarDays: number;
  /** Art. 11: the one extension adds at most this many calendar days. */
  extensionCalendarDays: number;
  /** A request to block processing is answered within this many banking business days, and is not extended. */
  blockingBankingDays: number;
  /** The data subject's window to complain to the Agency of a refusal, in business days after the answer was sent. */
  complaintBusinessDays: number;
}

const DAY_MS = 86_400_000;
/** How long before its deadline an open request is announced as due soon (decision 0069): the service's choice, not the law's. */
const DUE_SOON_DAYS = 5;
/** For a blocking request, whose whole term is 2 banking days. */
const BLOCKING_DUE_SOON_DAYS = 1;
/** The most any request is announced before its deadline: how far ahead a sweep of deadlines looks. */
export const LONGEST_DUE_SOON_MS = Math.max(DUE_SOON_DAYS, BLOCKING_DUE_SOON_DAYS) * DAY_MS;

/** From when an open request is due soon: 5 days before its deadline, a blocking request 1 day before. */
export function dueSoonFrom(kind: RightsRequestKind, dueAt: number): number {
  return dueAt - (isExtensible(kind) ? DUE_SOON_DAYS : BLOCKING_DUE_SOON_DAYS) * DAY_MS;
}

/** Whether a request of this kind may have its term extended: every kind but blocking. */
export function isExtensible(kind: RightsRequestKind): boolean {
  return kind !== 'blocking';
}

/**
 * When the answer is due: the end (23:59:59.999, America/Santiago) of the
 * last day of the term, counted from the local day of receipt, which is day
 * 0 and never counts. Calendar days, or banking days for a blocking request;
 * an extended request gets the extension's days on top.
 */
export function rightsRequestDueAt(kind: RightsRequestKind, receivedAt: number, extended: boolean, calendar: BankingCalendar, deadlines: RightsDeadlines): number {
  const receivedOn = localDateOf(receivedAt);
  if (!isExtensible(kind)) return endOfLocalDay(calendar.addBankingDays(receivedOn, deadlines.blockingBankingDays));
  return endOfLocalDay(addCalendarDays(receivedOn, deadlines.answerCalendarDays + (extended ? deadlines.extensionCalendarDays : 0)));
}

/** The end of the complaint window of an answer sent at `sentAt`: its local day is day 0, then business days. */
export function complaintDeadline(sentAt: number, calendar: BankingCalendar, deadlines: RightsDeadlines): number {
  return endOfLocalDay(calendar.addBusinessDays(localDateOf(sentAt), deadlines.complaintBusinessDays));
}
