export { type BankingCalendar, SHIPPED_HOLIDAYS, bankingCalendar } from './banking-calendar';
export {
  HOLIDAY_KINDS,
  type HolidayCoverage,
  type HolidayEntry,
  type HolidayExtension,
  type HolidayKind,
  type HolidayTable,
} from './holiday-table';
export { INITIAL_ACCESS_BANKING_DAYS, endOfBankingDaysAfter, initialAccessValidUntil } from './initial-access';
export { HOLIDAYS_FILE_ENV, loadHolidayFile } from './load-holiday-file';
export { SANTIAGO_TIME_ZONE, endOfLocalDay, localDateOf, localTimeOf, startOfLocalDay, addCalendarDays, dayOfWeek } from './local-time';
