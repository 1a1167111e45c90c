import { randomUUID } from 'node:crypto';
import { EventStore, WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, factsOfSameRequest, loadAggregate, toNewEvent } from '@ledger/ledger';
import { conflict, notFound } from '@ledger/platform';
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
 * Multi-Consent decision): the first fact of the consent's stream, appended
 * with `no_stream`, so two concurrent grants of one subject cannot both be
 * recorded. `receivedAt` is the receipt the rules read, as for REDEC grants.
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
  const existingGrant = async () => {
    const [first] = await store.readStream(stream, { maxCount: 1 });
    return first ? (first.data as GeneralConsentGranted['data']) : null;
  };
  const consentActionId = randomUUID();
  const decision = decideGeneralGrant({
    request,
    requestSha256,
    interaction: subject,
    capture: options.capture,
    existing: await existingGrant(),
    ids: { consentId, consentActionId },
    now: options.receivedAt,
  });
  if (decision.kind === 'already_granted') return { grant: decision.grant, position: null };
  try {
    const appended = await store.append(stream, [toNewEvent(decision.event, context, consentActionId)], 'no_stream');
    return { grant: decision.event.data, position: appended.position };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    // A concurrent grant of the same subject was recorded first: answer as to a repeat.
    const recorded = await existingGrant();
    if (!recorded) throw error;
    return { grant: repeatedGeneralGrant(recorded, requestSha256), position: null };
  }
}

export interface GeneralRevocationResult {
  revocation: GeneralConsentRevoked['data'];
  position: number;
}

const ATTEMPTS = 5;

/**
 * Revokes a general consent, at the revision read. A retry of a request
 * whose answer was lost is answered from the fact it recorded.
 */
export async function revokeGeneralConsent(store: EventStore, consentId: string, request: GeneralRevocationRequest, context: Context): Promise<GeneralRevocationResult> {
  const stream = consentStreams.generalConsent(context.tenantId, consentId);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const recorded = await store.readStream(stream);
    const earlier = factsOfSameRequest(recorded, context).find((e) => e.type === 'GeneralConsentRevoked');
    if (earlier) return { revocation: earlier.data as GeneralConsentRevoked['data'], position: earlier.position };
    const consent = recorded.reduce<GeneralConsentState | null>((state, e) => evolveGeneralConsent(state, e as unknown as GeneralConsentEvent, context.tenantId), null);
    if (!consent) throw notFound('consent');
    const consentActionId = randomUUID();
    const revoked = decideGeneralRevocation(consent, request, consentActionId, context.now);
    try {
      const appended = await store.append(stream, [toNewEvent(revoked, context, consentActionId)], recorded[recorded.length - 1].revision);
      return { revocation: revoked.data, position: appended.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) continue;
      throw error;
    }
  }
  throw conflict('consent_busy', 'The consent is being changed by concurrent requests; retry shortly.');
}
