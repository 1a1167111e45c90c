/**
 * Local days in America/Santiago. A local day is a `YYYY-MM-DD` string (such
 * strings sort in date order); instants are epoch milliseconds. The offsets
 * come from the ICU time zone data in Node's `Intl`, so Chile's clock changes
 * (April and September, and any future rule the tz database records) are
 * followed without a table of our own.
 */
export const SANTIAGO_TIME_ZONE = 'America/Santiago';

const DAY_MS = 86_400_000;
/** No time zone is further than 14 hours from UTC, so a local day starts within this distance of its UTC midnight. */
const MAX_OFFSET_MS = 14 * 3_600_000;

const santiagoDate = new Intl.DateTimeFormat('en-US', {
  timeZone: SANTIAGO_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The local calendar day in Santiago on which the instant falls. */
export function localDateOf(epochMs: number): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`Not an instant: ${epochMs}`);
  const parts = Object.fromEntries(santiagoDate.formatToParts(epochMs).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

const santiagoClock = new Intl.DateTimeFormat('en-US', {
  timeZone: SANTIAGO_TIME_ZONE,
  hourCycle: 'h23',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The local wall-clock time in Santiago at the instant, `HH:MM:SS` (00 to 23 hours; the repeated hour of April shows twice). */
export function localTimeOf(epochMs: number): string {
  if (!Number.isFinite(epochMs)) throw new RangeError(`Not an instant: ${epochMs}`);
  const parts = Object.fromEntries(santiagoClock.formatToParts(epochMs).map((p) => [p.type, p.value]));
  return `${parts.hour}:${parts.minute}:${parts.second}`;
}

/**
 * The first instant of a local day. Chile changes its clocks at local
 * midnight, so a day may start at 01:00 (September: 00:00 does not exist) or
 * last 25 hours (April: 23:00 to 24:00 happens twice); searching for the
 * first instant whose local date is the day handles both without assuming
 * which offsets exist. The local date never decreases as instants increase,
 * which is what makes the search valid.
 */
export function startOfLocalDay(localDate: string): number {
  const known = dayStarts.get(localDate);
  if (known !== undefined) return known;
  const start = searchStartOfLocalDay(localDate);
  if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear();
  dayStarts.set(localDate, start);
  return start;
}

/**
 * Days already searched: a search converts about 27 instants to local dates
 * (90 µs), and deadlines ask for the same few days again and again (a page
 * of the overdue list, 50 of them). About eleven years of days fit.
 */
const dayStarts = new Map<string, number>();
const DAY_STARTS_KEPT = 4_096;

function searchStartOfLocalDay(localDate: string): number {
  const utcMidnight = parseLocalDate(localDate);
  let low = utcMidnight - MAX_OFFSET_MS;
  let high = utcMidnight + MAX_OFFSET_MS;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (localDateOf(middle) < localDate) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The last millisecond of a local day (23:59:59.999 local). On the April
 * change 23:59:59.999 occurs twice; the day ends at the second one, the
 * instant before the next local day begins.
 */
export function endOfLocalDay(localDate: string): number {
  return startOfLocalDay(addCalendarDays(localDate, 1)) - 1;
}

export function addCalendarDays(localDate: string, days: number): string {
  return new Date(parseLocalDate(localDate) + days * DAY_MS).toISOString().slice(0, 10);
}

/** 0 for Sunday to 6 for Saturday, as `Date#getUTCDay`. */
export function dayOfWeek(localDate: string): number {
  return new Date(parseLocalDate(localDate)).getUTCDay();
}

export function isLocalDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const utc = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over to 2 March; the round trip rejects it.
  return Number.isFinite(utc) && new Date(utc).toISOString().slice(0, 10) === value;
}

/** The UTC midnight of the calendar day: calendar arithmetic without any time zone. */
function parseLocalDate(localDate: string): number {
  if (!isLocalDate(localDate)) throw new RangeError(`Not a calendar day (YYYY-MM-DD): ${localDate}`);
  return Date.parse(`${localDate}T00:00:00Z`);
}
