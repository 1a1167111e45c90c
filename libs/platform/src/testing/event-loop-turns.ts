/**
 * How many turns the event loop took while `work` ran: zero for work that
 * held the loop from start to end, however it was wrapped in a promise.
 * What tests of work done in slices check, rather than a duration.
 */
export async function eventLoopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work();
  } finally {
    done = true;
  }
  return turns;
}
