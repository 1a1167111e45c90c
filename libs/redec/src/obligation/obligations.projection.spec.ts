import type { RecordedEvent } from '@ledger/event-store';
import { CONSENT_EVENT_TYPES, ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { facts, grant, grantedAt } from '../consent/testing/consent-fixtures';
import { lookupOf } from './obligation-lookup';
import { ObligationBinding, ObligationBindingAnnulled, ObligationBound } from './obligation.events';
import { ObligationDocument, bindingsOf, obligationDocumentId, obligationsProjection } from './obligations.projection';

const CODE = grant.data.internalConsentCode;
/** Inside the fixture consent's initial window. */
const T = grantedAt + 86_400_000;
let position = 0;
const recorded = (event: ObligationBound | ObligationBindingAnnulled | ConsentEvent, tenantId: string | null = 't1'): RecordedEvent =>
  ({
    id: `e-${(position += 1)}`,
    type: event.type,
    data: event.data,
    metadata: { tenantId: tenantId ?? undefined, correlationId: 'c', recordedAt: 1, schemaVersion: 1 },
    streamId: 's',
    revision: 0,
    position,
    created: 1,
    integrity: { hash: 'h', previousHash: null },
  }) as RecordedEvent;
const binding = (overrides: Partial<ObligationBinding> = {}): ObligationBound => ({
  type: 'ObligationBound',
  data: { bindingId: 'b-1', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'legacy_pre_redec', redecConsentId: null, internalConsentCode: null, obligationGrantedAt: T, boundAt: T, ...overrides },
});
const toConsent = (overrides: Partial<ObligationBinding> = {}) => binding({ kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE, ...overrides });
const annulled = (bindingId: string, redecConsentId: string | null = null): ObligationBindingAnnulled => ({
  type: 'ObligationBindingAnnulled',
  data: { bindingId, sourceSystem: 'core-loans', obligationReference: 'op-1', redecConsentId, reason: 'mistake', sourceReference: 'ticket-1', annulledAt: T },
});
/** An extension registered from a source system other than the obligation's, so routing by the wrong one shows. */
const extension = (id = 'x-1', reference = 'op-1'): ConsentEvent => {
  const registered = facts.extension(id, reference, T) as Extract<ConsentEvent, { type: 'CreditExtensionRegistered' }>;
  return { ...registered, data: { ...registered.data, sourceSystem: 'branch-desk' } };
};
const superseded = (id = 'x-1', by = 'op-2') =>
  facts.extensionEnded(id, T + 10, { creditOperationReference: 'op-1', endReason: 'superseded_by_new_obligation', supersededByObligationReference: by });
const annulment = { reason: 'mistake', sourceReference: 'ticket-1', annulledAt: T + 20 };
const extensionAnnulled = (supersededByObligationReference: string | null = null): ConsentEvent => ({
  type: 'CreditExtensionAnnulled',
  data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', obligationSourceSystem: 'core-loans', creditOperationReference: 'op-1', supersededByObligationReference, ...annulment },
});
const endAnnulled = (supersededByObligationReference: string | null = null): ConsentEvent => ({
  type: 'CreditExtensionEndAnnulled',
  data: { redecConsentId: 'con-1', creditExtensionId: 'x-1', obligationSourceSystem: 'core-loans', creditOperationReference: 'op-1', supersededByObligationReference, ...annulment },
});

const idOf = (reference: string, tenantId = 't1') => obligationDocumentId(tenantId, 'core-loans', reference);
/** Folds the events into every document they touch, as the runner does. */
const fold = (...events: RecordedEvent[]): Map<string, ObligationDocument | null> => {
  const documents = new Map<string, ObligationDocument | null>();
  for (const event of events) {
    for (const id of obligationsProjection.route(event)) documents.set(id, obligationsProjection.evolve(documents.get(id) ?? null, event));
  }
  return documents;
};
const documentOf = (reference: string, ...events: RecordedEvent[]) => fold(...events).get(idOf(reference)) ?? null;
/** The lookup of the obligation after the events, its consent (the fixture's) folded from the same events, as the lookup route reads both. */
const lookup = (reference: string, ...events: RecordedEvent[]) => {
  const consent = events
    .filter((e) => CONSENT_EVENT_TYPES.has(e.type))
    .reduce<ConsentState | null>((state, e) => evolveConsent(state, e as unknown as ConsentEvent, 't1'), evolveConsent(null, grant, 't1'));
  return lookupOf(documentOf(reference, ...events), (id) => (id === 'con-1' ? consent : null));
};

describe('obligations projection', () => {
  it('is the versioned redec-obligations model', () => {
    expect(obligationsProjection).toMatchObject({ name: 'redec-obligations', version: 4 });
  });

  it('keeps an ObligationBound under its tenant, source system and obligation reference', () => {
    const event = recorded(binding());
    expect(obligationsProjection.route(event)).toEqual([idOf('op-1')]);
    expect(documentOf('op-1', event)).toEqual({
      tenantId: 't1',
      sourceSystem: 'core-loans',
      obligationReference: 'op-1',
      bindings: [binding().data],
      creditExtensions: [],
      supersededExtensions: [],
      annulledBindingIds: [],
    });
  });

  it("routes a credit extension to its consent's obligation source system and credit operation reference, as the exact consent binding it produces", () => {
    const event = recorded(extension());
    expect(obligationsProjection.route(event)).toEqual([idOf('op-1')]);
    expect(bindingsOf(documentOf('op-1', event)!)).toEqual([
      { bindingId: 'x-1', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE, obligationGrantedAt: T, boundAt: T + 1000 },
    ]);
  });

  it('counts an extension and a binding of the same consent once', () => {
    expect(lookup('op-1', recorded(extension()), recorded(toConsent({ bindingId: 'b-2' })))).toEqual({ result: 'consent_code', consentCode: CODE });
  });

  it("follows the extension's end, and the annulment of that end", () => {
    const ended = documentOf('op-1', recorded(extension()), recorded(facts.extensionEnded('x-1', T + 10, { creditOperationReference: 'op-1' })));
    expect(ended!.creditExtensions).toMatchObject([{ creditExtensionId: 'x-1', ended: true }]);
    // The code frozen for the obligation does not change when it ends.
    expect(lookup('op-1', recorded(extension()), recorded(facts.extensionEnded('x-1', T + 10, { creditOperationReference: 'op-1' })))).toEqual({ result: 'consent_code', consentCode: CODE });
    const revived = documentOf('op-1', recorded(extension()), recorded(facts.extensionEnded('x-1', T + 10, { creditOperationReference: 'op-1' })), recorded(endAnnulled()));
    expect(revived!.creditExtensions).toMatchObject([{ creditExtensionId: 'x-1', ended: false }]);
  });

  describe('a superseding obligation', () => {
    it('is told, by the end that names it, that it does not inherit the consent', () => {
      const events = [recorded(extension()), recorded(superseded())];
      expect(obligationsProjection.route(events[1])).toEqual([idOf('op-1'), idOf('op-2')]);
      expect(documentOf('op-2', ...events)).toMatchObject({ obligationReference: 'op-2', bindings: [], supersededExtensions: [{ redecConsentId: 'con-1', creditExtensionId: 'x-1' }] });
      expect(documentOf('op-1', ...events)!.creditExtensions).toMatchObject([{ ended: true }]);
    });

    it("never resolves to that consent's code, even through a binding recorded before the end", () => {
      const bound = recorded(toConsent({ obligationReference: 'op-2' }));
      expect(lookup('op-2', bound)).toEqual({ result: 'consent_code', consentCode: CODE });
      expect(lookup('op-2', bound, recorded(extension()), recorded(superseded()))).toEqual({ result: 'unresolved', consentCode: null });
    });

    it('inherits again nothing it did not have, and is released when the end or the extension is annulled', () => {
      const bound = recorded(toConsent({ obligationReference: 'op-2' }));
      for (const annul of [endAnnulled('op-2'), extensionAnnulled('op-2')]) {
        const events = [bound, recorded(extension()), recorded(superseded()), recorded(annul)];
        expect(obligationsProjection.route(events[3])).toEqual([idOf('op-1'), idOf('op-2')]);
        expect(documentOf('op-2', ...events)!.supersededExtensions).toEqual([]);
        expect(lookup('op-2', ...events)).toEqual({ result: 'consent_code', consentCode: CODE });
      }
    });
  });

  describe('annulments', () => {
    it('of a binding leave it out of the lookup, findable by id', () => {
      const events = [recorded(binding()), recorded(annulled('b-1'))];
      const document = documentOf('op-1', ...events);
      expect(document).toMatchObject({ bindings: [], annulledBindingIds: ['b-1'] });
      expect(lookup('op-1', ...events)).toEqual({ result: 'unresolved', consentCode: null });
      expect(obligationsProjection.indexes!(document!)).toContainEqual({ index: 'binding', value: 't1:b-1' });
    });

    it('of one of two disagreeing bindings resolve the ambiguity', () => {
      const both = [recorded(binding()), recorded(toConsent({ bindingId: 'b-2' }))];
      expect(lookup('op-1', ...both).result).toBe('ambiguous');
      expect(lookup('op-1', ...both, recorded(annulled('b-1')))).toEqual({ result: 'consent_code', consentCode: CODE });
    });

    it('of an extension remove the binding it produced', () => {
      const events = [recorded(extension()), recorded(extensionAnnulled())];
      expect(documentOf('op-1', ...events)).toMatchObject({ creditExtensions: [] });
      expect(lookup('op-1', ...events).result).toBe('unresolved');
    });
  });

  describe('indexes', () => {
    it('list explicit bindings by id, not those credit extensions produce', () => {
      expect(obligationsProjection.indexes!(documentOf('op-1', recorded(toConsent()), recorded(extension()))!)).toEqual([{ index: 'binding', value: 't1:b-1' }]);
    });

    it('list the obligations to reconcile: unresolved or ambiguous, by the obligation\'s key', () => {
      const reconcile = (reference: string) => ({ index: 'reconciliation', value: 't1', sortKey: idOf(reference).slice('t1:'.length) });
      expect(obligationsProjection.indexes!(documentOf('op-1', recorded(binding()))!)).not.toContainEqual(reconcile('op-1'));
      expect(obligationsProjection.indexes!(documentOf('op-1', recorded(binding()), recorded(toConsent({ bindingId: 'b-2' })))!)).toContainEqual(reconcile('op-1'));
      expect(obligationsProjection.indexes!(documentOf('op-2', recorded(extension()), recorded(superseded()))!)).toContainEqual(reconcile('op-2'));
    });
  });

  it('names an obligation by both fields, separated so that values cannot run together', () => {
    const id = (sourceSystem: string, obligationReference: string) => obligationsProjection.route(recorded(binding({ sourceSystem, obligationReference })))[0];
    expect(id('core-loans', 'op-1')).not.toBe(id('cards', 'op-1'));
    expect(id('core-loans', 'op-1')).not.toBe(id('core-loans', 'op-2'));
    expect(id('ab', 'c')).not.toBe(id('a', 'bc'));
  });

  it('keeps tenants apart', () => {
    const [mine] = obligationsProjection.route(recorded(binding(), 't1'));
    const [theirs] = obligationsProjection.route(recorded(binding(), 't2'));
    expect(mine).not.toBe(theirs);
    expect(fold(recorded(binding(), 't2')).get(idOf('op-1', 't2'))?.tenantId).toBe('t2');
  });

  it.each([
    ['the grant', grant],
    ['a revocation', facts.revocation(T, true)],
  ])('ignores %s, and leaves the document as it was', (_, event) => {
    const document = documentOf('op-1', recorded(binding()));
    expect(obligationsProjection.route(recorded(event))).toEqual([]);
    expect(obligationsProjection.evolve(document, recorded(event))).toBe(document);
  });

  it('ignores facts without a tenant', () => {
    expect(obligationsProjection.route(recorded(binding(), null))).toEqual([]);
    expect(obligationsProjection.route(recorded(extension(), null))).toEqual([]);
  });
});
