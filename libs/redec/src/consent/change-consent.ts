import { EventStore } from '@ledger/event-store';
import { CommandContext, factsOfSameRequest, runCommand } from '@ledger/ledger';
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

/**
 * A command on one consent, through the one command path (runCommand): the
 * consent's stream is read, the decision taken on its facts, and appended at
 * the revision read, so no rule is checked against a stale consent.
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
  const fold = (from: ConsentState | null, events: readonly ConsentEvent[]) =>
    events.reduce<ConsentState | null>((state, event) => evolveConsent(state, event, context.tenantId), from);
  const { result, position } = await runCommand(store, context, async (reads) => {
    const recorded = await reads.events(stream);
    const consent = fold(null, recorded as unknown as ConsentEvent[]);
    const earlier = factsOfSameRequest(recorded, context);
    if (consent && earlier.length > 0) {
      return { answer: change.answer(consent, earlier as unknown as ConsentEvent[]), position: earlier[earlier.length - 1].position };
    }
    const events = change.decide(consent);
    return { record: { streamId: stream, facts: events }, answer: change.answer(fold(consent, events)!, events) };
  });
  return { result, position: position! };
}
