import { ConfigError } from '@ledger/platform';
import { SHIPPED_HOLIDAYS } from './banking-calendar';
import { HolidayEntry, parseHolidayExtension, parseHolidayTable } from './holiday-table';
import { addCalendarDays, dayOfWeek, localDateOf } from './local-time';

const YEARS = [2024, 2025, 2026, 2027, 2028, 2029, 2030];
const { holidays } = SHIPPED_HOLIDAYS;
const datesOf = (entries: HolidayEntry[]) => [...new Set(entries.map((entry) => entry.date))].sort();
const inYear = (year: number, entries: HolidayEntry[] = holidays) => entries.filter((entry) => entry.date.startsWith(`${year}-`));
const named = (year: number, name: string) => inYear(year).filter((entry) => entry.name === name);

/** Easter Sunday, Gregorian (the anonymous algorithm of Meeus, "Astronomical Algorithms", ch. 8). */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The June solstice instant (Meeus ch. 27, good to about a minute), with ΔT taken as 69 s. */
function juneSolstice(year: number): number {
  const terms = [
    [485, 324.96, 1934.136], [203, 337.23, 32964.467], [199, 342.08, 20.186], [182, 27.85, 445267.112],
    [156, 73.14, 45036.886], [136, 171.52, 22518.443], [77, 222.54, 65928.934], [74, 296.72, 3034.906],
    [70, 243.58, 9037.513], [58, 119.81, 33718.147], [52, 297.17, 150.678], [50, 21.02, 2281.226],
    [45, 247.54, 29929.562], [44, 325.15, 31555.956], [29, 60.93, 4443.417], [18, 155.12, 67555.328],
    [17, 288.79, 4562.452], [16, 198.04, 62894.029], [14, 199.76, 31436.921], [12, 95.39, 14577.848],
    [12, 287.11, 31931.756], [12, 320.81, 34777.259], [9, 227.73, 1222.114], [8, 15.45, 16859.074],
  ];
  const rad = Math.PI / 180;
  const y = (year - 2000) / 1000;
  const jde0 = 2451716.56767 + 365241.62603 * y + 0.00325 * y ** 2 + 0.00888 * y ** 3 - 0.0003 * y ** 4;
  const t = (jde0 - 2451545) / 36525;
  const w = (35999.373 * t - 2.47) * rad;
  const dl = 1 + 0.0334 * Math.cos(w) + 0.0007 * Math.cos(2 * w);
  const s = terms.reduce((sum, [a, b, c]) => sum + a * Math.cos((b + c * t) * rad), 0);
  return (jde0 + (0.00001 * s) / dl - 2440587.5) * 86_400_000 - 69_000;
}

/** Ley 19.668: Tuesday to Thursday go back to that week's Monday, Friday goes on to the next Monday. */
function movedToMonday(date: string): string {
  const weekday = dayOfWeek(date);
  if (weekday === 5) return addCalendarDays(date, 3);
  if (weekday >= 2 && weekday <= 4) return addCalendarDays(date, 1 - weekday);
  return date;
}

/** Ley 20.299 art. 2: a Tuesday goes back to the previous Friday, a Wednesday on to that week's Friday. */
function evangelicalChurchesDay(year: number): string {
  const date = `${year}-10-31`;
  if (dayOfWeek(date) === 2) return addCalendarDays(date, -4);
  if (dayOfWeek(date) === 3) return addCalendarDays(date, 2);
  return date;
}

describe('the shipped Chilean holiday table', () => {
  it('states its version, source and the years it is complete for', () => {
    expect(SHIPPED_HOLIDAYS.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(SHIPPED_HOLIDAYS.source).toContain('Ley');
    expect(SHIPPED_HOLIDAYS.coverage).toEqual({ from: '2024-01-01', through: '2030-12-31' });
  });

  // The calendars published for these years, independently of the rules the table states.
  it.each([
    [
      2024,
      ['01-01', '03-29', '03-30', '05-01', '05-21', '06-09', '06-20', '06-29', '07-16', '08-15', '09-18', '09-19', '09-20', '10-12', '10-27', '10-31', '11-01', '11-24', '12-08', '12-25'],
    ],
    [
      2025,
      ['01-01', '04-18', '04-19', '05-01', '05-21', '06-20', '06-29', '07-16', '08-15', '09-18', '09-19', '10-12', '10-31', '11-01', '11-16', '12-08', '12-14', '12-25'],
    ],
    [2026, ['01-01', '04-03', '04-04', '05-01', '05-21', '06-21', '06-29', '07-16', '08-15', '09-18', '09-19', '10-12', '10-31', '11-01', '12-08', '12-25']],
  ])('holds exactly the published holidays of %i', (year, days) => {
    expect(datesOf(inYear(year))).toEqual(days.map((day) => `${year}-${day}`));
  });

  it.each(YEARS)('has the fixed holidays of %i', (year) => {
    const fixed = ['01-01', '05-01', '05-21', '07-16', '08-15', '09-18', '09-19', '11-01', '12-08', '12-25'].map((day) => `${year}-${day}`);
    expect(datesOf(inYear(year).filter((entry) => entry.kind === 'fixed'))).toEqual(fixed);
  });

  it.each(YEARS)('has Good Friday and Holy Saturday of %i from Easter', (year) => {
    const easter = easterSunday(year);
    expect(named(year, 'Viernes Santo').map((entry) => entry.date)).toEqual([addCalendarDays(easter, -2)]);
    expect(named(year, 'Sábado Santo').map((entry) => entry.date)).toEqual([addCalendarDays(easter, -1)]);
    expect(inYear(year).filter((entry) => entry.kind === 'easter')).toHaveLength(2);
  });

  it('computes Easter as published', () => {
    expect(YEARS.map(easterSunday)).toEqual(['2024-03-31', '2025-04-20', '2026-04-05', '2027-03-28', '2028-04-16', '2029-04-01', '2030-04-21']);
  });

  it.each(YEARS)('has the Día Nacional de los Pueblos Indígenas of %i on the local day of the June solstice (Ley 21.357)', (year) => {
    expect(inYear(year).filter((entry) => entry.kind === 'solstice').map((entry) => entry.date)).toEqual([localDateOf(juneSolstice(year))]);
  });

  it('places the solstice holiday on the dates published for 2024 to 2026', () => {
    expect(YEARS.map((year) => localDateOf(juneSolstice(year)))).toEqual([
      '2024-06-20',
      '2025-06-20',
      '2026-06-21',
      '2027-06-21',
      '2028-06-20',
      '2029-06-20',
      '2030-06-21',
    ]);
  });

  it.each([
    // San Pedro y San Pablo (29 June) and Encuentro de Dos Mundos (12 October), Ley 19.668.
    [2024, '2024-06-29', '2024-10-12'],
    [2025, '2025-06-29', '2025-10-12'],
    [2026, '2026-06-29', '2026-10-12'],
    [2027, '2027-06-28', '2027-10-11'],
    [2028, '2028-06-26', '2028-10-09'],
    [2029, '2029-07-02', '2029-10-15'],
    [2030, '2030-06-29', '2030-10-12'],
  ])('moves the Ley 19.668 holidays of %i to %s and %s', (year, saintPeter, twoWorlds) => {
    expect(named(year, 'San Pedro y San Pablo').map((entry) => entry.date)).toEqual([saintPeter]);
    expect(named(year, 'Encuentro de Dos Mundos').map((entry) => entry.date)).toEqual([twoWorlds]);
    expect([movedToMonday(`${year}-06-29`), movedToMonday(`${year}-10-12`)]).toEqual([saintPeter, twoWorlds]);
  });

  it.each([
    [2024, '2024-10-31'],
    [2025, '2025-10-31'],
    [2026, '2026-10-31'],
    [2027, '2027-10-31'],
    [2028, '2028-10-27'],
    [2029, '2029-11-02'],
    [2030, '2030-10-31'],
  ])('moves the Día de las Iglesias Evangélicas y Protestantes of %i to %s (Ley 20.299)', (year, date) => {
    expect(named(year, 'Día Nacional de las Iglesias Evangélicas y Protestantes').map((entry) => entry.date)).toEqual([date]);
    expect(evangelicalChurchesDay(year)).toBe(date);
  });

  it('has the Fiestas Patrias bridge days exactly where Ley 20.215 and Ley 20.983 put them, and no 2 January', () => {
    const conditional = holidays.filter((entry) => entry.kind === 'conditional').map((entry) => entry.date);
    const expected = YEARS.flatMap((year) => {
      const weekday = dayOfWeek(`${year}-09-18`);
      if (weekday === 6 || weekday === 2) return [`${year}-09-17`];
      if (weekday === 3) return [`${year}-09-20`];
      return [];
    });
    expect(conditional).toEqual(expected);
    expect(expected).toEqual(['2024-09-20', '2027-09-17', '2029-09-17', '2030-09-20']);
    expect(YEARS.filter((year) => dayOfWeek(`${year}-01-01`) === 0)).toEqual([]);
  });

  it('marks one-off holidays as such, all of them Sundays so far', () => {
    const oneOff = holidays.filter((entry) => entry.kind === 'one-off');
    expect(oneOff.map((entry) => entry.date)).toEqual(['2024-06-09', '2024-10-27', '2024-11-24', '2025-06-29', '2025-11-16', '2025-12-14']);
    expect(oneOff.every((entry) => dayOfWeek(entry.date) === 0)).toBe(true);
  });

  it('states a legal basis for every entry and the rule for every computed one', () => {
    expect(holidays.filter((entry) => !entry.basis)).toEqual([]);
    expect(holidays.filter((entry) => ['easter', 'solstice', 'movable', 'conditional'].includes(entry.kind) && !entry.rule)).toEqual([]);
  });
});

describe('holiday file validation', () => {
  const table = { version: '2026-11-22', source: 'test', coverage: { from: '2025-01-01', through: '2025-12-31' }, holidays: [] };
  const entry = { date: '2025-03-14', name: 'Feriado de prueba', kind: 'one-off' };

  it('accepts a well-formed table and extension', () => {
    expect(parseHolidayTable({ ...table, holidays: [entry] }, 'table.json')).toEqual({ ...table, holidays: [entry] });
    expect(parseHolidayExtension({ version: 'v1', source: 'DO', holidays: [{ ...entry, basis: 'Ley 99.999' }] }, 'extra.json').holidays).toEqual([
      { ...entry, basis: 'Ley 99.999' },
    ]);
  });

  it.each([
    [{ ...entry, date: '2025-02-30' }, 'date must be a calendar day YYYY-MM-DD'],
    [{ ...entry, date: '14/03/2025' }, 'date must be a calendar day YYYY-MM-DD'],
    [{ ...entry, name: ' ' }, 'name must be a non-empty string'],
    [{ ...entry, kind: 'oneoff' }, 'kind must be one of fixed, easter, solstice, movable, conditional, one-off'],
    [{ ...entry, dates: ['2025-03-15'] }, 'unknown field "dates"'],
    [{ ...entry, basis: 7 }, 'basis must be a non-empty string when present'],
    ['2025-03-14', 'must be an object'],
  ])('names the file and quotes the offending entry %p', (bad, message) => {
    const holidays = [entry, bad];
    expect(() => parseHolidayExtension({ version: 'v1', source: 'DO', holidays }, 'extra.json')).toThrow(
      new ConfigError(`extra.json: holidays[1] ${JSON.stringify(bad)}: ${message}`),
    );
  });

  it.each([
    [[], 'must be a JSON object with version, source and holidays'],
    [{ source: 'DO', holidays: [] }, 'version must be a non-empty string'],
    [{ version: 'v1', holidays: [] }, 'source must be a non-empty string'],
    [{ version: 'v1', source: 'DO', holidays: {} }, 'holidays must be an array'],
    [{ version: 'v1', source: 'DO', holidays: [], extra: true }, 'unknown field "extra"'],
    [
      { version: 'v1', source: 'DO', holidays: [], coverage: table.coverage },
      'coverage cannot be set here: the years covered are those of the shipped table, and extending them needs a release',
    ],
  ])('rejects the extension %p', (bad, message) => {
    expect(() => parseHolidayExtension(bad, 'extra.json')).toThrow(new ConfigError(`extra.json: ${message}`));
  });

  it.each([
    [{ ...table, coverage: undefined }, 'must be a JSON object with version, source, coverage and holidays'],
    [{ ...table, coverage: { from: '2025-01-01' } }, 'coverage must be { "from": "YYYY-MM-DD", "through": "YYYY-MM-DD" }'],
    [{ ...table, coverage: { from: '2026-01-01', through: '2025-12-31' } }, 'coverage.from must not be after coverage.through'],
    [{ ...table, holidays: [{ ...entry, date: '2026-01-01' }] }, `holidays[0] ${JSON.stringify({ ...entry, date: '2026-01-01' })}: date lies outside the coverage 2025-01-01..2025-12-31`],
  ])('rejects the table %p', (bad, message) => {
    expect(() => parseHolidayTable(bad, 'table.json')).toThrow(new ConfigError(`table.json: ${message}`));
  });
});
