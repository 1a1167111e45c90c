import { Provider } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { bankingCalendar, loadHolidayFile } from '@ledger/redec';

export const BANKING_CALENDAR = Symbol('BANKING_CALENDAR');

/**
 * The shipped holiday table, extended by LEDGER_HOLIDAYS_FILE when set. Read
 * before Nest starts, so a bad file fails start-up with its message instead
 * of aborting the process from inside a provider.
 */
export function bankingCalendarProvider(config: LedgerConfig): Provider {
  return { provide: BANKING_CALENDAR, useValue: bankingCalendar(config.holidaysFile ? loadHolidayFile(config.holidaysFile).holidays : []) };
}
