import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { generalConsentIdFor, grantGeneralConsent } from '@ledger/consents';
import { WrongExpectedVersionError } from '@ledger/event-store';
import { CommandContext, loadAggregate, toNewEvent } from '@ledger/ledger';
import { fieldRefused, notFound } from '@ledger/platform';
import {
  CreateInteractionRequest,
  GrantDependencies,
  GrantableConfiguration,
  InteractionDependencies,
  createInteraction,
  evolveInteraction,
  grantConsent,
  isEmbedOrigin,
  redecConsentIdFor,
  redecStreams,
} from '@ledger/redec';
import { embedStreams } from '../streams';
import { EmbedDecision, EmbedSession, EmbedSessionStatus, decideEmbedSession, embedSessionStatus, evolveEmbedSession, pageTokenMatches, pageTokenSha256 } from './embed-session.decider';
import { EmbedSessionEvent, EmbedSessionOpened } from './embed-session.events';
import { generateResultSecret, resultRedirectUrl } from './embed-result';

type Context = CommandContext & { tenantId: string };

export interface EmbedDependencies extends InteractionDependencies, GrantDependencies {
  /** Decrypts the result secret to sign the redirect. */
  protection: InteractionDependencies['protection'] & { decrypt(tenantId: string, ciphertext: string): string };
}

/** The system recorded as the grant's source: the service's own consent page. */
export const EMBED_SOURCE_SYSTEM = 'ledger-embedded-consent-page';

export interface OpenEmbedSessionRequest {
  customer: CreateInteractionRequest;
  returnUrl: string | null;
  dynamicReference: string | null;
  expiresInSeconds: number;
}

export interface OpenedEmbedSession {
  session: EmbedSession;
  /** The page's credential, shown to the integrator only inside the page URL. */
  pageToken: string;
  /** Shown once: the integrator verifies the redirect's signature with it. */
  resultSecret: string;
  customerCreated: boolean;
  position: number;
}

/**
 * The return URL is where the data subject's browser goes with the result:
 * https (or loopback http), and on one of the configuration's allowed
 * origins when it lists any.
 */
export function checkReturnUrl(returnUrl: string, allowedOrigins: readonly string[]): void {
  let origin: string;
  try {
    origin = new URL(returnUrl).origin;
  } catch {
    throw fieldRefused('returnUrl', 'invalid_return_url', 'returnUrl is not an absolute URL.');
  }
  if (!isEmbedOrigin(origin)) throw fieldRefused('returnUrl', 'invalid_return_url', 'returnUrl must be https (http only on localhost).');
  // The result is appended to the query; behind a fragment the browser would never send it.
  if (returnUrl.includes('#')) throw fieldRefused('returnUrl', 'invalid_return_url', 'returnUrl must not have a fragment.');
  if (allowedOrigins.length > 0 && !allowedOrigins.includes(origin)) {
    throw fieldRefused('returnUrl', 'return_url_origin_not_allowed', "returnUrl is not on one of the configuration's embed.allowedOrigins.");
  }
}

/**
 * Opens a session: resolves the customer inline (or by id) exactly as an
 * interaction does, freezes the configuration version in an interaction,
 * and records the session. Checks that need only the request and the
 * configuration run first, so a refused session records nothing.
 */
export async function openEmbedSession(deps: EmbedDependencies, request: OpenEmbedSessionRequest, context: Context): Promise<OpenedEmbedSession> {
  const { tenantId, now } = context;
  const found = await deps.findConfiguration(tenantId, request.customer.configurationId);
  if (found && request.returnUrl !== null) checkReturnUrl(request.returnUrl, found.embed?.allowedOrigins ?? []);
  const interaction = await createInteraction(deps, request.customer, context, 'embedded');
  const { configuration, interactionId } = interaction;
  const consentKind = configuration.redec ? 'redec' : 'general';
  const pageToken = randomBytes(32).toString('base64url');
  const resultSecret = generateResultSecret();
  const opened: EmbedSessionOpened = {
    type: 'EmbedSessionOpened',
    data: {
      sessionId: randomUUID(),
      interactionId,
      customerId: interaction.customerId,
      configurationId: configuration.configurationId,
      consentKind,
      consentId: consentKind === 'redec' ? redecConsentIdFor(tenantId, interactionId) : generalConsentIdFor(tenantId, interactionId),
      pageTokenSha256: pageTokenSha256(pageToken),
      resultSecretCiphertext: deps.protection.encrypt(tenantId, resultSecret),
      returnUrl: request.returnUrl,
      dynamicReference: request.dynamicReference,
      allowedOrigins: configuration.embed?.allowedOrigins ?? [],
      openedAt: now,
      expiresAt: now + request.expiresInSeconds * 1000,
    },
  };
  const appended = await deps.store.append(embedStreams.session(tenantId, opened.data.sessionId), [toNewEvent(opened, context)], 'no_stream');
  return { session: evolveEmbedSession(null, opened)!, pageToken, resultSecret, customerCreated: interaction.customerCreated, position: appended.position };
}

interface LoadedSession {
  session: EmbedSession;
  revision: number;
  /** Position of the last fact recorded while loading (a completed grant), for read-your-writes. */
  position: number | null;
}

/**
 * The session as its facts say, with its consent recorded when it was
 * accepted: an acceptance is appended before its grant, so a process that
 * stopped between the two leaves the grant to be recorded here, by whoever
 * reads the session next. The grant is derived from the acceptance alone,
 * so recording it again answers the same consent.
 */
export async function loadEmbedSession(deps: EmbedDependencies, sessionId: string, context: Context): Promise<LoadedSession | null> {
  const recorded = await deps.store.readStream(embedStreams.session(context.tenantId, sessionId));
  if (recorded.length === 0) return null;
  const session = recorded.reduce<EmbedSession | null>((state, e) => evolveEmbedSession(state, e as unknown as EmbedSessionEvent), null)!;
  const position = await recordAcceptedConsent(deps, session, context);
  return { session, revision: recorded[recorded.length - 1].revision, position };
}

async function recordAcceptedConsent(deps: EmbedDependencies, session: EmbedSession, context: Context): Promise<number | null> {
  if (session.decision?.outcome !== 'accepted') return null;
  const acceptedAt = session.decision.decidedAt;
  const grantContext = { ...context, causationId: session.sessionId };
  const request = {
    occurredAt: acceptedAt,
    sourceSystem: EMBED_SOURCE_SYSTEM,
    sourceReference: session.dynamicReference ?? session.sessionId,
    evidence: { kind: 'electronic' as const, authentication: { method: 'embedded_consent_page', reference: session.sessionId } },
  };
  const requestSha256 = createHash('sha256').update(`embed-session\u0000${session.sessionId}\u0000${acceptedAt}`).digest('hex');
  const granted =
    session.consentKind === 'redec'
      ? await grantConsent(deps, session.interactionId, request, requestSha256, grantContext, 'embedded')
      : await grantGeneralConsent(deps.store, session.interactionId, request, requestSha256, grantContext, 'embedded');
  return granted.position;
}

export interface EmbedDecisionResult {
  session: EmbedSession;
  /** Where to send the browser: the integrator's returnUrl with the signed result, or null without one. */
  redirectUrl: string | null;
  position: number | null;
}

/**
 * Records the data subject's decision from the page. The page token is the
 * credential: a wrong one is answered as an unknown session. The decision is
 * appended at the revision read, so of two concurrent decisions one is
 * refused as already used; an acceptance then records its consent.
 */
export async function decideOnEmbedSession(
  deps: EmbedDependencies,
  sessionId: string,
  pageToken: string,
  outcome: EmbedDecision,
  context: Context,
): Promise<EmbedDecisionResult> {
  const loaded = await loadEmbedSession(deps, sessionId, context);
  if (!loaded || !pageTokenMatches(loaded.session, pageToken)) throw notFound('embed session');
  const decided = decideEmbedSession(loaded.session, outcome, context.now);
  try {
    await deps.store.append(embedStreams.session(context.tenantId, sessionId), [toNewEvent(decided, context)], loaded.revision);
  } catch (error) {
    // Another decision was recorded since the session was read: this one is the replay.
    if (error instanceof WrongExpectedVersionError) return decideOnEmbedSession(deps, sessionId, pageToken, outcome, context);
    throw error;
  }
  const session = evolveEmbedSession(loaded.session, decided)!;
  const position = await recordAcceptedConsent(deps, session, context);
  return { session, redirectUrl: redirectFor(deps, session, context.tenantId), position };
}

function redirectFor(deps: EmbedDependencies, session: EmbedSession, tenantId: string): string | null {
  if (session.returnUrl === null || session.decision === null) return null;
  const secret = deps.protection.decrypt(tenantId, session.resultSecretCiphertext);
  return resultRedirectUrl(session.returnUrl, secret, {
    sessionId: session.sessionId,
    status: session.decision.outcome,
    dynamicReference: session.dynamicReference,
    timestamp: Math.floor(session.decision.decidedAt / 1000),
  });
}

export interface ConsentPageSession {
  session: EmbedSession;
  status: EmbedSessionStatus;
  /** The configuration version frozen for the session: what the page presents. */
  configuration: GrantableConfiguration;
}

/** The session behind a page URL: a wrong token is answered as an unknown session. */
export async function readConsentPageSession(deps: EmbedDependencies, sessionId: string, pageToken: string, context: Context): Promise<ConsentPageSession> {
  const loaded = await loadEmbedSession(deps, sessionId, context);
  if (!loaded || !pageTokenMatches(loaded.session, pageToken)) throw notFound('embed session');
  const { state: interaction } = await loadAggregate(deps.store, redecStreams.interaction(context.tenantId, loaded.session.interactionId), evolveInteraction);
  if (!interaction) throw new Error(`embed session ${sessionId} names interaction ${loaded.session.interactionId}, which has no facts`);
  return { session: loaded.session, status: embedSessionStatus(loaded.session, context.now), configuration: interaction.configuration };
}
