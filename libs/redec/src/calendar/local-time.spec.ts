import { addCalendarDays, dayOfWeek, endOfLocalDay, isLocalDate, localDateOf, localTimeOf, startOfLocalDay } from './local-time';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('local days in America/Santiago', () => {
  it.each([
    // A Friday evening in Santiago is already Saturday in UTC.
    ['2025-03-07T22:30:00-03:00', '2025-03-07'],
    ['2025-03-08T02:59:59.999Z', '2025-03-07'],
    ['2025-03-08T03:00:00Z', '2025-03-08'],
    // Winter time (UTC-4).
    ['2025-07-10T03:59:59.999Z', '2025-07-09'],
    ['2025-07-10T04:00:00Z', '2025-07-10'],
    // April 2025: at 03:00Z the clock goes back from 24:00 (-03) to 23:00 (-04); the hour repeats on Saturday.
    ['2025-04-06T02:59:59.999Z', '2025-04-05'],
    ['2025-04-06T03:00:00Z', '2025-04-05'],
    ['2025-04-06T03:59:59.999Z', '2025-04-05'],
    ['2025-04-06T04:00:00Z', '2025-04-06'],
    // September 2025: at 04:00Z the clock jumps from 24:00 (-04) to 01:00 (-03); Sunday has no 00:xx.
    ['2025-09-07T03:59:59.999Z', '2025-09-06'],
    ['2025-09-07T04:00:00Z', '2025-09-07'],
    ['2026-04-05T03:30:00Z', '2026-04-04'],
    ['2026-04-05T04:00:00Z', '2026-04-05'],
    ['2026-09-06T03:59:59.999Z', '2026-09-05'],
    ['2026-09-06T04:00:00Z', '2026-09-06'],
  ])('%s falls on %s', (instant, localDate) => {
    expect(localDateOf(at(instant))).toBe(localDate);
  });

  it.each([
    ['2025-03-24', '2025-03-24T23:59:59.999-03:00'],
    ['2025-07-09', '2025-07-09T23:59:59.999-04:00'],
    // The 25-hour Saturday: the day ends at the second 23:59:59.999, in winter time.
    ['2025-04-05', '2025-04-05T23:59:59.999-04:00'],
    ['2025-04-06', '2025-04-06T23:59:59.999-04:00'],
    ['2025-09-06', '2025-09-06T23:59:59.999-04:00'],
    // The 23-hour Sunday.
    ['2025-09-07', '2025-09-07T23:59:59.999-03:00'],
    ['2026-04-04', '2026-04-04T23:59:59.999-04:00'],
    ['2026-09-05', '2026-09-05T23:59:59.999-04:00'],
    ['2026-09-06', '2026-09-06T23:59:59.999-03:00'],
  ])('%s ends at %s', (localDate, end) => {
    expect(endOfLocalDay(localDate)).toBe(at(end));
  });

  it.each([
    ['2025-04-05', 25],
    ['2025-09-07', 23],
    ['2026-04-04', 25],
    ['2026-09-06', 23],
    ['2025-09-08', 24],
  ])('%s lasts %i hours', (localDate, hours) => {
    expect(endOfLocalDay(localDate) + 1 - startOfLocalDay(localDate)).toBe(hours * HOUR);
  });

  it('starts the September day at 01:00, the first local time that exists', () => {
    expect(startOfLocalDay('2025-09-07')).toBe(at('2025-09-07T01:00:00-03:00'));
  });

  it('ends every day from 2024 to 2030 on that day, one millisecond before the next begins', () => {
    for (let day = '2024-01-01'; day <= '2030-12-31'; day = addCalendarDays(day, 1)) {
      const end = endOfLocalDay(day);
      expect([localDateOf(end), localDateOf(end + 1)]).toEqual([day, addCalendarDays(day, 1)]);
    }
  });

  it('answers a day asked again the same, also once more days were asked than it keeps', () => {
    const days: string[] = [];
    for (let day = '2014-01-01'; day <= '2030-12-31'; day = addCalendarDays(day, 1)) days.push(day);
    const first = days.map(startOfLocalDay);
    expect(days.map(startOfLocalDay)).toEqual(first);
    for (const [i, day] of days.entries()) expect(localDateOf(first[i]) + ' ' + localDateOf(first[i] - 1)).toBe(`${day} ${addCalendarDays(day, -1)}`);
  });

  it('does calendar arithmetic across months, leap days and years', () => {
    expect(addCalendarDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addCalendarDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addCalendarDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addCalendarDays('2026-01-01', -1)).toBe('2025-12-31');
    expect([dayOfWeek('2025-03-02'), dayOfWeek('2025-03-03'), dayOfWeek('2025-03-08')]).toEqual([0, 1, 6]);
  });

  it.each(['2025-02-29', '2025-02-30', '2025-13-01', '2025-3-1', '2025-03-01T00:00', '', 20250301])('rejects %p as a calendar day', (value) => {
    expect(isLocalDate(value)).toBe(false);
  });

  it('refuses what is not a calendar day or an instant', () => {
    expect(() => endOfLocalDay('2025-02-30')).toThrow(RangeError);
    expect(() => localDateOf(Number.NaN)).toThrow(RangeError);
  });
});

describe('localTimeOf', () => {
  it('gives the wall-clock time in Santiago, the repeated hour of April twice and midnight as 00', () => {
    expect(localTimeOf(Date.parse('2026-04-04T23:30:00-03:00'))).toBe('23:30:00');
    expect(localTimeOf(Date.parse('2026-04-04T23:30:00-04:00'))).toBe('23:30:00');
    expect(localTimeOf(Date.parse('2026-09-06T01:00:00-03:00'))).toBe('01:00:00');
    expect(localTimeOf(Date.parse('2026-06-01T00:00:05-04:00'))).toBe('00:00:05');
  });
});
