/**
 * Whether `promise` settles (either way) within `ms`. For the waits that
 * must not outlast a bound, mostly at shutdown: a command to a Redis out of
 * reach, a job that does not end. The timer does not hold the process open.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
