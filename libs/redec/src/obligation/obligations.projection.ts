import type { RecordedEvent } from '@ledger/event-store';
import type { DocumentProjection, IndexEntry, ReadModel } from '@ledger/projections';
import { ConsentEvent } from '../consent/consent.events';
import { ObligationRef } from '../consent/enablement';
import { ConsentCode, consentCodeFor } from './consent-code';
import { ObligationBinding, ObligationEvent } from './obligation.events';
import { obligationKey } from './obligation-key';

/** Everything the ledger knows about one reportable obligation of a tenant. */
export interface ObligationDocument {
  tenantId: string;
  sourceSystem: string;
  obligationReference: string;
  /** Explicit bindings in force, in the order recorded. */
  bindings: ObligationBinding[];
  /** Credit extensions of this obligation in force; each is also the obligation's exact binding (docs/reference/obligations.md, "Binding an obligation"). */
  creditExtensions: ObligationExtension[];
  /** Extensions (of other obligations) whose end named this one as superseding them: it does not inherit their consent (docs/reference/credit-extensions.md, "Superseding obligations"). */
  supersededExtensions: Array<{ redecConsentId: string; creditExtensionId: string }>;
  /** Explicit bindings annulled, still findable by id so that a second annulment is answered for what it is. */
  annulledBindingIds: string[];
}

export interface ObligationExtension {
  redecConsentId: string;
  creditExtensionId: string;
  internalConsentCode: string;
  creditGrantedAt: number;
  extendedAt: number;
  /** Its end is in force: the obligation is not extended again, on any consent. */
  ended: boolean;
}

export const OBLIGATIONS_PROJECTION = 'redec-obligations';

export function obligationDocumentId(tenantId: string, sourceSystem: string, obligationReference: string): string {
  return obligationDocumentIdOfKey(tenantId, obligationKey(sourceSystem, obligationReference));
}

/** The document id of the obligation an index lists by its key. */
export function obligationDocumentIdOfKey(tenantId: string, key: string): string {
  return `${tenantId}:${key}`;
}

/** Index of explicit bindings by id (annulled ones included), so a binding can be annulled by its id alone. */
const bindingIndex = (tenantId: string, bindingId: string): IndexEntry => ({ index: 'binding', value: `${tenantId}:${bindingId}` });
/**
 * Index of the obligations whose lookup, as their own facts have it, is
 * `unresolved` or `ambiguous`: half of the bank's reconciliation list
 * (reconciliation.ts), sorted by the obligation's key like the other half.
 */
export const RECONCILIATION_INDEX = 'reconciliation';
const reconciliationIndex = (document: ObligationDocument): IndexEntry => ({
  index: RECONCILIATION_INDEX,
  value: document.tenantId,
  sortKey: obligationKey(document.sourceSystem, document.obligationReference),
});

type Fact = ObligationEvent | ConsentEvent;

/**
 * The obligations a fact is about: the one it binds or whose extension it
 * changes, and the one named as superseding that extension, if any.
 */
function obligationsOf(fact: Fact): ObligationRef[] {
  switch (fact.type) {
    case 'ObligationBound':
    case 'ObligationBindingAnnulled':
      return [fact.data];
    case 'CreditExtensionRegistered':
      return [{ sourceSystem: fact.data.obligationSourceSystem, obligationReference: fact.data.creditOperationReference }];
    case 'CreditExtensionEnded':
    case 'CreditExtensionEndAnnulled':
    case 'CreditExtensionAnnulled': {
      const { obligationSourceSystem: sourceSystem, creditOperationReference, supersededByObligationReference } = fact.data;
      const own = { sourceSystem, obligationReference: creditOperationReference };
      return supersededByObligationReference === null ? [own] : [own, { sourceSystem, obligationReference: supersededByObligationReference }];
    }
    default:
      return [];
  }
}

/**
 * One document per tenant, source system and obligation reference, with
 * every binding and extension fact about it: what the consent-code lookup,
 * the registration of an extension (ended anywhere?) and the reconciliation
 * list read.
 */
export const obligationsProjection: DocumentProjection<ObligationDocument> = {
  name: OBLIGATIONS_PROJECTION,
  // 3: the reconciliation index sorted by obligation key (decision 0054). 4: ids and index values stored with their UUIDs compacted (decision 0081).
  version: 4,
  route(event: RecordedEvent): string[] {
    const { tenantId } = event.metadata;
    if (!tenantId) return [];
    return obligationsOf(event as unknown as Fact).map((o) => obligationDocumentId(tenantId, o.sourceSystem, o.obligationReference));
  },
  evolve(document: ObligationDocument | null, event: RecordedEvent): ObligationDocument | null {
    const fact = event as unknown as Fact;
    const obligations = obligationsOf(fact);
    if (obligations.length === 0) return document;
    // A fact about an extension reaches two documents: its own obligation's, which exists since the registration, and the superseding one's.
    const own = !document ? obligations.length === 1 : document.obligationReference === obligations[0].obligationReference && document.sourceSystem === obligations[0].sourceSystem;
    const { sourceSystem, obligationReference } = own ? obligations[0] : obligations[1];
    const doc: ObligationDocument = document ?? {
      tenantId: event.metadata.tenantId!,
      sourceSystem,
      obligationReference,
      bindings: [],
      creditExtensions: [],
      supersededExtensions: [],
      annulledBindingIds: [],
    };
    return own ? evolveOwn(doc, fact) : evolveSuperseding(doc, fact);
  },
  indexes(document: ObligationDocument): IndexEntry[] {
    const { tenantId } = document;
    const explicit = document.bindings.map((b) => bindingIndex(tenantId, b.bindingId));
    const annulled = document.annulledBindingIds.map((id) => bindingIndex(tenantId, id));
    const { result } = lookupAsBound(document);
    return [...explicit, ...annulled, ...(result === 'unresolved' || result === 'ambiguous' ? [reconciliationIndex(document)] : [])];
  },
};

function evolveOwn(doc: ObligationDocument, fact: Fact): ObligationDocument {
  switch (fact.type) {
    case 'ObligationBound':
      return { ...doc, bindings: [...doc.bindings, fact.data] };
    case 'ObligationBindingAnnulled': {
      const { bindingId } = fact.data;
      return { ...doc, bindings: doc.bindings.filter((b) => b.bindingId !== bindingId), annulledBindingIds: [...doc.annulledBindingIds, bindingId] };
    }
    case 'CreditExtensionRegistered': {
      const { redecConsentId, creditExtensionId, internalConsentCode, creditGrantedAt, extendedAt } = fact.data;
      return { ...doc, creditExtensions: [...doc.creditExtensions, { redecConsentId, creditExtensionId, internalConsentCode, creditGrantedAt, extendedAt, ended: false }] };
    }
    case 'CreditExtensionEnded':
    case 'CreditExtensionEndAnnulled': {
      const ended = fact.type === 'CreditExtensionEnded';
      return { ...doc, creditExtensions: doc.creditExtensions.map((e) => (e.creditExtensionId === fact.data.creditExtensionId ? { ...e, ended } : e)) };
    }
    case 'CreditExtensionAnnulled':
      return { ...doc, creditExtensions: doc.creditExtensions.filter((e) => e.creditExtensionId !== fact.data.creditExtensionId) };
    default:
      return doc;
  }
}

function evolveSuperseding(doc: ObligationDocument, fact: Fact): ObligationDocument {
  if (fact.type === 'CreditExtensionEnded') {
    const { redecConsentId, creditExtensionId } = fact.data;
    return { ...doc, supersededExtensions: [...doc.supersededExtensions, { redecConsentId, creditExtensionId }] };
  }
  if (fact.type === 'CreditExtensionEndAnnulled' || fact.type === 'CreditExtensionAnnulled') {
    return { ...doc, supersededExtensions: doc.supersededExtensions.filter((s) => s.creditExtensionId !== fact.data.creditExtensionId) };
  }
  return doc;
}

/** The exact binding a credit extension produces (docs/reference/obligations.md, "Binding an obligation"), its id the extension's. */
export function extensionBinding(document: Pick<ObligationDocument, 'sourceSystem' | 'obligationReference'>, extension: ObligationExtension): ObligationBinding {
  const { sourceSystem, obligationReference } = document;
  return {
    bindingId: extension.creditExtensionId,
    sourceSystem,
    obligationReference,
    kind: 'consent',
    redecConsentId: extension.redecConsentId,
    internalConsentCode: extension.internalConsentCode,
    obligationGrantedAt: extension.creditGrantedAt,
    boundAt: extension.extendedAt,
  };
}

/** docs/reference/obligations.md, "The consent-code lookup": every binding in force of the obligation, the exact binding each credit extension produces among them. */
export function bindingsOf(document: ObligationDocument): ObligationBinding[] {
  return [...document.bindings, ...document.creditExtensions.map((e) => extensionBinding(document, e))];
}

/**
 * The lookup as the obligation's own facts have it: its bindings, less those
 * to consents it superseded an obligation of. The exact lookup
 * (obligation-lookup.ts) also weighs each consent's facts and can only drop
 * more bindings: an obligation whose lookup this says is `unresolved` or
 * `ambiguous`, or one a consent's facts took a binding from (the consents
 * model lists those), is all the reconciliation list has to look at.
 */
function lookupAsBound(document: ObligationDocument): ConsentCode {
  const notInherited = new Set(document.supersededExtensions.map((s) => s.redecConsentId));
  return consentCodeFor(bindingsOf(document).filter((b) => b.redecConsentId === null || !notInherited.has(b.redecConsentId)));
}

/** The obligation's document in the tenant; null when the ledger knows nothing of it (another tenant's included). */
export function readObligation(readModel: ReadModel, tenantId: string, obligation: ObligationRef): Promise<ObligationDocument | null> {
  return readModel.getDocument<ObligationDocument>(OBLIGATIONS_PROJECTION, obligationDocumentId(tenantId, obligation.sourceSystem, obligation.obligationReference));
}

/** The obligation an explicit binding of the tenant belongs to (annulled ones included); null when there is no such binding. */
export async function findObligationOfBinding(readModel: ReadModel, tenantId: string, bindingId: string): Promise<ObligationRef | null> {
  const { index, value } = bindingIndex(tenantId, bindingId);
  const [document] = await readModel.findByIndex<ObligationDocument>(OBLIGATIONS_PROJECTION, index, value);
  return document ? { sourceSystem: document.sourceSystem, obligationReference: document.obligationReference } : null;
}
