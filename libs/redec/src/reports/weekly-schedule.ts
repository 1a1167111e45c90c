import { addCalendarDays, dayOfWeek, endOfLocalDay, localDateOf, startOfLocalDay } from '../calendar/local-time';
import { ReportPeriod } from './report-records';

const HOUR = 3_600_000;
const SATURDAY = 6;
/** Saturday 01:00 in America/Santiago, as a BullMQ cron pattern read in that time zone. */
export const WEEKLY_REPORTS_CRON = { pattern: '0 1 * * 6', tz: 'America/Santiago' } as const;

/**
 * The weekly run due at `now`: the last Saturday 01:00 (America/Santiago) at
 * or before it, and the week Saturday to Friday that ended just before that
 * Saturday. A run that was missed (the service was down) is this same run,
 * made late; only the latest week is due, so a long outage makes one run, not
 * one per week missed. Chile changes its clocks at midnight between Saturday
 * and Sunday, so Saturday 01:00 always exists once.
 */
export function weeklyRunDue(now: number): { scheduledAt: number; period: ReportPeriod } {
  let saturday = localDateOf(now);
  saturday = addCalendarDays(saturday, -((dayOfWeek(saturday) - SATURDAY + 7) % 7));
  let scheduledAt = startOfLocalDay(saturday) + HOUR;
  if (scheduledAt > now) {
    saturday = addCalendarDays(saturday, -7);
    scheduledAt = startOfLocalDay(saturday) + HOUR;
  }
  return { scheduledAt, period: { periodStart: startOfLocalDay(addCalendarDays(saturday, -7)), periodEnd: endOfLocalDay(addCalendarDays(saturday, -1)) } };
}
