import { RequestBudgets } from './request-budgets';

const MINUTE = 60_000;

/** Two instances' budgets and the counters Redis keeps for them, flushed as rate-limit.ts does. */
function cluster(perWindow: number) {
  const redis = new Map<string, number>();
  const flush = (budgets: RequestBudgets, now: number) => {
    const { window, increments } = budgets.takePending(now);
    const totals = new Map<string, number>();
    for (const [budget, count] of increments) {
      const key = `${budget}:${window}`;
      redis.set(key, (redis.get(key) ?? 0) + count);
      totals.set(budget, redis.get(key)!);
    }
    budgets.settle(window, totals);
  };
  return { a: new RequestBudgets(perWindow, MINUTE), b: new RequestBudgets(perWindow, MINUTE), flush, redis };
}

const allowedOf = (budgets: RequestBudgets, budget: string, times: number, now: number) =>
  Array.from({ length: times }, () => budgets.spend(budget, now).allowed).filter(Boolean).length;

describe('RequestBudgets', () => {
  it('checks whether a budget has room without counting', () => {
    const budgets = new RequestBudgets(2, MINUTE);
    const start = 10 * MINUTE;
    expect(budgets.check('failed-authentication:a', start).allowed).toBe(true);
    expect(allowedOf(budgets, 'failed-authentication:a', 2, start)).toBe(2);
    expect(budgets.check('failed-authentication:a', start)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    expect(budgets.check('failed-authentication:a', 11 * MINUTE).allowed).toBe(true);
  });

  it('allows exactly the budget in a window, refusing the rest with the seconds left in the window', () => {
    const budgets = new RequestBudgets(5, MINUTE);
    const start = 10 * MINUTE + 15_500;
    expect(allowedOf(budgets, 'key:k1', 5, start)).toBe(5);
    expect(budgets.spend('key:k1', start)).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(budgets.spend('key:k1', 11 * MINUTE - 100)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Another budget is its own.
    expect(budgets.spend('key:k2', start).allowed).toBe(true);
    // A new window starts whole.
    expect(allowedOf(budgets, 'key:k1', 6, 11 * MINUTE)).toBe(5);
  });

  it('spends one budget across instances: each learns what the others admitted at its next flush, so they overspend by at most one flush interval', () => {
    const { a, b, flush } = cluster(10);
    const now = 3 * MINUTE;
    expect(allowedOf(a, 'key:k1', 6, now)).toBe(6);
    flush(a, now);
    expect(allowedOf(b, 'key:k1', 6, now)).toBe(6);
    flush(b, now);
    expect(b.spend('key:k1', now).allowed).toBe(false);
    // A has not flushed since B's requests: it admits what it sees room for, until its next flush tells it the total.
    expect(a.spend('key:k1', now + 50).allowed).toBe(true);
    flush(a, now + 100);
    expect(a.spend('key:k1', now + 100).allowed).toBe(false);
  });

  it('keeps the counts of a failed flush for the next one, and counts nothing of a window gone by', () => {
    const { a, flush, redis } = cluster(10);
    const now = 5 * MINUTE;
    allowedOf(a, 'key:k1', 3, now);
    const failed = a.takePending(now);
    a.restore(failed.window, failed.increments);
    flush(a, now);
    expect(redis.get(`key:k1:${a.windowOf(now)}`)).toBe(3);

    allowedOf(a, 'key:k1', 2, now);
    const late = a.takePending(now);
    a.spend('key:k1', now + MINUTE);
    a.restore(late.window, late.increments);
    flush(a, now + MINUTE);
    expect(redis.get(`key:k1:${a.windowOf(now + MINUTE)}`)).toBe(1);
  });

  it('spends the requests of a flush still in flight: none gets through while Redis adds them up, nor after a failed flush', () => {
    const budgets = new RequestBudgets(5, MINUTE);
    const now = 7 * MINUTE;
    expect(allowedOf(budgets, 'failed-authentication:a', 5, now)).toBe(5);
    const inFlight = budgets.takePending(now);
    expect(budgets.spend('failed-authentication:a', now).allowed).toBe(false);
    budgets.restore(inFlight.window, inFlight.increments);
    expect(budgets.spend('failed-authentication:a', now).allowed).toBe(false);
    const again = budgets.takePending(now);
    expect(again.increments).toEqual(new Map([['failed-authentication:a', 5]]));
    budgets.settle(again.window, new Map([['failed-authentication:a', 5]]));
    expect(budgets.spend('failed-authentication:a', now).allowed).toBe(false);
  });

  it('forgets every count when told to (Redis unreachable: requests go unlimited)', () => {
    const budgets = new RequestBudgets(2, MINUTE);
    allowedOf(budgets, 'address:127.0.0.1', 2, 0);
    expect(budgets.spend('address:127.0.0.1', 0).allowed).toBe(false);
    budgets.forget();
    expect(budgets.spend('address:127.0.0.1', 0).allowed).toBe(true);
  });
});
