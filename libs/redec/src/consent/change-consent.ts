import { EventStore, WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, factsOfSameRequest, toNewEvent } from '@ledger/ledger';
import { conflict } from '@ledger/platform';
import { redecStreams } from '../streams';
import { ConsentEvent } from './consent.events';
import { ConsentState, evolveConsent } from './consent.state';

/** One command on a consent: a pure decision on its current facts, and the answer built from the facts it recorded. */
export interface ConsentChange<R> {
  decide(consent: ConsentState | null): ConsentEvent[];
  answer(consent: ConsentState, recorded: ConsentEvent[]): R;
}

export interface ConsentChangeResult<R> {
  result: R;
  /** The position of the last fact this command recorded, for read-your-writes. */
  position: number;
}

const ATTEMPTS = 5;

/**
 * Load the consent's stream, decide, append at the revision read: a
 * concurrent change makes the append fail and the decision is taken again on
 * the new facts, so no rule is ever checked against a stale consent.
 *
 * A retry of a request whose answer was lost is answered from the facts it
 * recorded (`factsOfSameRequest`).
 */
export async function changeConsent<R>(
  store: EventStore,
  redecConsentId: string,
  context: CommandContext & { tenantId: string },
  change: ConsentChange<R>,
): Promise<ConsentChangeResult<R>> {
  const stream = redecStreams.consent(context.tenantId, redecConsentId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const recorded = await store.readStream(stream);
    const consent = recorded.reduce<ConsentState | null>((state, event) => evolveConsent(state, event as unknown as ConsentEvent, context.tenantId), null);
    const earlier = factsOfSameRequest(recorded, context);
    if (consent && earlier.length > 0) {
      return { result: change.answer(consent, earlier.map((e) => e as unknown as ConsentEvent)), position: earlier[earlier.length - 1].position };
    }
    const events = change.decide(consent);
    const expectedRevision = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision;
    try {
      const appended = await store.append(stream, events.map((e) => toNewEvent(e, context)), expectedRevision);
      const after = events.reduce<ConsentState | null>((state, event) => evolveConsent(state, event, context.tenantId), consent)!;
      return { result: change.answer(after, events), position: appended.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('redec_consent_busy', 'The consent is being changed by concurrent requests; retry shortly.');
}
