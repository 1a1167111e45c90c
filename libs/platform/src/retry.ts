/**
 * How long a background loop waits before its next attempt after `failures`
 * consecutive failures: doubling from 200 ms, capped, so a Redis outage is
 * retried quickly at first without a busy loop later.
 */
export function retryBackoffMs(failures: number, maxMs = 5_000): number {
  return Math.min(100 * 2 ** Math.max(failures, 1), maxMs);
}

/** Waits `ms`, or less when `signal` aborts (a stopping loop must not sit out its backoff). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
