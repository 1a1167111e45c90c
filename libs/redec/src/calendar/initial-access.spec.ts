import { bankingCalendar } from './banking-calendar';
import { INITIAL_ACCESS_BANKING_DAYS, initialAccessValidUntil } from './initial-access';

const calendar = bankingCalendar();
const at = (iso: string) => Date.parse(iso);

describe('initialAccessValidUntil: the end of the 15th banking day after the local day of grantedAt', () => {
  it('is 15 banking days', () => {
    expect(INITIAL_ACCESS_BANKING_DAYS).toBe(15);
  });

  it.each([
    ['a Monday morning grant', '2025-03-03T10:00:00-03:00', '2025-03-24T23:59:59.999-03:00'],
    ['a grant one second into a Monday: the grant day still does not count', '2025-03-03T00:00:01-03:00', '2025-03-24T23:59:59.999-03:00'],
    ['a Monday grant a millisecond before midnight', '2025-03-03T23:59:59.999-03:00', '2025-03-24T23:59:59.999-03:00'],
    ['a Friday evening grant, already Saturday in UTC', '2025-03-07T22:30:00-03:00', '2025-03-28T23:59:59.999-03:00'],
    // Counting from the UTC day (Friday) would give 28 March.
    ['a Thursday evening grant, already Friday in UTC', '2025-03-06T22:00:00-03:00', '2025-03-27T23:59:59.999-03:00'],
    ['a grant on a holiday (Independencia Nacional)', '2025-09-18T12:00:00-03:00', '2025-10-10T23:59:59.999-03:00'],
    ['a window crossing 18 and 19 September', '2025-09-10T09:00:00-03:00', '2025-10-03T23:59:59.999-03:00'],
    ['a window crossing 18, 19 and the bridge 20 September 2024', '2024-09-16T09:00:00-03:00', '2024-10-10T23:59:59.999-03:00'],
    ['a window crossing Christmas, 31 December and 1 January', '2025-12-22T15:00:00-03:00', '2026-01-15T23:59:59.999-03:00'],
    ['a window crossing 31 December on a Thursday and New Year on a Friday', '2026-12-21T15:00:00-03:00', '2027-01-14T23:59:59.999-03:00'],
    ['a window crossing Easter 2025 and 1 May', '2025-04-14T10:00:00-04:00', '2025-05-07T23:59:59.999-04:00'],
    // Grant in summer time (-03), deadline in winter time (-04).
    ['a window crossing Easter 2026 and the April clock change', '2026-03-30T11:00:00-03:00', '2026-04-21T23:59:59.999-04:00'],
    ['a grant in the first pass of the repeated hour of 5 April 2025', '2025-04-05T23:30:00-03:00', '2025-04-28T23:59:59.999-04:00'],
    ['a grant in the second pass of the repeated hour of 5 April 2025', '2025-04-05T23:30:00-04:00', '2025-04-28T23:59:59.999-04:00'],
    ['a grant at the first instant of 7 September 2025 (01:00, the clock jumped)', '2025-09-07T01:00:00-03:00', '2025-09-30T23:59:59.999-03:00'],
    ['a grant at the last instant of 6 September 2025, in winter time', '2025-09-06T23:59:59.999-04:00', '2025-09-30T23:59:59.999-03:00'],
    // Monday 21 June (solstice) and Monday 28 June (San Pedro y San Pablo, moved from Tuesday 29) do not count.
    ['a window over the moved-to-Monday holidays of June 2027', '2027-06-18T10:00:00-04:00', '2027-07-13T23:59:59.999-04:00'],
  ])('%s', (_case, grantedAt, validUntil) => {
    expect(initialAccessValidUntil(at(grantedAt), calendar)).toBe(at(validUntil));
  });

  it('moves by one banking day when an extension declares a one-off holiday inside the window', () => {
    const grantedAt = at('2025-03-03T10:00:00-03:00');
    const extended = bankingCalendar([{ date: '2025-03-14', name: 'Feriado de prueba', kind: 'one-off', basis: 'Ley de prueba' }]);
    expect(initialAccessValidUntil(grantedAt, extended)).toBe(at('2025-03-25T23:59:59.999-03:00'));
  });
});
