import { ConfigError, unavailable } from '@ledger/platform';
import { HolidayCoverage, HolidayEntry, HolidayTable, parseHolidayTable } from './holiday-table';
import holidaysCl from './holidays-cl.json';
import { addCalendarDays, dayOfWeek } from './local-time';

/**
 * The holiday table shipped with this release. Imported (not read from disk)
 * so that the compiler copies it into dist/ beside the code and jest loads the
 * same file; validated on load so that a bad edit fails at start-up.
 */
export const SHIPPED_HOLIDAYS: HolidayTable = parseHolidayTable(holidaysCl, 'holidays-cl.json');

export interface BankingCalendar {
  /** The shipped table's version, to record beside a computed deadline. */
  readonly version: string;
  readonly coverage: HolidayCoverage;
  /**
   * Monday to Friday, except Chilean national public holidays and 31 December
   * (Ley General de Bancos art. 38: banks do not serve the public that day).
   */
  isBankingDay(localDate: string): boolean;
  /**
   * The n-th banking day strictly after `localDate`: `localDate` itself never
   * counts, whether or not it is a banking day; n = 0 gives `localDate` back.
   */
  addBankingDays(localDate: string, n: number): string;
  /**
   * Monday to Friday, except Chilean national public holidays: the
   * "días hábiles" of administrative terms (Ley 19.880 art. 25), which a
   * data subject's complaint window is counted in. Unlike a banking day, 31
   * December counts.
   */
  isBusinessDay(localDate: string): boolean;
  /** The n-th business day strictly after `localDate`, counted as addBankingDays counts. */
  addBusinessDays(localDate: string, n: number): string;
}

/**
 * The banking calendar over the shipped holidays plus `extraHolidays` (an
 * operator's extension, see loadHolidayFile), merged by date. Extra dates
 * outside the shipped coverage are refused: the calendar would never consult
 * them, and a silent no-op is the wrong answer to someone declaring a holiday.
 */
export function bankingCalendar(extraHolidays: readonly HolidayEntry[] = []): BankingCalendar {
  const { coverage, version } = SHIPPED_HOLIDAYS;
  const outside = extraHolidays.find((entry) => entry.date < coverage.from || entry.date > coverage.through);
  if (outside) {
    throw new ConfigError(
      `Extra holiday ${JSON.stringify(outside)} lies outside the shipped table's coverage ${coverage.from}..${coverage.through}; extending the coverage needs a new table.`,
    );
  }
  const holidays = new Set([...SHIPPED_HOLIDAYS.holidays, ...extraHolidays].map((entry) => entry.date));

  const isBusinessDay = (localDate: string): boolean => {
    // Parsed first, so that a malformed date is a RangeError and the string comparisons below are date comparisons.
    const weekday = dayOfWeek(localDate);
    if (localDate < coverage.from || localDate > coverage.through) {
      // Past the table the holidays are unknown: a deadline computed anyway could be early, so refuse.
      throw unavailable(
        'banking_calendar_out_of_range',
        `The banking calendar covers ${coverage.from} to ${coverage.through} (holiday table ${version}); ${localDate} is outside it.`,
      );
    }
    return weekday !== 0 && weekday !== 6 && !holidays.has(localDate);
  };
  const isBankingDay = (localDate: string): boolean => isBusinessDay(localDate) && !localDate.endsWith('-12-31');

  const counting =
    (counts: (localDate: string) => boolean) =>
    (localDate: string, n: number): string => {
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Days to add must be a non-negative integer: ${n}`);
      let day = localDate;
      for (let counted = 0; counted < n; ) {
        day = addCalendarDays(day, 1);
        if (counts(day)) counted++;
      }
      return day;
    };

  return { version, coverage, isBankingDay, addBankingDays: counting(isBankingDay), isBusinessDay, addBusinessDays: counting(isBusinessDay) };
}
