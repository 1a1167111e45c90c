import { randomUUID } from 'node:crypto';
import { EventStore, RecordedEvent, WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, factsOfSameRequest, loadAggregate, toNewEvent } from '@ledger/ledger';
import { conflict, notFound } from '@ledger/platform';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { AnnulRequest } from '../consent/lifecycle.decider';
import { ObligationRef } from '../consent/enablement';
import { BASELINE_PROFILE, ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { BindObligationRequest, decideAnnulBinding, decideBind } from './bind.decider';
import { ObligationBinding, ObligationBindingAnnulled, ObligationBindings, ObligationBound, ObligationEvent, evolveObligationBindings } from './obligation.events';

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
  deps: { store: EventStore; profiles: ProfileCatalog },
  request: BindObligationRequest,
  context: CommandContext & { tenantId: string },
): Promise<BindObligationResult> {
  const { store } = deps;
  const { tenantId } = context;
  const stream = redecStreams.obligation(tenantId, request.sourceSystem, request.obligationReference);
  // Loaded once, before the obligation's stream: a change of the consent racing this binding is ordered after it, as if it had come a moment later.
  const consent = request.kind === 'consent' && request.redecConsentId ? await loadConsent(store, tenantId, request.redecConsentId) : null;
  // A kind without a consent has no profile of its own: the bank's clock is held to the baseline's skew.
  const profile = consent ? deps.profiles.get(consent.grant.regulatoryProfile) : BASELINE_PROFILE;
  if (!profile) throw conflict('regulatory_profile_unavailable', `The consent's Regulatory Profile is not loaded in this deployment.`);
  const bindingId = randomUUID();
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const recorded = await store.readStream(stream);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { binding: (earlier as unknown as ObligationBound).data, position: earlier.position };
    const decision = decideBind(foldBindings(recorded), request, consent, profile, { bindingId }, context.now);
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

export interface AnnulBindingResult {
  annulment: ObligationBindingAnnulled['data'];
  position: number;
}

/**
 * Annuls a binding recorded by mistake. The binding is found by id through
 * `obligationOf` (the read model: a binding answered to the bank is in it),
 * then decided on the obligation's stream, at the revision read.
 */
export async function annulBinding(
  deps: { store: EventStore; obligationOf(tenantId: string, bindingId: string): Promise<ObligationRef | null> },
  bindingId: string,
  request: AnnulRequest,
  context: CommandContext & { tenantId: string },
): Promise<AnnulBindingResult> {
  const obligation = await deps.obligationOf(context.tenantId, bindingId);
  if (!obligation) throw notFound('binding');
  const stream = redecStreams.obligation(context.tenantId, obligation.sourceSystem, obligation.obligationReference);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const recorded = await deps.store.readStream(stream);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { annulment: (earlier as unknown as ObligationBindingAnnulled).data, position: earlier.position };
    const event = decideAnnulBinding(foldBindings(recorded), bindingId, request, context.now);
    try {
      const appended = await deps.store.append(stream, [toNewEvent(event, context)], recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1].revision);
      return { annulment: event.data, position: appended.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('redec_obligation_busy', 'The obligation is being changed by concurrent requests; retry shortly.');
}

function foldBindings(recorded: readonly RecordedEvent[]): ObligationBindings {
  return recorded.reduce<ObligationBindings>((state, event) => evolveObligationBindings(state, event as unknown as ObligationEvent), { bindings: [], annulled: [] });
}
