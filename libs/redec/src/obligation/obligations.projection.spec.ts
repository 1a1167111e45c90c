import type { RecordedEvent } from '@ledger/event-store';
import { ConsentEvent } from '../consent/consent.events';
import { facts, grant } from '../consent/testing/consent-fixtures';
import { consentCodeFor } from './consent-code';
import { ObligationBinding, ObligationBound } from './obligation.events';
import { ObligationDocument, obligationDocumentId, obligationsProjection } from './obligations.projection';

const CODE = grant.data.internalConsentCode;
let position = 0;
const recorded = (event: ObligationBound | ConsentEvent, tenantId: string | null = 't1'): RecordedEvent =>
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
  data: { bindingId: 'b-1', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'legacy_pre_redec', redecConsentId: null, internalConsentCode: null, boundAt: 1_764_000_000_000, ...overrides },
});

/** An extension registered from a source system other than the obligation's, so routing by the wrong one shows. */
const extension = (): ConsentEvent => {
  const registered = facts.extension('x-1', 'op-1', 1_764_000_000_000) as Extract<ConsentEvent, { type: 'CreditExtensionRegistered' }>;
  return { ...registered, data: { ...registered.data, sourceSystem: 'branch-desk' } };
};

const fold = (...events: RecordedEvent[]) => events.reduce<ObligationDocument | null>((doc, e) => obligationsProjection.evolve(doc, e), null);

describe('obligations projection', () => {
  it('is the versioned redec-obligations model', () => {
    expect(obligationsProjection).toMatchObject({ name: 'redec-obligations', version: 1 });
  });

  it('keeps an ObligationBound under its tenant, source system and obligation reference', () => {
    const event = recorded(binding());
    expect(obligationsProjection.route(event)).toEqual([obligationDocumentId('t1', 'core-loans', 'op-1')]);
    expect(fold(event)).toEqual({ tenantId: 't1', sourceSystem: 'core-loans', obligationReference: 'op-1', bindings: [binding().data] });
  });

  it('keeps every binding of the obligation, in the order recorded', () => {
    const first = binding();
    const second = binding({ bindingId: 'b-2', kind: 'no_applicable_consent' });
    expect(fold(recorded(first), recorded(second))?.bindings).toEqual([first.data, second.data]);
  });

  it("routes a credit extension to its consent's obligation source system and credit operation reference", () => {
    expect(obligationsProjection.route(recorded(extension()))).toEqual([obligationDocumentId('t1', 'core-loans', 'op-1')]);
  });

  it('takes a credit extension as the exact consent binding it produces', () => {
    expect(fold(recorded(extension()))).toEqual({
      tenantId: 't1',
      sourceSystem: 'core-loans',
      obligationReference: 'op-1',
      bindings: [{ bindingId: 'x-1', sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE, boundAt: 1_764_000_001_000 }],
    });
  });

  it('puts an extension and a binding of the same consent in one document, which still resolves to the code', () => {
    const explicit = binding({ bindingId: 'b-2', kind: 'consent', redecConsentId: 'con-1', internalConsentCode: CODE });
    const [a, b] = [recorded(extension()), recorded(explicit)];
    expect(obligationsProjection.route(a)).toEqual(obligationsProjection.route(b));
    expect(consentCodeFor(fold(a, b)!.bindings)).toEqual({ result: 'consent_code', consentCode: CODE });
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
    expect(fold(recorded(binding(), 't2'))?.tenantId).toBe('t2');
  });

  it.each([
    ['the grant', grant],
    ['the end of an extension', facts.extensionEnded('x-1', 1_764_000_002_000)],
    ['a revocation', facts.revocation(1_764_000_002_000, true)],
  ])('ignores %s, and leaves the document as it was', (_, event) => {
    const document = fold(recorded(binding()));
    expect(obligationsProjection.route(recorded(event))).toEqual([]);
    expect(obligationsProjection.evolve(document, recorded(event))).toBe(document);
  });

  it('ignores bindings without a tenant', () => {
    expect(obligationsProjection.route(recorded(binding(), null))).toEqual([]);
    expect(obligationsProjection.route(recorded(extension(), null))).toEqual([]);
  });
});
