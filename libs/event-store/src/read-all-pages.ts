import { EventStore, RecordedEvent } from './event-store.port';

/**
 * The store's events in store order, a page at a time, after `after` (from
 * the start by default), up to `upTo` when given (the head a scan started
 * at: what is appended during the scan is not its business): for the scans
 * of the whole ledger (verification, reports, retention, operator listings),
 * which must not hold the ledger in memory.
 */
export async function* readAllPages(
  store: Pick<EventStore, 'readAll'>,
  options: { pageSize: number; after?: number; upTo?: number },
): AsyncGenerator<RecordedEvent[]> {
  const { pageSize, upTo = Number.POSITIVE_INFINITY } = options;
  for (let after = options.after ?? 0; after < upTo; ) {
    const page = await store.readAll({ after, maxCount: pageSize });
    const past = page.findIndex((event) => event.position > upTo);
    const within = past === -1 ? page : page.slice(0, past);
    if (within.length > 0) yield within;
    if (page.length < pageSize || past !== -1) return;
    after = page[page.length - 1].position;
  }
}
