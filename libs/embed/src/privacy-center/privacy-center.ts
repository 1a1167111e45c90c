import { randomBytes, randomUUID } from 'node:crypto';
import { GeneralConsentEvent, GeneralConsentState, consentStreams, evolveGeneralConsent, revokeGeneralConsent } from '@ledger/consents';
import { RecordedEvent } from '@ledger/event-store';
import { CommandContext, Decision, loadAggregate, runCommand, toNewEvent } from '@ledger/ledger';
import { notFound } from '@ledger/platform';
import {
  CustomerReference,
  LifecycleDependencies,
  RIGHTS_REQUEST_KINDS,
  RightsRequestDependencies,
  RightsRequestKind,
  customerOfRequest,
  loadConsent,
  receiveRightsRequest,
  revokeConsent,
} from '@ledger/redec';
import { pageTokenMatches, pageTokenSha256 } from '../session/embed-session.decider';
import { checkReturnUrl } from '../session/embed-sessions';
import { embedStreams } from '../streams';
import {
  PrivacyCenterSession,
  PrivacyCenterSessionEvent,
  PrivacyCenterSessionOpened,
  RevocationOutcome,
  assertPrivacyCenterSessionOpen,
  decideEndPrivacyCenterSession,
  evolvePrivacyCenterSession,
} from './privacy-center-session';

type Context = CommandContext & { tenantId: string };

export type PrivacyCenterDependencies = RightsRequestDependencies & LifecycleDependencies;

/** The system recorded as the source of what the person does on the page. */
export const PRIVACY_CENTER_SOURCE_SYSTEM = 'ledger-privacy-center';

/** The kinds of request a person files on the page: every right of Ley 21.719; a REDEC dispute needs the registry's codes, which the bank files. */
export const PRIVACY_CENTER_REQUEST_KINDS: readonly RightsRequestKind[] = RIGHTS_REQUEST_KINDS.filter((kind) => kind !== 'redec_dispute');

export interface OpenPrivacyCenterRequest {
  customer: CustomerReference;
  identityAssurance: string;
  returnUrl: string | null;
  expiresInSeconds: number;
}

export interface OpenedPrivacyCenterSession {
  session: PrivacyCenterSession;
  /** The page's credential, shown to the bank only inside the page URL. */
  pageToken: string;
  customerCreated: boolean;
  position: number;
}

/**
 * Opens the center for one customer: by id, or resolved inline as every
 * capture resolves it. `checkShown` is told the customer before anything is
 * recorded for the session, to refuse one whose page could not be shown
 * (a code without its meaning).
 */
export async function openPrivacyCenterSession(
  deps: PrivacyCenterDependencies,
  request: OpenPrivacyCenterRequest,
  context: Context,
  checkShown: (customerId: string) => Promise<void>,
): Promise<OpenedPrivacyCenterSession> {
  const { now, tenantId } = context;
  // Checked first: a refused session records nothing, not even the customer it names.
  if (request.returnUrl !== null) checkReturnUrl(request.returnUrl, []);
  const customer = await customerOfRequest(deps, request.customer, context, () => undefined);
  await checkShown(customer.customerId);
  const pageToken = randomBytes(32).toString('base64url');
  const opened: PrivacyCenterSessionOpened = {
    type: 'PrivacyCenterSessionOpened',
    data: {
      sessionId: randomUUID(),
      customerId: customer.customerId,
      pageTokenSha256: pageTokenSha256(pageToken),
      identityAssurance: request.identityAssurance,
      returnUrl: request.returnUrl,
      openedAt: now,
      expiresAt: now + request.expiresInSeconds * 1000,
    },
  };
  const appended = await deps.store.append(embedStreams.privacyCenterSession(tenantId, opened.data.sessionId), [toNewEvent(opened, context)], 'no_stream');
  return { session: evolvePrivacyCenterSession(null, opened)!, pageToken, customerCreated: customer.customerCreated, position: appended.position };
}

/**
 * The session behind a page, for a browser that shows its token: a wrong
 * token is answered as an unknown session, an expired one as expired.
 */
export async function readPrivacyCenterSession(deps: Pick<PrivacyCenterDependencies, 'store'>, sessionId: string, pageToken: string, context: Context): Promise<PrivacyCenterSession> {
  const session = foldSession(await deps.store.readStream(embedStreams.privacyCenterSession(context.tenantId, sessionId)));
  if (!session || !pageTokenMatches(session, pageToken)) throw notFound('privacy center session');
  assertPrivacyCenterSessionOpen(session, context.now);
  return session;
}

function foldSession(recorded: readonly RecordedEvent[]): PrivacyCenterSession | null {
  return recorded.reduce<PrivacyCenterSession | null>((state, event) => evolvePrivacyCenterSession(state, event as unknown as PrivacyCenterSessionEvent), null);
}

/**
 * Ends a session, for the person on the page or for the bank, through the
 * one command path: decided on the session as recorded, so of two
 * concurrent ends one is recorded and the other finds the session over.
 * Ending one that is over already records nothing.
 */
export async function endPrivacyCenterSession(deps: Pick<PrivacyCenterDependencies, 'store'>, sessionId: string, context: Context): Promise<void> {
  const stream = embedStreams.privacyCenterSession(context.tenantId, sessionId);
  await runCommand(deps.store, context, async (reads): Promise<Decision<void>> => {
    const session = foldSession(await reads.events(stream));
    if (!session) throw notFound('privacy center session');
    const ended = decideEndPrivacyCenterSession(session, context.now);
    return ended ? { record: { streamId: stream, facts: [ended] }, answer: undefined } : { answer: undefined, position: null };
  });
}

/** A consent as the page names it in its forms. */
export interface ConsentOnPage {
  kind: 'redec' | 'general';
  consentId: string;
}

export interface PageRevocation {
  outcome: RevocationOutcome;
  position: number;
}

/**
 * The person revokes one of their consents: recorded as the bank's API
 * records a revocation, on channel `digital`, by the data subject
 * (`direct`), at the service's receipt, with the identity assurance the bank
 * stated for the session, so every rule of the lifecycle applies (a kept
 * revocation while a credit extension is active, a second one refused). A
 * consent of another customer is answered as unknown: the page only acts on
 * the session's customer's.
 */
export async function revokeOnPrivacyCenter(deps: PrivacyCenterDependencies, session: PrivacyCenterSession, consent: ConsentOnPage, context: Context): Promise<PageRevocation> {
  const { tenantId, now } = context;
  assertPrivacyCenterSessionOpen(session, now);
  if (consent.kind === 'redec') {
    const state = await loadConsent(deps.store, tenantId, consent.consentId);
    if (state?.grant.customerId !== session.customerId) throw notFound('consent');
    const revoked = await revokeConsent(deps, consent.consentId, { channel: 'digital', occurredAt: now, sourceType: 'direct', identityAssurance: session.identityAssurance }, context);
    return { outcome: revoked.result.effective ? 'revoked' : 'revocation_kept', position: revoked.position };
  }
  const { state: general } = await loadAggregate(deps.store, consentStreams.generalConsent(tenantId, consent.consentId), (s: GeneralConsentState | null, e: GeneralConsentEvent) =>
    evolveGeneralConsent(s, e, tenantId),
  );
  if (general?.grant.customerId !== session.customerId) throw notFound('consent');
  const revoked = await revokeGeneralConsent(deps.store, consent.consentId, { occurredAt: now, channel: 'digital', sourceSystem: PRIVACY_CENTER_SOURCE_SYSTEM, sourceReference: session.sessionId }, context);
  return { outcome: 'revoked', position: revoked.position };
}

export interface PageRightsRequest {
  kind: RightsRequestKind;
  /** In the person's words; null for none. */
  description: string | null;
}

/** The person files a rights request: received now, on channel `digital`, from the page, for the session's customer. */
export async function fileOnPrivacyCenter(deps: PrivacyCenterDependencies, session: PrivacyCenterSession, request: PageRightsRequest, context: Context): Promise<{ position: number }> {
  assertPrivacyCenterSessionOpen(session, context.now);
  const received = await receiveRightsRequest(
    deps,
    {
      customer: { customerId: session.customerId },
      kind: request.kind,
      receivedAt: context.now,
      channel: 'digital',
      sourceSystem: PRIVACY_CENTER_SOURCE_SYSTEM,
      sourceReference: session.sessionId,
      ...(request.description !== null ? { description: request.description } : {}),
    },
    context,
  );
  return { position: received.position };
}
