import { RequestBudgets } from './request-budgets';

const MINUTE = 60_000;

/** Two instances' budgets and the hashes Redis keeps for them (a field per instance and generation), flushed as rate-limit.ts does. */
function cluster(perWindow: number) {
  const redis = new Map<string, Map<string, number>>();
  /** Redis applies the report; `answered: false` loses its answer, as a command timeout does. */
  const flush = (budgets: RequestBudgets, instance: string, now: number, answered = true) => {
    const report = budgets.report(now);
    const totals = new Map<string, number>();
    for (const [budget, count] of report.counts) {
      const key = `${budget}:${report.window}`;
      const fields = redis.get(key) ?? new Map<string, number>();
      redis.set(key, fields.set(`${instance}:${report.generation}`, count));
      totals.set(budget, [...fields.values()].reduce((sum, each) => sum + each, 0));
    }
    if (answered) budgets.settle(report, totals);
  };
  const total = (key: string) => [...(redis.get(key)?.values() ?? [])].reduce((sum, each) => sum + each, 0);
  return { a: new RequestBudgets(perWindow, MINUTE), b: new RequestBudgets(perWindow, MINUTE), flush, total };
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
    flush(a, 'a', now);
    expect(allowedOf(b, 'key:k1', 6, now)).toBe(6);
    flush(b, 'b', now);
    expect(b.spend('key:k1', now).allowed).toBe(false);
    // A has not flushed since B's requests: it admits what it sees room for, until its next flush tells it the total.
    expect(a.spend('key:k1', now + 50).allowed).toBe(true);
    flush(a, 'a', now + 100);
    expect(a.spend('key:k1', now + 100).allowed).toBe(false);
  });

  it('reports the counts of a failed flush again with the next one, and counts nothing of a window gone by', () => {
    const { a, flush, total } = cluster(10);
    const now = 5 * MINUTE;
    allowedOf(a, 'key:k1', 3, now);
    a.report(now); // Sent, and lost before Redis saw it.
    flush(a, 'a', now);
    expect(total(`key:k1:${a.windowOf(now)}`)).toBe(3);
    expect(a.report(now).counts.size).toBe(0);

    allowedOf(a, 'key:k1', 2, now);
    const late = a.report(now);
    a.spend('key:k1', now + MINUTE);
    a.settle(late, new Map([['key:k1', 5]]));
    flush(a, 'a', now + MINUTE);
    expect(total(`key:k1:${a.windowOf(now + MINUTE)}`)).toBe(1);
    expect(a.spend('key:k1', now + MINUTE).allowed).toBe(true);
  });

  it('counts a request once when a flush Redis applied is sent again because its answer was lost', () => {
    const { a, b, flush, total } = cluster(40);
    const now = 6 * MINUTE;
    expect(allowedOf(a, 'failed-authentication:a', 10, now)).toBe(10);
    flush(a, 'a', now, false);
    flush(a, 'a', now + 100);
    expect(total(`failed-authentication:a:${a.windowOf(now)}`)).toBe(10);
    expect(allowedOf(a, 'failed-authentication:a', 40, now + 200)).toBe(30);
    // Another instance learns the same total, once.
    flush(a, 'a', now + 300);
    b.spend('failed-authentication:a', now + 300);
    flush(b, 'b', now + 300);
    expect(b.check('failed-authentication:a', now + 300).allowed).toBe(false);
    expect(total(`failed-authentication:a:${a.windowOf(now)}`)).toBe(41);
  });

  it('spends the requests of a flush still in flight: none gets through while Redis adds them up, nor after a failed flush', () => {
    const budgets = new RequestBudgets(5, MINUTE);
    const now = 7 * MINUTE;
    expect(allowedOf(budgets, 'failed-authentication:a', 5, now)).toBe(5);
    const inFlight = budgets.report(now);
    expect(budgets.spend('failed-authentication:a', now).allowed).toBe(false);
    const again = budgets.report(now);
    expect(again.counts).toEqual(inFlight.counts);
    expect(again.counts).toEqual(new Map([['failed-authentication:a', 5]]));
    budgets.settle(again, new Map([['failed-authentication:a', 5]]));
    expect(budgets.spend('failed-authentication:a', now).allowed).toBe(false);
  });

  it('forgets every count when told to (Redis unreachable: requests go unlimited), and counts afresh under a generation of its own', () => {
    const { a, flush, total } = cluster(2);
    allowedOf(a, 'address:127.0.0.1', 2, 0);
    flush(a, 'a', 0);
    expect(a.spend('address:127.0.0.1', 0).allowed).toBe(false);
    a.forget();
    expect(a.spend('address:127.0.0.1', 0).allowed).toBe(true);
    // The count reported before is kept beside the new one, not overwritten by it.
    flush(a, 'a', 0);
    expect(total(`address:127.0.0.1:${a.windowOf(0)}`)).toBe(3);
    expect(a.spend('address:127.0.0.1', 0).allowed).toBe(false);
  });
});
