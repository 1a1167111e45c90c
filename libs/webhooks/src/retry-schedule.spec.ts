import { DELIVERY_ATTEMPTS, deliveryDelayMs, retryAfterMs } from './retry-schedule';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const middle = () => 0.5;
/** The waits BullMQ asks for: after attempts 1 to DELIVERY_ATTEMPTS - 1 (the last failure is not retried). */
const waits = (random: () => number) => Array.from({ length: DELIVERY_ATTEMPTS - 1 }, (_, i) => deliveryDelayMs(i + 1, random));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('deliveryDelayMs', () => {
  it('follows the documented table: 12 attempts, 5 s up to 8 h', () => {
    expect(DELIVERY_ATTEMPTS).toBe(12);
    expect(waits(middle)).toEqual([5 * SECOND, 30 * SECOND, 2 * MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 8 * HOUR]);
  });

  it('never waits less than before', () => {
    const base = waits(middle);
    base.slice(1).forEach((wait, i) => expect(wait).toBeGreaterThanOrEqual(base[i]));
  });

  it('spans about a day: the base schedule ends between 20 h and 28 h after the first attempt', () => {
    const total = sum(waits(middle));
    expect(total).toBe(23 * HOUR + 52 * MINUTE + 35 * SECOND);
    expect(total).toBeGreaterThanOrEqual(20 * HOUR);
    expect(total).toBeLessThanOrEqual(28 * HOUR);
  });

  it('jitters each wait by ±20 % of its base, from the injected random source', () => {
    const base = waits(middle);
    expect(waits(() => 0)).toEqual(base.map((wait) => wait * 0.8));
    expect(waits(() => 0.75)).toEqual(base.map((wait) => Math.round(wait * 1.1)));
    const highest = waits(() => 1 - Number.EPSILON);
    highest.forEach((wait, i) => {
      expect(wait).toBeLessThanOrEqual(base[i] * 1.2);
      expect(wait).toBeGreaterThan(base[i] * 1.19);
    });
  });

  it('so the whole schedule ends within 0.8 and 1.2 times the base, about 19 h to 28 h 40 min', () => {
    const total = sum(waits(middle));
    expect(sum(waits(() => 0))).toBe(total * 0.8);
    expect(sum(waits(() => 1 - Number.EPSILON))).toBeLessThanOrEqual(total * 1.2);
  });

  it('uses Math.random by default, within the bounds, in whole milliseconds', () => {
    const base = waits(middle);
    for (let run = 0; run < 200; run += 1) {
      waits(Math.random).forEach((wait, i) => {
        expect(Number.isInteger(wait)).toBe(true);
        expect(wait).toBeGreaterThanOrEqual(base[i] * 0.8);
        expect(wait).toBeLessThanOrEqual(base[i] * 1.2);
      });
    }
  });

  it('repeats the last wait past the table, should more attempts be configured', () => {
    expect(deliveryDelayMs(12, middle)).toBe(8 * HOUR);
    expect(deliveryDelayMs(100, middle)).toBe(8 * HOUR);
  });

  it('refuses an attempt count that is not a whole number from 1', () => {
    for (const attemptsMade of [0, -1, 1.5, Number.NaN]) expect(() => deliveryDelayMs(attemptsMade, middle)).toThrow(RangeError);
  });
});

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);

  it('is null without a usable header', () => {
    for (const header of [null, undefined, '', '   ', '-5', '+5', '1.5', '5s', '1e3', '0x10', 'soon', 'Nov 22 2026', '2026-11-22T12:10:00Z']) {
      expect({ header, wait: retryAfterMs(header, now) }).toEqual({ header, wait: null });
    }
  });

  it('reads delay-seconds', () => {
    expect(retryAfterMs('120', now)).toBe(120 * SECOND);
    expect(retryAfterMs(' 120 ', now)).toBe(120 * SECOND);
    expect(retryAfterMs('2026', now)).toBe(2026 * SECOND);
  });

  it('clamps to at least a second and at most an hour', () => {
    expect(retryAfterMs('0', now)).toBe(SECOND);
    expect(retryAfterMs('1', now)).toBe(SECOND);
    expect(retryAfterMs('3600', now)).toBe(HOUR);
    expect(retryAfterMs('3601', now)).toBe(HOUR);
    expect(retryAfterMs('99999999999999999999', now)).toBe(HOUR);
    expect(retryAfterMs('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(SECOND);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:00:00 GMT', now)).toBe(HOUR);
  });

  it('reads an HTTP-date in each of the three formats, as GMT', () => {
    expect(retryAfterMs('Sun, 22 Nov 2026 12:10:00 GMT', now)).toBe(10 * MINUTE);
    expect(retryAfterMs('Sunday, 22-Nov-26 12:10:00 GMT', now)).toBe(10 * MINUTE);
    expect(retryAfterMs('Sun Nov 22 12:10:00 2026', now)).toBe(10 * MINUTE);
    const second = Date.UTC(2026, 10, 2, 12, 0, 0);
    expect(retryAfterMs('Mon Nov  2 12:00:30 2026', second)).toBe(30 * SECOND);
    expect(retryAfterMs('Mon, 02 Nov 2026 12:00:30 GMT', second)).toBe(30 * SECOND);
  });

  it('accepts a leap second', () => {
    expect(retryAfterMs('Sun, 22 Nov 2026 12:09:60 GMT', now)).toBe(10 * MINUTE);
  });

  it('refuses a date that does not exist or is not in an HTTP-date format', () => {
    for (const header of [
      'Sun, 31 Feb 2026 12:00:00 GMT',
      'Sun, 00 Nov 2026 12:00:00 GMT',
      'Sun, 22 Nov 2026 24:00:00 GMT',
      'Sun, 22 Nov 2026 12:60:00 GMT',
      'Sun, 22 Nov 2026 12:00:61 GMT',
      'sun, 22 nov 2026 12:10:00 GMT',
      'Sun, 22 Nov 2026 12:10:00 UTC',
      'Sun, 22 Nov 2026 12:10:00 +0000',
      'Sun, 22 Nov 2026 12:10:00',
      'Sun, 22 Nov 26 12:10:00 GMT',
      'Sun, 22-Nov-26 12:10:00 GMT',
      'Sun Nov 22 12:10:00 2026 GMT',
    ]) {
      expect({ header, wait: retryAfterMs(header, now) }).toEqual({ header, wait: null });
    }
  });

  it('reads a two-digit year as the one within 50 years of now', () => {
    // From 2026: 75 is 2075 (ahead, clamped to an hour), 77 is 1977 (past, clamped to a second).
    expect(retryAfterMs('Friday, 01-Jan-75 00:00:00 GMT', now)).toBe(HOUR);
    expect(retryAfterMs('Friday, 01-Jan-77 00:00:00 GMT', now)).toBe(SECOND);
    // From 2090: 05 is 2105 (ahead), 41 is 2041 (past).
    const late = Date.UTC(2090, 0, 1);
    expect(retryAfterMs('Monday, 01-Jan-05 00:00:00 GMT', late)).toBe(HOUR);
    expect(retryAfterMs('Monday, 01-Jan-41 00:00:00 GMT', late)).toBe(SECOND);
  });
});
