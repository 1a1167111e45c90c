import type { AppendOptions, EventStore, NewEvent } from '@ledger/event-store';
import { traceEventStore } from './traced-event-store';

// Spans need no exporter here: without a registered provider the API's tracer runs the work in a span that records nothing.
jest.mock('./start-tracing', () => ({ tracingStarted: () => true }));

describe('traceEventStore', () => {
  it('passes every argument of an append to the store it wraps, a guarded append its expectations', async () => {
    const appended = { nextRevision: 0, position: 7 };
    const append = jest.fn<ReturnType<EventStore['append']>, Parameters<EventStore['append']>>(async () => appended);
    const traced = traceEventStore({ append } as unknown as EventStore);
    expect(traced.append).not.toBe(append);
    const event: NewEvent = { id: 'e-1', type: 'access.authorized', data: {}, metadata: { correlationId: 'c', recordedAt: 1, schemaVersion: 1 } };
    const options: AppendOptions = { expect: [{ streamId: 'consent-1', expectedRevision: 3 }] };
    await expect(traced.append('access-1', [event], 'no_stream', options)).resolves.toBe(appended);
    expect(append).toHaveBeenCalledWith('access-1', [event], 'no_stream', options);
  });
});
