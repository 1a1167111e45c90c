import type { Tenant } from '@ledger/ledger';
import { addCalendarDays, dayOfWeek, endOfLocalDay, localDateOf, localTimeOf, startOfLocalDay } from '../calendar/local-time';
import { ReportPeriod } from './report-records';
import { ReportKind } from './report-layout';

const HOUR = 3_600_000;
const SATURDAY = 6;
const TIME_ZONE = 'America/Santiago';

/**
 * A run of reports the service makes on its own, for every tenant that opted
 * in: which files, when (a BullMQ cron pattern read in Santiago time), the
 * run due at an instant with the period it covers, and since when a tenant
 * wants it (a run scheduled before the tenant opted in is not made for it).
 */
export interface ReportSchedule {
  /** The job scheduler's name, and the actor (`scheduler:<name>`) of the requests it makes. */
  name: 'weekly-reports' | 'daily-rights-report';
  kinds: readonly ReportKind[];
  cron: { pattern: string; tz: typeof TIME_ZONE };
  runDue(now: number): { scheduledAt: number; period: ReportPeriod };
  optedInSince(tenant: Tenant): number | null;
}

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
  let scheduledAt = oneInTheMorning(saturday);
  if (scheduledAt > now) {
    saturday = addCalendarDays(saturday, -7);
    scheduledAt = oneInTheMorning(saturday);
  }
  return { scheduledAt, period: { periodStart: startOfLocalDay(addCalendarDays(saturday, -7)), periodEnd: endOfLocalDay(addCalendarDays(saturday, -1)) } };
}

/**
 * The daily run due at `now`: the last 01:00 (America/Santiago) at or before
 * it, and the local day before that one. As for the weekly run, a missed run
 * is made late, and only the latest day is due.
 */
export function dailyRunDue(now: number): { scheduledAt: number; period: ReportPeriod } {
  let day = localDateOf(now);
  let scheduledAt = oneInTheMorning(day);
  if (scheduledAt > now) {
    day = addCalendarDays(day, -1);
    scheduledAt = oneInTheMorning(day);
  }
  const reported = addCalendarDays(day, -1);
  return { scheduledAt, period: { periodStart: startOfLocalDay(reported), periodEnd: endOfLocalDay(reported) } };
}

/**
 * 01:00 of a local day. Chile moves its clocks at midnight, so a day starts
 * at 00:00, or at 01:00 on the September change (00:00 does not exist that
 * day), and 01:00 exists once either way.
 */
function oneInTheMorning(localDate: string): number {
  const start = startOfLocalDay(localDate);
  return localTimeOf(start) >= '01:00:00' ? start : start + HOUR;
}

/** RDC30 and RDC31 of each week, every Saturday at 01:00 (decision 0034). */
export const WEEKLY_REPORTS: ReportSchedule = {
  name: 'weekly-reports',
  kinds: ['rdc30', 'rdc31'],
  cron: { pattern: '0 1 * * 6', tz: TIME_ZONE },
  runDue: weeklyRunDue,
  optedInSince: (tenant) => (tenant.settings.weeklyReports ? tenant.weeklyReportsSince : null),
};

/** RDC40 of each day, every day at 01:00 (decision 0074). */
export const DAILY_RIGHTS_REPORT: ReportSchedule = {
  name: 'daily-rights-report',
  kinds: ['rdc40'],
  cron: { pattern: '0 1 * * *', tz: TIME_ZONE },
  runDue: dailyRunDue,
  optedInSince: (tenant) => (tenant.settings.dailyRightsReport ? tenant.dailyRightsReportSince : null),
};

export const REPORT_SCHEDULES: readonly ReportSchedule[] = [WEEKLY_REPORTS, DAILY_RIGHTS_REPORT];
