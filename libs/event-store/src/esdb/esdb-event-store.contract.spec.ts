import { describeEventStoreContract } from '../testing';
import { EsdbEventStore } from './esdb-event-store';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;

if (connectionString) {
  // The contract names its streams uniquely per run, so a shared server is fine.
  describeEventStoreContract(
    'EventStoreDB',
    async () => {
      const store = new EsdbEventStore(connectionString);
      return { store, dispose: () => store.close() };
    },
    { refusesReusedIds: false },
  );
} else {
  console.warn(
    'EventStoreDB contract suite skipped: set EVENTSTORE_CONNECTION_STRING (e.g. esdb://127.0.0.1:2113?tls=false) to run it.',
  );
  describe.skip('EventStore contract: EventStoreDB (EVENTSTORE_CONNECTION_STRING not set)', () => {
    it('runs the shared contract against EventStoreDB', () => undefined);
  });
}
