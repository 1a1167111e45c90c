import type { Redis } from 'ioredis';
import type { ProjectionRunner } from './projection-runner';

/**
 * Stops a runner that follows the store, then closes its Redis connection.
 * With Redis unreachable, the batch in flight and quit() would wait for it
 * forever (ioredis keeps commands queued while it reconnects); past
 * `graceMs` they are abandoned and the connection dropped. Nothing is lost:
 * the next start redoes the batch from the checkpoint.
 */
export async function stopProjections(runner: ProjectionRunner, redis: Redis, graceMs = 5_000): Promise<void> {
  const closing = runner.stop().then(() => redis.quit());
  if (!(await settlesWithin(closing, graceMs))) redis.disconnect();
}

/** Whether `promise` settles (either way) within `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, deadline]).finally(() => clearTimeout(timer));
}
