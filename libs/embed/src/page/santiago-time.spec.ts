import { santiagoInstant, santiagoTime } from './page-html';

describe("Santiago's clock", () => {
  it('reads a date and time on it as the instant it names, in summer time and in winter time', () => {
    expect(santiagoInstant('2026-11-29T14:05')).toBe(Date.UTC(2026, 10, 29, 17, 5));
    expect(santiagoInstant('2026-07-01T09:00')).toBe(Date.UTC(2026, 6, 1, 13, 0));
  });

  it('gives back what santiagoTime shows, every hour of a year', () => {
    for (let instant = Date.UTC(2026, 0, 1); instant < Date.UTC(2027, 0, 1); instant += 60 * 60_000 + 7 * 60_000) {
      const { date, time } = santiagoTime(instant);
      const [day, month, year] = date.split('-');
      const minute = Math.floor(instant / 60_000) * 60_000;
      const read = santiagoInstant(`${year}-${month}-${day}T${time}`);
      // The hour repeated when summer time ends is read as its first occurrence.
      expect(read === minute || read === minute - 60 * 60_000).toBe(true);
    }
  });

  it('refuses what is not a date and time', () => {
    for (const text of ['', '2026-11-29', '2026-02-30T10:00', '2026-11-29T25:00', '2026-11-29T14:61', '2026-13-01T10:00', '29-11-2026 14:05', '2026-11-29T14:05:00']) expect(santiagoInstant(text)).toBeNull();
  });
});
