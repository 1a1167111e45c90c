import { weeklyRunDue } from './weekly-schedule';

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
