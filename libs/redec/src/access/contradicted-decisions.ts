import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { fieldRefused } from '@ledger/platform';
import { ReadModel, cursorBeforeSortKey } from '@ledger/projections';
import { readConsentReferences } from '../audit/consent-references.projection';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { CONSENTS_PROJECTION } from '../consent/consents.projection';
import { readIndexPage } from '../read-index-page';
import { redecStreams } from '../streams';
import { AccessRequest, DenyReasonCode, denyReasonAt } from './access.decider';
import { CONTRADICTED_AUTHORIZATIONS_INDEX } from './authorization-spans';
import { AccessConfirmed, AccessDecided } from './access.events';

/**
 * Decision 0056: an `authorized` decision is a fact made on what was known
 * when it was taken, and stays one. A fact reported later can show that the
 * consent did not enable that access at `decidedAt` after all (a revocation
 * back-dated before it, an extension annulled, an obligation that ended
 * earlier than the bank had said). Such decisions are listed for the
 * operator, each with the fact that contradicts it.
 */

/** An authorized decision the consent's later facts contradict. */
export interface ContradictedDecision {
  redecAccessId: string;
  redecConsentId: string;
  decidedAt: number;
  consentAuthorizationMode: AccessRequest['consentAuthorizationMode'];
  accessPurpose: NonNullable<AccessRequest['accessPurpose']> | null;
  reportingObligation: { sourceSystem: string; sourceReference: string };
  objectiveCode: string;
  /** What the consent's facts, as they stand now, answer for this access at `decidedAt`. */
  denyReasonCode: DenyReasonCode;
  /** The outcome the bank confirmed, if it did. */
  confirmation: AccessConfirmed['data']['outcome'] | null;
  /** The fact recorded after the decision that made the consent deny it. */
  contradictedBy: { eventId: string; type: string; position: number; recordedAt: number };
}

/** Where a page stopped: in the consent `from`, after `skip` of its contradicted decisions. */
interface ListCursor {
  from: string;
  skip: number;
}

/**
 * One page of the tenant's authorized decisions contradicted by facts
 * recorded after them, ordered by consent id, then by when each decision
 * was recorded. The consents model names the consents to look at; each
 * one's facts and decisions are read from the store, so what is listed is
 * what the ledger holds. Paged with `limit` and `cursor`; a cursor is a
 * place in the order, not a snapshot.
 */
export async function listContradictedDecisions(
  readModel: ReadModel,
  store: EventStore,
  tenantId: string,
  page: { limit: number; cursor: string | null },
): Promise<{ items: ContradictedDecision[]; nextCursor: string | null }> {
  const start = page.cursor === null ? null : parseCursor(page.cursor);
  const items: ContradictedDecision[] = [];
  let after = start && cursorBeforeSortKey(start.from);
  for (;;) {
    const consents = await readIndexPage<ConsentState>(readModel, CONSENTS_PROJECTION, CONTRADICTED_AUTHORIZATIONS_INDEX, tenantId, { after, limit: page.limit });
    for (const { document } of consents.entries) {
      const { redecConsentId } = document.grant;
      const skip = start?.from === redecConsentId ? start.skip : 0;
      const contradicted = (await contradictedDecisionsOf(readModel, store, tenantId, redecConsentId)).slice(skip);
      const taken = contradicted.slice(0, page.limit - items.length);
      items.push(...taken);
      if (items.length === page.limit) return { items, nextCursor: cursorOf({ from: redecConsentId, skip: skip + taken.length }) };
    }
    if (consents.nextCursor === null) return { items, nextCursor: null };
    after = consents.nextCursor;
  }
}

/** The consent's authorized decisions its facts now deny, in the order they were recorded, each with the fact that turned it. */
export async function contradictedDecisionsOf(readModel: ReadModel, store: EventStore, tenantId: string, redecConsentId: string): Promise<ContradictedDecision[]> {
  const consentFacts = await store.readStream(redecStreams.consent(tenantId, redecConsentId));
  const accessPrefix = redecStreams.access(tenantId, '');
  const accessStreams = (await readConsentReferences(readModel, tenantId, redecConsentId)).filter((stream) => stream.startsWith(accessPrefix));
  const fold = (from: ConsentState | null, facts: readonly RecordedEvent[]) => facts.reduce((state, e) => evolveConsent(state, e as unknown as ConsentEvent, tenantId), from);
  const now = fold(null, consentFacts);
  if (!now) return [];
  const contradicted: Array<ContradictedDecision & { position: number }> = [];
  for (const recorded of await Promise.all(accessStreams.map((stream) => store.readStream(stream)))) {
    const [decided, confirmed] = recorded as unknown as [RecordedEvent<AccessDecided['data']> | undefined, RecordedEvent<AccessConfirmed['data']> | undefined];
    if (!decided || decided.type !== 'AccessDecided' || decided.data.status !== 'authorized' || decided.data.redecConsentId !== redecConsentId) continue;
    const { request, decidedAt, redecAccessId } = decided.data;
    const denyReasonCode = denyReasonAt(now, request, decidedAt);
    if (denyReasonCode === null) continue;
    // The fact after which the consent's facts last turned to deny it: replayed from what was known when it was decided.
    let state = fold(null, consentFacts.filter((e) => e.position < decided.position));
    let denied = state !== null && denyReasonAt(state, request, decidedAt) !== null;
    let turning = consentFacts[consentFacts.length - 1];
    for (const fact of consentFacts.filter((e) => e.position > decided.position)) {
      state = fold(state, [fact]);
      const deniedNow = state !== null && denyReasonAt(state, request, decidedAt) !== null;
      if (deniedNow && !denied) turning = fact;
      denied = deniedNow;
    }
    contradicted.push({
      position: decided.position,
      redecAccessId,
      redecConsentId,
      decidedAt,
      consentAuthorizationMode: request.consentAuthorizationMode,
      accessPurpose: request.accessPurpose ?? null,
      reportingObligation: { sourceSystem: request.reportingObligation.sourceSystem, sourceReference: request.reportingObligation.sourceReference },
      objectiveCode: request.objectiveCode,
      denyReasonCode,
      confirmation: confirmed?.type === 'AccessConfirmed' ? confirmed.data.outcome : null,
      contradictedBy: { eventId: turning.id, type: turning.type, position: turning.position, recordedAt: turning.metadata.recordedAt },
    });
  }
  return contradicted.sort((a, b) => a.position - b.position).map(({ position: _position, ...item }) => item);
}

function cursorOf(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function parseCursor(text: string): ListCursor {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as ListCursor;
    if (typeof cursor.from === 'string' && /^[\x20-\x7e]+$/.test(cursor.from) && Number.isSafeInteger(cursor.skip) && cursor.skip >= 0 && cursorOf(cursor) === text) return cursor;
  } catch {
    // Not JSON: refused below like any other cursor this list did not hand out.
  }
  throw fieldRefused('cursor', 'invalid_cursor', 'cursor is not a nextCursor this list handed out.');
}
