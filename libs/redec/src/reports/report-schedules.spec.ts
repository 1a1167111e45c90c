import { dailyRunDue, weeklyRunDue } from './report-schedules';

const at = (local: string) => Date.parse(local);

describe('the weekly run due', () => {
  it('is the last Saturday 01:00 in Santiago, for the week Saturday to Friday before it', () => {
    expect(weeklyRunDue(at('2026-11-28T01:00:00-03:00'))).toEqual({
      scheduledAt: at('2026-11-28T01:00:00-03:00'),
      period: { periodStart: at('2026-11-21T00:00:00-03:00'), periodEnd: at('2026-11-28T00:00:00-03:00') - 1 },
    });
    // A Wednesday: the run of the Saturday before, which a service down since then has missed.
    expect(weeklyRunDue(at('2026-12-02T10:00:00-03:00')).scheduledAt).toBe(at('2026-11-28T01:00:00-03:00'));
  });

  it('is still last week`s run on Saturday before 01:00', () => {
    expect(weeklyRunDue(at('2026-11-28T00:59:59-03:00'))).toEqual({
      scheduledAt: at('2026-11-21T01:00:00-03:00'),
      period: { periodStart: at('2026-11-14T00:00:00-03:00'), periodEnd: at('2026-11-21T00:00:00-03:00') - 1 },
    });
  });

  it('covers a week in which the clocks went back: 25 hours on Saturday 4 April 2026', () => {
    const { period } = weeklyRunDue(at('2026-04-11T01:00:00-04:00'));
    expect(period).toEqual({ periodStart: at('2026-04-04T00:00:00-03:00'), periodEnd: at('2026-04-11T00:00:00-04:00') - 1 });
    expect(period.periodEnd + 1 - period.periodStart).toBe(7 * 24 * 3_600_000 + 3_600_000);
  });
});

describe('the daily run due', () => {
  it('is the last 01:00 in Santiago, for the day before it', () => {
    expect(dailyRunDue(at('2026-11-28T01:00:00-03:00'))).toEqual({
      scheduledAt: at('2026-11-28T01:00:00-03:00'),
      period: { periodStart: at('2026-11-27T00:00:00-03:00'), periodEnd: at('2026-11-28T00:00:00-03:00') - 1 },
    });
    expect(dailyRunDue(at('2026-11-28T00:59:59-03:00'))).toEqual({
      scheduledAt: at('2026-11-27T01:00:00-03:00'),
      period: { periodStart: at('2026-11-26T00:00:00-03:00'), periodEnd: at('2026-11-27T00:00:00-03:00') - 1 },
    });
    // A service down for three days makes the latest day's run when it is back.
    expect(dailyRunDue(at('2026-12-01T15:00:00-03:00')).period.periodStart).toBe(at('2026-11-30T00:00:00-03:00'));
  });

  it('runs once at 01:00 on the day the clocks go forward, when the day starts at 01:00, and covers the 23-hour day after', () => {
    // Sunday 6 September 2026: 00:00 does not exist, the day starts at 01:00 (UTC-3).
    expect(dailyRunDue(at('2026-09-06T01:00:00-03:00')).scheduledAt).toBe(at('2026-09-06T01:00:00-03:00'));
    const { period } = dailyRunDue(at('2026-09-07T01:00:00-03:00'));
    expect(period).toEqual({ periodStart: at('2026-09-06T01:00:00-03:00'), periodEnd: at('2026-09-07T00:00:00-03:00') - 1 });
    expect(period.periodEnd + 1 - period.periodStart).toBe(23 * 3_600_000);
  });

  it('covers the 25-hour day the clocks go back', () => {
    const { period } = dailyRunDue(at('2026-04-05T01:00:00-04:00'));
    expect(period).toEqual({ periodStart: at('2026-04-04T00:00:00-03:00'), periodEnd: at('2026-04-05T00:00:00-04:00') - 1 });
    expect(period.periodEnd + 1 - period.periodStart).toBe(25 * 3_600_000);
  });
});
