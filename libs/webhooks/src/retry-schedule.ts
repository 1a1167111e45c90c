/**
 * When a failed delivery is tried again: a schedule spread over about a day,
 * so that a receiver down for a deploy, a night or a day still gets every
 * notification, and one down for longer is no longer called (Standard
 * Webhooks, "Deliverability and reliability").
 *
 *   after attempt | waits  | next attempt at (base)
 *   --------------|--------|-----------------------
 *        1        | 5 s    |  0 h 00 min 05 s
 *        2        | 30 s   |  0 h 00 min 35 s
 *        3        | 2 min  |  0 h 02 min 35 s
 *        4        | 5 min  |  0 h 07 min 35 s
 *        5        | 15 min |  0 h 22 min 35 s
 *        6        | 30 min |  0 h 52 min 35 s
 *        7        | 1 h    |  1 h 52 min 35 s
 *        8        | 2 h    |  3 h 52 min 35 s
 *        9        | 4 h    |  7 h 52 min 35 s
 *       10        | 8 h    | 15 h 52 min 35 s
 *       11        | 8 h    | 23 h 52 min 35 s   (attempt 12, the last)
 *
 * Each wait is jittered by ±20 %, so the last attempt falls between about
 * 19 h and 28 h 40 min after the first. Jitter spreads the retries of many
 * deliveries that failed together (one receiver's outage) instead of
 * replaying the burst; it is proportional rather than full (0 to the wait)
 * so that the schedule keeps its shape and still spans a day.
 */
const BASE_DELAYS_MS = [5, 30, 120, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800].map((seconds) => seconds * 1_000);

/** The first attempt and one retry per wait: BullMQ's `attempts`. */
export const DELIVERY_ATTEMPTS = BASE_DELAYS_MS.length + 1;

const JITTER = 0.2;

/** A receiver's Retry-After is honoured within these bounds: at least a second (no hot loop), at most an hour (it cannot park a notification for days). */
const MIN_RETRY_AFTER_MS = 1_000;
const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * The wait before the next attempt after `attemptsMade` attempts (BullMQ's
 * count, the failed one included: 1 after the first failure). Past the table,
 * the last wait repeats.
 */
export function deliveryDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) throw new RangeError('attemptsMade counts the attempts made, from 1');
  const base = BASE_DELAYS_MS[Math.min(attemptsMade, BASE_DELAYS_MS.length) - 1];
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/**
 * How long a receiver asked us to wait (RFC 9110 10.2.3: delay-seconds or an
 * HTTP-date), clamped to [1 s, 1 h]; null when there is no usable header.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  const until = /^\d+$/.test(value) ? now + Number(value) * 1_000 : httpDateMs(value, now);
  return until === null ? null : Math.min(Math.max(until - now, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// RFC 9110 5.6.7: a recipient accepts the preferred IMF-fixdate and the two obsolete formats.
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

function httpDateMs(value: string, now: number): number | null {
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(value))) return utc(Number(m[3]), m[2], m[1], m[4], m[5], m[6]);
  if ((m = RFC850_DATE.exec(value))) return utc(fullYear(Number(m[3]), now), m[2], m[1], m[4], m[5], m[6]);
  if ((m = ASCTIME_DATE.exec(value))) return utc(Number(m[6]), m[1], m[2], m[3], m[4], m[5]);
  return null;
}

/**
 * RFC 9110 5.6.7: a two-digit year more than 50 years ahead is the most
 * recent past year with those digits; so the year is the one with those
 * digits within 50 years either side of now.
 */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  if (year > current + 50) return year - 100;
  return year <= current - 50 ? year + 100 : year;
}

/** The instant, or null for a date that does not exist (31 Feb, 25:00). All HTTP-dates are GMT. */
function utc(year: number, monthName: string, day: string, hours: string, minutes: string, seconds: string): number | null {
  const month = MONTHS.indexOf(monthName);
  const date = new Date(Date.UTC(year, month, Number(day)));
  if (date.getUTCMonth() !== month || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 60) return null;
  return Date.UTC(year, month, Number(day), Number(hours), Number(minutes), Number(seconds));
}
