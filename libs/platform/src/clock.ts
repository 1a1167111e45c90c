/**
 * Every rule reads time through a Clock so that time is an input: domain code
 * receives `now` as a value, and only the edges (HTTP, CLI, workers) hold a Clock.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The system clock, optionally shifted (LEDGER_CLOCK_OFFSET_MS, never in production). */
export function systemClock(offsetMs = 0): Clock {
  return { now: () => Date.now() + offsetMs };
}

/** A clock that only moves when told to; for tests of time-dependent behaviour. */
export function fixedClock(start: number): Clock & { set(t: number): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    set: (t: number) => {
      current = t;
    },
    advance: (ms: number) => {
      current += ms;
    },
  };
}

export const CLOCK = Symbol('CLOCK');
