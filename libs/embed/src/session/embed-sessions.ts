import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  CompletedConsentDecision,
  DecisionDependencies,
  completeConsentDecision,
  decideConsentDecision,
  generalConsentIdFor,
  loadConsentDecision,
  recordDecision,
} from '@ledger/consents';
import { RecordedEvent } from '@ledger/event-store';
import { CommandContext, Decision, Tenant, TenantPresentation, loadAggregate, loadTenant, runCommand, tenantDisplayName, toNewEvent } from '@ledger/ledger';
import { DomainError, fieldRefused, notFound } from '@ledger/platform';
import {
  CustomerReference,
  GrantEvidence,
  GrantableConfiguration,
  ReadableTerms,
  UnexplainedCode,
  createInteractions,
  derivedUuid,
  evolveInteraction,
  isEmbedOrigin,
  profileOf,
  redecConsentIdFor,
  redecStreams,
  unexplainedCodes,
} from '@ledger/redec';
import { embedStreams } from '../streams';
import { EmbedSession, EmbedSessionStatus, assertEmbedSessionOpen, decideEmbedSession, embedSessionStatus, evolveEmbedSession, pageTokenMatches, pageTokenSha256 } from './embed-session.decider';
import { EmbedDecision, EmbedSessionEvent, EmbedSessionOpened } from './embed-session.events';
import { generateResultSecret, resultRedirectUrl } from './embed-result';

type Context = CommandContext & { tenantId: string };

export interface EmbedDependencies extends DecisionDependencies {
  /** Encrypts the result secret under the tenant's key, and decrypts it to sign the redirect. */
  protection: DecisionDependencies['protection'] & { encrypt(tenantId: string, plaintext: string): Promise<string>; decrypt(tenantId: string, ciphertext: string): Promise<string> };
}

/** The system recorded as the grant's source: the service's own consent page. */
export const EMBED_SOURCE_SYSTEM = 'ledger-embedded-consent-page';

export interface OpenEmbedSessionRequest {
  customer: CustomerReference;
  /** The data subject's name for the certificates of what they accept, as the bank chose to show it; null for none. */
  dataSubjectName: string | null;
  /** The configurations the page offers, in the order it shows them. */
  configurationIds: string[];
  /** How the request named them: a refusal names `configurationIds[i]` only when it sent that list. */
  configurationField: 'configurationId' | 'configurationIds';
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

/** Who may frame a page offering these configurations: only an origin each of them allows (none when one allows none). */
function commonAllowedOrigins(configurations: readonly GrantableConfiguration[]): string[] {
  const [first, ...others] = configurations.map((configuration) => configuration.embed?.allowedOrigins ?? []);
  return first.filter((origin) => others.every((allowed) => allowed.includes(origin)));
}

/**
 * Opens a session: resolves the customer inline (or by id) exactly as an
 * interaction does, freezes each configuration version in an interaction of
 * its own, and records the session. Checks that need only the request and
 * the configurations run first, so a refused session records nothing.
 */
export async function openEmbedSession(deps: EmbedDependencies, request: OpenEmbedSessionRequest, context: Context): Promise<OpenedEmbedSession> {
  const { tenantId, now } = context;
  const terms = new ReadableTerms((await tenantPresentation(deps, tenantId))?.terms);
  const unexplained: UnexplainedCode[] = [];
  for (const id of request.configurationIds) {
    // A configuration not found is refused by createInteractions, with the field that names it.
    const found = await deps.findConfiguration(tenantId, id);
    if (found && request.returnUrl !== null) checkReturnUrl(request.returnUrl, found.embed?.allowedOrigins ?? []);
    if (found?.redec) unexplained.push(...unexplainedCodes(terms, found.redec));
  }
  if (unexplained.length > 0) throw readableTermsMissing(unexplained);
  const configurationField = request.configurationField === 'configurationIds' ? (index: number) => `configurationIds[${index}]` : undefined;
  const opened = await createInteractions(deps, { customer: request.customer, dataSubjectName: request.dataSubjectName, configurationIds: request.configurationIds }, context, 'embedded', configurationField);
  const pageToken = randomBytes(32).toString('base64url');
  const resultSecret = generateResultSecret();
  const event: EmbedSessionOpened = {
    type: 'EmbedSessionOpened',
    data: {
      sessionId: randomUUID(),
      customerId: opened.customerId,
      items: opened.interactions.map(({ interactionId, configuration }) => ({
        interactionId,
        configurationId: configuration.configurationId,
        consentKind: configuration.redec ? 'redec' : 'general',
        consentId: configuration.redec ? redecConsentIdFor(tenantId, interactionId) : generalConsentIdFor(tenantId, interactionId),
      })),
      pageTokenSha256: pageTokenSha256(pageToken),
      resultSecretCiphertext: await deps.protection.encrypt(tenantId, resultSecret),
      returnUrl: request.returnUrl,
      dynamicReference: request.dynamicReference,
      allowedOrigins: commonAllowedOrigins(opened.interactions.map((i) => i.configuration)),
      openedAt: now,
      expiresAt: now + request.expiresInSeconds * 1000,
    },
  };
  const appended = await deps.store.append(embedStreams.session(tenantId, event.data.sessionId), [toNewEvent(event, context)], 'no_stream');
  return { session: evolveEmbedSession(null, event)!, pageToken, resultSecret, customerCreated: opened.customerCreated, position: appended.position };
}

export interface LoadedSession {
  session: EmbedSession;
  /** The Multi-Consent decision the session recorded once decided, with its consents. */
  decision: CompletedConsentDecision | null;
  /** Position of the last fact recorded while loading (a completed decision), for read-your-writes. */
  position: number | null;
}

/** A session's decision is a Multi-Consent decision named after the session. */
export function embedDecisionIdFor(tenantId: string, sessionId: string): string {
  return derivedUuid('embed-session-decision', tenantId, sessionId);
}

/**
 * The session as its facts say, with its decision recorded once decided: the
 * page's decision is appended to the session first (the single-use claim),
 * so a process that stopped before recording the decision and its consents
 * leaves them to be recorded here, by whoever reads the session next. Both
 * are derived from the session's facts alone, so recording them again
 * answers the same.
 */
export async function loadEmbedSession(deps: EmbedDependencies, sessionId: string, context: Context): Promise<LoadedSession | null> {
  const session = foldEmbedSession(await deps.store.readStream(embedStreams.session(context.tenantId, sessionId)));
  if (!session) return null;
  const decision = await recordSessionDecision(deps, session, context);
  return { session, decision, position: decision?.position ?? null };
}

function foldEmbedSession(recorded: readonly RecordedEvent[]): EmbedSession | null {
  return recorded.reduce<EmbedSession | null>((state, e) => evolveEmbedSession(state, e as unknown as EmbedSessionEvent), null);
}

async function recordSessionDecision(deps: EmbedDependencies, session: EmbedSession, context: Context): Promise<CompletedConsentDecision | null> {
  if (!session.decision) return null;
  const { tenantId } = context;
  const decisionId = embedDecisionIdFor(tenantId, session.sessionId);
  const earlier = await loadConsentDecision(deps.store, tenantId, decisionId);
  if (earlier) return completeConsentDecision(deps, earlier, context);

  const { decidedAt, decisions } = session.decision;
  // The receipt of the decision is the regulatory grantedAt (docs/reference/grants.md, "Embedded capture").
  const evidence: GrantEvidence = { kind: 'electronic', authentication: { method: 'embedded_consent_page', reference: session.sessionId } };
  const configurations = await Promise.all(session.items.map((item) => frozenConfiguration(deps, tenantId, item.interactionId)));
  const base = { occurredAt: decidedAt, sourceSystem: EMBED_SOURCE_SYSTEM, sourceReference: session.dynamicReference ?? session.sessionId };
  const items = decideConsentDecision({
    ...base,
    tenantId,
    capture: 'embedded',
    // Checked against every configuration's profile when the session was opened.
    identity: null,
    items: session.items.map((item, index) => ({
      configurationId: item.configurationId,
      configuration: configurations[index],
      profile: profileOf(deps.profiles, configurations[index]),
      interactionId: item.interactionId,
      decision: decisions[index],
      redec: item.consentKind === 'redec' && decisions[index] === 'accepted' ? { representation: null, evidence } : undefined,
    })),
    generalEvidence: evidence,
    now: decidedAt,
  });
  return recordDecision(
    deps,
    {
      type: 'ConsentDecisionRecorded',
      data: {
        ...base,
        decisionId,
        customerId: session.customerId,
        recordedAt: decidedAt,
        captureTiming: 'embedded',
        embedSessionId: session.sessionId,
        // What grants of sessions decided before decisions were recorded carry: recording one again answers it.
        requestSha256: createHash('sha256').update(`embed-session\u0000${session.sessionId}\u0000${decidedAt}`).digest('hex'),
        items,
      },
    },
    { ...context, causationId: session.sessionId },
  );
}

async function frozenConfiguration(deps: EmbedDependencies, tenantId: string, interactionId: string): Promise<GrantableConfiguration> {
  const { state: interaction } = await loadAggregate(deps.store, redecStreams.interaction(tenantId, interactionId), evolveInteraction);
  if (!interaction) throw new Error(`embed session names interaction ${interactionId}, which has no facts`);
  return interaction.configuration;
}

export interface EmbedDecisionResult {
  session: EmbedSession;
  /** Where to send the browser: the integrator's returnUrl with the signed result, or null without one. */
  redirectUrl: string | null;
  position: number | null;
}

/**
 * Records the data subject's decision on every item from the page. The page
 * token is the credential: a wrong one is answered as an unknown session.
 * The decision is appended to the session through the one command path, so
 * of two concurrent decisions one is recorded and the other, decided again
 * on the session it finds decided, refused as already used; then the
 * Multi-Consent decision and its consents are recorded from it.
 */
export async function decideOnEmbedSession(
  deps: EmbedDependencies,
  sessionId: string,
  pageToken: string,
  decisions: EmbedDecision[],
  context: Context,
): Promise<EmbedDecisionResult> {
  const stream = embedStreams.session(context.tenantId, sessionId);
  const { result } = await runCommand(deps.store, context, async (reads): Promise<Decision<{ session: EmbedSession; decidedHere: boolean }>> => {
    const session = foldEmbedSession(await reads.events(stream));
    // Decided already: refused below, once the decision recorded on it is completed, as any read of the session completes it.
    if (session?.decision) return { answer: { session, decidedHere: false }, position: null };
    if (!session || !pageTokenMatches(session, pageToken)) throw notFound('embed session');
    const decided = decideEmbedSession(session, decisions, context.now);
    return { record: { streamId: stream, facts: [decided] }, answer: { session: evolveEmbedSession(session, decided)!, decidedHere: true } };
  });
  const { session, decidedHere } = result;
  const decision = await recordSessionDecision(deps, session, context);
  if (!decidedHere) {
    if (!pageTokenMatches(session, pageToken)) throw notFound('embed session');
    assertEmbedSessionOpen(session, context.now);
  }
  return { session, redirectUrl: await redirectFor(deps, session, context.tenantId), position: decision?.position ?? null };
}

async function redirectFor(deps: EmbedDependencies, session: EmbedSession, tenantId: string): Promise<string | null> {
  if (session.returnUrl === null || session.decision === null) return null;
  const { decision } = session;
  const secret = await deps.protection.decrypt(tenantId, session.resultSecretCiphertext);
  return resultRedirectUrl(session.returnUrl, secret, {
    sessionId: session.sessionId,
    status: decision.outcome,
    items: session.items.length > 1 ? session.items.map((item, index) => ({ configurationId: item.configurationId, decision: decision.decisions[index] })) : null,
    dynamicReference: session.dynamicReference,
    timestamp: Math.floor(decision.decidedAt / 1000),
  });
}

export interface ConsentPageSession {
  session: EmbedSession;
  status: EmbedSessionStatus;
  /** The configuration versions frozen for the session, in its order: what the page presents. */
  configurations: GrantableConfiguration[];
  /** How the bank appears on the page, as it is now: its name (the tenant's own name when it set none), its colour, what its codes mean. */
  presentation: PagePresentation;
}

/** The bank as the page shows it. */
export interface PagePresentation {
  displayName: string;
  logo: { mediaType: string; base64: string } | null;
  /** Null: the page's own colour. */
  accentColor: string | null;
  terms: ReadableTerms;
}

async function tenantPresentation(deps: EmbedDependencies, tenantId: string): Promise<TenantPresentation | null> {
  return (await loadTenant(deps.store, tenantId))?.settings.presentation ?? null;
}

/**
 * A page never shows a person a code without what it means (decision 0075):
 * a session whose page would show a code the bank's presentation does not
 * explain is refused, naming where in the presentation the meaning goes.
 */
export function readableTermsMissing(unexplained: ReadonlyArray<Pick<UnexplainedCode, 'kind' | 'code'>>): DomainError {
  const fields = [...new Set(unexplained.map(({ kind, code }) => `presentation.terms.${kind}.${code}`))];
  return new DomainError('conflict', 'readable_terms_missing', `The page would show ${fields.length} code(s) without their meaning: set them in the tenant's presentation (PUT /v1/tenant-settings/presentation).`, {
    errors: fields.map((field) => ({ field, reason: 'readable_terms_missing' })),
  });
}

/** The session behind a page URL: a wrong token is answered as an unknown session. */
export async function readConsentPageSession(deps: EmbedDependencies, sessionId: string, pageToken: string, context: Context): Promise<ConsentPageSession> {
  const loaded = await loadEmbedSession(deps, sessionId, context);
  if (!loaded || !pageTokenMatches(loaded.session, pageToken)) throw notFound('embed session');
  const [configurations, tenant] = await Promise.all([
    Promise.all(loaded.session.items.map((item) => frozenConfiguration(deps, context.tenantId, item.interactionId))),
    loadTenant(deps.store, context.tenantId),
  ]);
  return { session: loaded.session, status: embedSessionStatus(loaded.session, context.now), configurations, presentation: pagePresentationOf(tenant) };
}

/** The bank as every page shows it, from its tenant as it is now. */
export function pagePresentationOf(tenant: Tenant | null): PagePresentation {
  const presentation = tenant?.settings.presentation ?? null;
  return {
    displayName: tenantDisplayName(tenant),
    logo: presentation?.logo ?? null,
    accentColor: presentation?.accentColor ?? null,
    terms: new ReadableTerms(presentation?.terms),
  };
}
