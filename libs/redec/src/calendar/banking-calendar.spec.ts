import { ConfigError, DomainError } from '@ledger/platform';
import { bankingCalendar } from './banking-calendar';

const calendar = bankingCalendar();

describe('the banking calendar', () => {
  it.each([
    ['2025-03-03', true, 'a Monday'],
    ['2025-03-07', true, 'a Friday'],
    ['2025-03-08', false, 'a Saturday'],
    ['2025-03-09', false, 'a Sunday'],
    ['2025-04-18', false, 'Good Friday'],
    ['2025-09-18', false, 'Independencia Nacional'],
    ['2024-09-20', false, 'the Ley 20.215 bridge Friday'],
    ['2025-09-20', false, 'a Saturday after Fiestas Patrias'],
    ['2025-09-22', true, 'the Monday after Fiestas Patrias'],
    ['2025-12-30', true, 'the last banking day of 2025'],
    ['2025-12-31', false, '31 December, a Wednesday'],
    ['2026-12-31', false, '31 December, a Thursday'],
    ['2026-01-02', true, 'the Friday after New Year'],
    ['2027-06-28', false, 'San Pedro y San Pablo moved to Monday'],
    ['2027-06-29', true, '29 June 2027, whose holiday moved'],
    ['2029-07-02', false, 'San Pedro y San Pablo moved from Friday to the next Monday'],
    ['2028-10-27', false, 'the Iglesias Evangélicas holiday moved from Tuesday to Friday'],
    ['2028-10-31', true, '31 October 2028, whose holiday moved'],
  ])('%s is a banking day: %p (%s)', (date, expected) => {
    expect(calendar.isBankingDay(date)).toBe(expected);
  });

  it('counts banking days strictly after the day given, which itself never counts', () => {
    expect(calendar.addBankingDays('2025-03-03', 1)).toBe('2025-03-04');
    expect(calendar.addBankingDays('2025-03-07', 1)).toBe('2025-03-10');
    expect(calendar.addBankingDays('2025-03-08', 1)).toBe('2025-03-10');
    expect(calendar.addBankingDays('2025-09-17', 1)).toBe('2025-09-22');
    expect(calendar.addBankingDays('2025-03-03', 5)).toBe('2025-03-10');
    expect(calendar.addBankingDays('2025-03-08', 0)).toBe('2025-03-08');
  });

  it('counts business days as banking days, except that 31 December is one (an administrative business day, not a banking one)', () => {
    expect(calendar.isBusinessDay('2026-12-31')).toBe(true);
    expect(calendar.isBusinessDay('2026-12-25')).toBe(false);
    expect(calendar.isBusinessDay('2026-12-26')).toBe(false);
    expect(calendar.addBusinessDays('2026-12-30', 1)).toBe('2026-12-31');
    expect(calendar.addBankingDays('2026-12-30', 1)).toBe('2027-01-04');
    expect(calendar.addBusinessDays('2025-09-17', 1)).toBe('2025-09-22');
    expect(() => calendar.addBusinessDays('2026-12-30', -1)).toThrow(RangeError);
  });

  it('refuses what is not a calendar day', () => {
    expect(() => calendar.isBankingDay('2025-3-3')).toThrow(RangeError);
  });

  it.each([-1, 1.5, Number.NaN])('refuses to add %p banking days', (n) => {
    expect(() => calendar.addBankingDays('2025-03-03', n)).toThrow(RangeError);
  });

  it('refuses to answer outside the years its holiday table covers', () => {
    expect(calendar.isBankingDay('2030-12-30')).toBe(true);
    for (const date of ['2031-01-02', '2023-12-29']) {
      expect(() => calendar.isBankingDay(date)).toThrow(DomainError);
    }
    expect(() => calendar.addBankingDays('2030-12-20', 15)).toThrow(
      expect.objectContaining({ kind: 'unavailable', code: 'banking_calendar_out_of_range' }),
    );
  });

  it('merges an operator extension with the shipped holidays, leaving other calendars as they were', () => {
    const extended = bankingCalendar([{ date: '2025-03-14', name: 'Feriado de prueba', kind: 'one-off' }]);
    expect(extended.isBankingDay('2025-03-14')).toBe(false);
    expect(extended.isBankingDay('2025-04-18')).toBe(false);
    expect(calendar.isBankingDay('2025-03-14')).toBe(true);
    expect(extended.version).toBe(calendar.version);
  });

  it('refuses extension dates outside the shipped coverage', () => {
    expect(() => bankingCalendar([{ date: '2031-03-14', name: 'Feriado de prueba', kind: 'one-off' }])).toThrow(ConfigError);
  });
});
