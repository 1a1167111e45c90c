import { randomUUID } from 'node:crypto';
import { EventStore, RecordedEvent, WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, factsOfSameRequest, loadAggregate, toNewEvent } from '@ledger/ledger';
import { conflict } from '@ledger/platform';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { redecStreams } from '../streams';
import { BindObligationRequest, decideBind } from './bind.decider';
import { ObligationBinding, ObligationBound } from './obligation.events';

export interface BindObligationResult {
  binding: ObligationBinding;
  /** The position of the binding fact when this request recorded it; null when it answered an identical earlier binding. */
  position: number | null;
}

const ATTEMPTS = 5;

/**
 * Records a binding (spec 2.11): load the obligation's stream, decide on all
 * its bindings, append at the revision read, so two concurrent identical
 * bindings record one and answer it twice.
 *
 * A retry whose binding was appended but whose answer was lost is answered
 * from the recorded fact (`factsOfSameRequest`), not decided again.
 *
 * The consent is folded from its own stream, not read from the read model,
 * so a consent granted a moment ago is already bindable.
 */
export async function bindObligation(
  deps: { store: EventStore },
  request: BindObligationRequest,
  context: CommandContext & { tenantId: string },
): Promise<BindObligationResult> {
  const { store } = deps;
  const { tenantId } = context;
  const stream = redecStreams.obligation(tenantId, request.sourceSystem, request.obligationReference);
  // What the decision reads of the consent (its code, its obligation source system) is frozen at grant: loaded once.
  const consent = request.kind === 'consent' && request.redecConsentId ? await loadConsent(store, tenantId, request.redecConsentId) : null;
  const bindingId = randomUUID();
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const recorded = await store.readStream(stream);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { binding: bindingOf(earlier), position: earlier.position };
    const decision = decideBind(recorded.map(bindingOf), request, consent, { bindingId }, context.now);
    if (decision.kind === 'already_bound') return { binding: decision.binding, position: null };
    const expectedRevision = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision;
    try {
      const appended = await store.append(stream, [toNewEvent(decision.event, context, bindingId)], expectedRevision);
      return { binding: decision.event.data, position: appended.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('redec_obligation_busy', 'The obligation is being bound by concurrent requests; retry shortly.');
}

async function loadConsent(store: EventStore, tenantId: string, redecConsentId: string): Promise<ConsentState | null> {
  const evolve = (state: ConsentState | null, event: ConsentEvent) => evolveConsent(state, event, tenantId);
  return (await loadAggregate(store, redecStreams.consent(tenantId, redecConsentId), evolve)).state;
}

function bindingOf(event: RecordedEvent): ObligationBinding {
  return (event as unknown as ObligationBound).data;
}
