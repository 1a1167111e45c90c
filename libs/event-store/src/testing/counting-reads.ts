import type { EventStore } from '../event-store.port';

/** A store that counts the stream reads made through it and the events they returned. */
export function countingReads(store: EventStore): EventStore & { reads: number; eventsRead: number } {
  const counted = Object.create(store) as EventStore & { reads: number; eventsRead: number };
  counted.reads = 0;
  counted.eventsRead = 0;
  counted.readStream = async (...args) => {
    counted.reads += 1;
    const events = await store.readStream(...args);
    counted.eventsRead += events.length;
    return events;
  };
  return counted;
}
