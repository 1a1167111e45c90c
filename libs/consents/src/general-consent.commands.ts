import { EventStore } from '@ledger/event-store';
import { CommandContext, Decision, factsOfSameRequest, loadAggregate, runCommand } from '@ledger/ledger';
import { notFound, timeOrderedId } from '@ledger/platform';
import { CaptureTiming, GrantSubject, derivedUuid, evolveInteraction, redecStreams } from '@ledger/redec';
import {
  GeneralConsentState,
  GeneralGrantRequest,
  GeneralRevocationRequest,
  decideGeneralGrant,
  decideGeneralRevocation,
  evolveGeneralConsent,
  repeatedGeneralGrant,
} from './general-consent.decider';
import { GeneralConsentEvent, GeneralConsentGranted, GeneralConsentRevoked } from './general-consent.events';
import { consentStreams } from './streams';

type Context = CommandContext & { tenantId: string };

/** One consent per interaction: its id is derived from the interaction's, so a retry after a crash finds the same stream. */
export function generalConsentIdFor(tenantId: string, interactionId: string): string {
  return derivedUuid('general-consent', tenantId, interactionId);
}

export interface GeneralGrantResult {
  grant: GeneralConsentGranted['data'];
  /** The position of the grant when this call recorded it; null when it answered an earlier identical grant. */
  position: number | null;
}

/** Records the grant of a general consent on its interaction: see recordGeneralGrant. */
export async function grantGeneralConsent(
  store: EventStore,
  interactionId: string,
  request: GeneralGrantRequest,
  requestSha256: string,
  context: Context,
  capture: CaptureTiming = 'deferred_external',
): Promise<GeneralGrantResult> {
  const { state: interaction } = await loadAggregate(store, redecStreams.interaction(context.tenantId, interactionId), evolveInteraction);
  if (!interaction) throw notFound('consent interaction');
  return recordGeneralGrant(store, interaction, request, requestSha256, { ...context, causationId: interactionId }, { capture, receivedAt: context.now });
}

/**
 * Records a general consent on its subject (an interaction, or an item of a
 * Multi-Consent decision): the first fact of the consent's stream, through
 * the one command path, so of two concurrent grants of one subject one is
 * recorded and the other answered as a repeat of it. `receivedAt` is the
 * receipt the rules read, as for REDEC grants.
 */
export async function recordGeneralGrant(
  store: EventStore,
  subject: GrantSubject,
  request: GeneralGrantRequest,
  requestSha256: string,
  context: Context,
  options: { capture: CaptureTiming; receivedAt: number },
): Promise<GeneralGrantResult> {
  const consentId = generalConsentIdFor(context.tenantId, subject.interactionId);
  const stream = consentStreams.generalConsent(context.tenantId, consentId);
  const consentActionId = timeOrderedId(context.now);
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<GeneralConsentGranted['data']>> => {
    const [granted] = await reads.events(stream);
    const decision = decideGeneralGrant({
      request,
      requestSha256,
      interaction: subject,
      capture: options.capture,
      existing: granted ? (granted.data as GeneralConsentGranted['data']) : null,
      ids: { consentId, consentActionId },
      now: options.receivedAt,
    });
    if (decision.kind === 'already_granted') return { answer: decision.grant, position: null };
    return { record: { streamId: stream, facts: [{ ...decision.event, id: consentActionId }] }, answer: decision.event.data };
  });
  return { grant: result, position };
}

export interface GeneralRevocationResult {
  revocation: GeneralConsentRevoked['data'];
  position: number;
}

/**
 * Revokes a general consent through the one command path. A retry of a
 * request whose answer was lost is answered from the fact it recorded.
 */
export async function revokeGeneralConsent(store: EventStore, consentId: string, request: GeneralRevocationRequest, context: Context): Promise<GeneralRevocationResult> {
  const stream = consentStreams.generalConsent(context.tenantId, consentId);
  const consentActionId = timeOrderedId(context.now);
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<GeneralConsentRevoked['data']>> => {
    const recorded = await reads.events(stream);
    const earlier = factsOfSameRequest(recorded, context).find((e) => e.type === 'GeneralConsentRevoked');
    if (earlier) return { answer: earlier.data as GeneralConsentRevoked['data'], position: earlier.position };
    const consent = recorded.reduce<GeneralConsentState | null>((state, e) => evolveGeneralConsent(state, e as unknown as GeneralConsentEvent, context.tenantId), null);
    if (!consent) throw notFound('consent');
    const revoked = decideGeneralRevocation(consent, request, consentActionId, context.now);
    return { record: { streamId: stream, facts: [{ ...revoked, id: consentActionId }] }, answer: revoked.data };
  });
  return { revocation: result, position: position! };
}
