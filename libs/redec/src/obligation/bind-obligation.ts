import { EventStore, RecordedEvent } from '@ledger/event-store';
import { CommandContext, Decision, factsOfSameRequest, runCommand } from '@ledger/ledger';
import { conflict, notFound, timeOrderedId } from '@ledger/platform';
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

/**
 * Records a binding (docs/reference/obligations.md, "Binding an obligation")
 * through the one command path: the consent it names (when of kind consent) and
 * the obligation's stream are read, the binding decided on all the obligation's
 * bindings and the consent's facts, and appended to the obligation's stream
 * only while neither moved: two concurrent identical bindings record one and
 * answer it twice, and a revocation recorded meanwhile makes the binding be
 * decided again on it.
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
  const { tenantId } = context;
  const stream = redecStreams.obligation(tenantId, request.sourceSystem, request.obligationReference);
  const bindingId = timeOrderedId(context.now);
  const { result, position } = await runCommand(deps.store, context, async (reads): Promise<Decision<ObligationBinding>> => {
    const consent =
      request.kind === 'consent' && request.redecConsentId
        ? await reads.fold(redecStreams.consent(tenantId, request.redecConsentId), (state: ConsentState | null, event: ConsentEvent) => evolveConsent(state, event, tenantId))
        : null;
    // A kind without a consent has no profile of its own: the bank's clock is held to the baseline's skew.
    const profile = consent ? deps.profiles.get(consent.grant.regulatoryProfile) : BASELINE_PROFILE;
    if (!profile) throw conflict('regulatory_profile_unavailable', `The consent's Regulatory Profile is not loaded in this deployment.`);
    const recorded = await reads.events(stream);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { answer: (earlier as unknown as ObligationBound).data, position: earlier.position };
    const decision = decideBind(foldBindings(recorded), request, consent, profile, { bindingId }, context.now);
    if (decision.kind === 'already_bound') return { answer: decision.binding, position: null };
    return { record: { streamId: stream, facts: [{ ...decision.event, id: bindingId }] }, answer: decision.event.data };
  });
  return { binding: result, position };
}

export interface AnnulBindingResult {
  annulment: ObligationBindingAnnulled['data'];
  position: number;
}

/**
 * Annuls a binding recorded by mistake. The binding is found by id through
 * `obligationOf` (the read model: a binding answered to the bank is in it),
 * then decided on the obligation's stream through the one command path.
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
  const { result, position } = await runCommand(deps.store, context, async (reads): Promise<Decision<ObligationBindingAnnulled['data']>> => {
    const recorded = await reads.events(stream);
    const [earlier] = factsOfSameRequest(recorded, context);
    if (earlier) return { answer: (earlier as unknown as ObligationBindingAnnulled).data, position: earlier.position };
    const event = decideAnnulBinding(foldBindings(recorded), bindingId, request, context.now);
    return { record: { streamId: stream, facts: [event] }, answer: event.data };
  });
  return { annulment: result, position: position! };
}

function foldBindings(recorded: readonly RecordedEvent[]): ObligationBindings {
  return recorded.reduce<ObligationBindings>((state, event) => evolveObligationBindings(state, event as unknown as ObligationEvent), { bindings: [], annulled: [] });
}
