import type { EventStore, RecordedEvent } from '@ledger/event-store';
import { streams } from '@ledger/ledger';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { RegulatoryRepresentation, regulatoryRepresentation } from '../consent/regulatory-representation';
import { redecStreams } from '../streams';
import { referencedConsent } from './consent-references.projection';

/** One recorded fact about a consent, as an auditor reads it. */
export interface HistoryEntry {
  position: number;
  stream: string;
  revision: number;
  type: string;
  recordedAt: number;
  /** The API key id (or `cli:<user>`, `worker:<queue>`) that recorded it. */
  actor: string | null;
  hash: string;
  previousHash: string | null;
  /** The fact as recorded, protected identity material shown only as `{ protected: true }` (`{ protected: true, erased: true }` once the data subject's data was erased). */
  data: unknown;
  /** The regulatory representation derived after this fact, as of its recording. */
  state: RegulatoryRepresentation | null;
}

export interface ConsentHistory {
  redecConsentId: string;
  /** The instant the history stands at: `at` when asked for one, otherwise now. */
  asOf: number;
  events: HistoryEntry[];
  /** The regulatory representation as the ledger stated it at `asOf` (status derived as of then). */
  representation: RegulatoryRepresentation;
  /** The data subject, and when its personal data was erased (decision 0035): null while it exists. */
  dataSubject: { customerId: string; erasedAt: number | null };
}

/**
 * Every fact of a consent in store order, as recorded: its own stream, and
 * the facts of its accesses and of its obligations' bindings that name it
 * (`referencedStreams`, from the references index); with `at`, only what was
 * recorded by then. Null when the consent does not exist in the tenant (by
 * then). What an auditor replays (the history) and verifies (the audit
 * bundle) alike.
 */
export async function consentFacts(
  store: EventStore,
  tenantId: string,
  redecConsentId: string,
  referencedStreams: readonly string[],
  at?: number,
): Promise<RecordedEvent[] | null> {
  const own = await store.readStream(redecStreams.consent(tenantId, redecConsentId));
  if (own.length === 0) return null;
  const referenced = (await Promise.all(referencedStreams.map((stream) => store.readStream(stream)))).flat();
  const facts = [...own, ...referenced.filter((e) => e.metadata.tenantId === tenantId && referencedConsent(e) === redecConsentId)]
    .filter((e) => at === undefined || e.metadata.recordedAt <= at)
    .sort((a, b) => a.position - b.position);
  return facts.length === 0 || facts[0].streamId !== own[0].streamId ? null : facts;
}

/** The consent's facts (`consentFacts`) as an auditor reads them, each with the representation derived after it. */
export async function consentHistory(
  store: EventStore,
  tenantId: string,
  redecConsentId: string,
  referencedStreams: readonly string[],
  when: { at?: number; now: number },
): Promise<ConsentHistory | null> {
  const { at } = when;
  const facts = await consentFacts(store, tenantId, redecConsentId, referencedStreams, at);
  if (facts === null) return null;
  const ownStream = facts[0].streamId;
  const { customerId } = facts[0].data as { customerId: string };
  const erasedAt = await customerErasedAt(store, tenantId, customerId);
  let consent: ConsentState | null = null;
  const events = facts.map((event): HistoryEntry => {
    if (event.streamId === ownStream) consent = evolveConsent(consent, event as unknown as ConsentEvent, tenantId);
    return {
      position: event.position,
      stream: event.streamId,
      revision: event.revision,
      type: event.type,
      recordedAt: event.metadata.recordedAt,
      actor: event.metadata.actor ?? null,
      hash: event.integrity.hash,
      previousHash: event.integrity.previousHash,
      data: redactProtected(event.data, erasedAt !== null),
      state: consent && regulatoryRepresentation(consent, event.metadata.recordedAt),
    };
  });
  const asOf = at ?? when.now;
  return { redecConsentId, asOf, events, representation: regulatoryRepresentation(consent!, asOf), dataSubject: { customerId, erasedAt } };
}

/**
 * An erasure is shown whatever `at` says: the identifiers existed then, but
 * nothing can recover them now, and the audit must not suggest otherwise.
 */
async function customerErasedAt(store: EventStore, tenantId: string, customerId: string): Promise<number | null> {
  const recorded = await store.readStream(streams.customer(tenantId, customerId), { direction: 'backwards' });
  const erased = recorded.find((e) => e.type === 'CustomerDataErased');
  return erased ? (erased.data as { erasedAt: number }).erasedAt : null;
}

/** Keyed hashes and ciphertexts of identifiers are internal identity material: an audit shows that they exist, not what they are. */
function redactProtected(value: unknown, erased: boolean): unknown {
  if (Array.isArray(value)) return value.map((inner) => redactProtected(inner, erased));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 2 && 'hash' in value && 'ciphertext' in value) return erased ? { protected: true, erased: true } : { protected: true };
  return Object.fromEntries(entries.map(([key, inner]) => [key, redactProtected(inner, erased)]));
}
