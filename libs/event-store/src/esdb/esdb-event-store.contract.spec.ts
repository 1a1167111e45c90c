import { describeEventStoreContract } from '../testing';
import { EsdbEventStore } from './esdb-event-store';

// jest.config.ts runs this suite only when EVENTSTORE_CONNECTION_STRING is set
// (see docker/compose.yml); otherwise the test run prints a notice instead.
const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;
if (!connectionString) throw new Error('EVENTSTORE_CONNECTION_STRING must point at an EventStoreDB server for this suite');

// The contract names its streams uniquely per run, so a shared server is fine.
describeEventStoreContract(
  'EventStoreDB',
  async () => {
    const store = new EsdbEventStore(connectionString);
    return { store, dispose: () => store.close() };
  },
  { refusesReusedIds: false },
);
