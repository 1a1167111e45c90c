import { bankingCalendar } from '../calendar/banking-calendar';
import { RIGHTS_DEADLINES } from '../profiles/profile-catalog';
import { complaintDeadline, rightsRequestDueAt } from './rights-clocks';

// Every expected instant below was counted by hand on a calendar: the local
// day of receipt (America/Santiago) is day 0; Chile is at UTC-3 in summer
// and UTC-4 from the first Sunday of April to the first Sunday of September.

const calendar = bankingCalendar();
const at = (iso: string) => Date.parse(iso);
const dueAt = (kind: Parameters<typeof rightsRequestDueAt>[0], receivedAt: string, extended = false) => new Date(rightsRequestDueAt(kind, at(receivedAt), extended, calendar, RIGHTS_DEADLINES)).toISOString();

describe('when a rights request must be answered', () => {
  it('is the end of the 30th calendar day after the local day of receipt, over the end of a short February', () => {
    // 31 January 2027 + 30 days = 2 March 2027, summer time.
    expect(dueAt('access', '2027-01-31T13:00:00Z')).toBe('2027-03-03T02:59:59.999Z');
  });

  it('counts from the local day, not the UTC one: 23:30 on 30 June in Santiago is already 1 July in UTC', () => {
    // 30 June + 30 = 30 July, winter time.
    expect(dueAt('rectification', '2026-07-01T03:30:00Z')).toBe('2026-07-31T03:59:59.999Z');
  });

  it('ends at local midnight across the April change of clocks (UTC-3 to UTC-4)', () => {
    // 20 March 2026 + 30 = 19 April 2026, after the change on 5 April.
    expect(dueAt('suppression', '2026-03-20T12:00:00Z')).toBe('2026-04-20T03:59:59.999Z');
  });

  it('ends at local midnight across the September change of clocks (UTC-4 to UTC-3)', () => {
    // 10 August 2026 + 30 = 9 September 2026, after the change on 6 September.
    expect(dueAt('opposition', '2026-08-10T14:00:00Z')).toBe('2026-09-10T02:59:59.999Z');
  });

  it('is 30 calendar days later once extended: 60 after the day of receipt', () => {
    // 20 March 2026 + 60 = 19 May 2026.
    expect(dueAt('portability', '2026-03-20T12:00:00Z', true)).toBe('2026-05-20T03:59:59.999Z');
  });

  it('is, for a blocking request, the end of the 2nd banking day, over the Fiestas Patrias holidays and a weekend', () => {
    // Thursday 17 September 2026: 18 (holiday), 19 (holiday, Saturday), 20 (Sunday) do not count; Monday 21 is day 1, Tuesday 22 day 2.
    expect(dueAt('blocking', '2026-09-17T13:00:00Z')).toBe('2026-09-23T02:59:59.999Z');
  });

  it('skips 31 December for a blocking request, a day banks do not serve the public', () => {
    // Tuesday 29 December 2026: 30 is day 1; 31 (no banking), 1 January (holiday) and the weekend do not count; Monday 4 January is day 2.
    expect(dueAt('blocking', '2026-12-29T15:00:00Z')).toBe('2027-01-05T02:59:59.999Z');
  });

  it('is not moved for a blocking request by an extension flag (blocking is never extended)', () => {
    expect(dueAt('blocking', '2026-09-17T13:00:00Z', true)).toBe(dueAt('blocking', '2026-09-17T13:00:00Z'));
  });
});

describe("the data subject's window to complain of a refusal", () => {
  it('ends after 30 business days, counting 31 December (an administrative business day) and skipping holidays', () => {
    // Sent Tuesday 1 December 2026. Day 20 is Thursday 31 December; 8 and 25 December and 1 January are holidays; day 30 is Friday 15 January 2027.
    expect(new Date(complaintDeadline(at('2026-12-01T15:00:00Z'), calendar, RIGHTS_DEADLINES)).toISOString()).toBe('2027-01-16T02:59:59.999Z');
  });
});
