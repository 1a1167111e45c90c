import type { RecordedEvent } from '@ledger/event-store';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState } from '../consent/consent.state';
import { ConsentDocument, consentsProjection, OBLIGATIONS_NOT_ANSWERED_INDEX } from '../consent/consents.projection';
import { facts, grant, grantedAt } from '../consent/testing/consent-fixtures';
import { BASELINE_PROFILE } from '../profiles/profile-catalog';
import { decideBind } from './bind.decider';
import { lookupOf } from './obligation-lookup';
import { ObligationBound, ObligationEvent } from './obligation.events';
import { obligationKey } from './obligation-key';
import { ObligationDocument, obligationDocumentId, obligationsProjection } from './obligations.projection';

/**
 * Decision 0054: the consent-code lookup weighs the consent's facts as they
 * stand now, so the same facts answer alike whatever order they came in
 * (issue example 2: a binding, then a revocation back-dated before the
 * obligation was granted).
 */

const DAY = 86_400_000;
const MINUTE = 60_000;
const now = grantedAt + 5 * DAY;
const op1 = { sourceSystem: 'core-loans', obligationReference: 'op-1' };
let position = 0;
const recorded = (event: ConsentEvent | ObligationEvent): RecordedEvent =>
  ({
    id: `e-${(position += 1)}`,
    type: event.type,
    data: event.data,
    metadata: { tenantId: 'ten-1', correlationId: 'c', recordedAt: now, schemaVersion: 1 },
    streamId: 's',
    revision: 0,
    position,
    created: now,
    integrity: { hash: 'h', previousHash: null },
  }) as RecordedEvent;

/** The read model after the facts, folded by the real projections as the runner folds them. */
function readModelAfter(...events: Array<ConsentEvent | ObligationEvent>) {
  const consents = new Map<string, ConsentDocument | null>();
  const obligations = new Map<string, ObligationDocument | null>();
  for (const event of [grant, ...events].map(recorded)) {
    for (const id of consentsProjection.route(event)) consents.set(id, consentsProjection.evolve(consents.get(id) ?? null, event));
    for (const id of obligationsProjection.route(event)) obligations.set(id, obligationsProjection.evolve(obligations.get(id) ?? null, event));
  }
  const consent = consents.get('ten-1:con-1')!;
  return {
    consent,
    lookup: () => lookupOf(obligations.get(obligationDocumentId('ten-1', 'core-loans', 'op-1')) ?? null, (id) => (id === 'con-1' ? consent : null)),
    notAnswered: () => consentsProjection.indexes(consent).filter((e) => e.index === OBLIGATIONS_NOT_ANSWERED_INDEX),
  };
}

const bind = (consent: ConsentState, obligationGrantedAt: number) =>
  decideBind({ bindings: [], annulled: [] }, { ...op1, kind: 'consent', redecConsentId: 'con-1', obligationGrantedAt }, consent, BASELINE_PROFILE, { bindingId: 'b-1' }, now);
const bound = (consent: ConsentState, obligationGrantedAt: number): ObligationBound => {
  const decision = bind(consent, obligationGrantedAt);
  if (decision.kind !== 'bound') throw new Error('expected a binding');
  return decision.event;
};

describe('a binding, then a revocation back-dated before the obligation was granted', () => {
  const obligationGrantedAt = now - 10 * MINUTE;
  const binding = bound(readModelAfter().consent, obligationGrantedAt);
  const revocation = facts.revocation(now - 2 * DAY, true);

  it('answers the consent code while the revocation is not known', () => {
    expect(readModelAfter(binding).lookup()).toEqual({ result: 'consent_code', consentCode: grant.data.internalConsentCode });
    expect(readModelAfter(binding).notAnswered()).toEqual([]);
  });

  it('gives no consent code once it is, as when the binding came after it and was refused', () => {
    expect(readModelAfter(binding, revocation).lookup()).toEqual({ result: 'unresolved', consentCode: null });
    expect(() => bind(readModelAfter(revocation).consent, obligationGrantedAt)).toThrow(expect.objectContaining({ code: 'redec_consent_not_valid_at_obligation_grant' }));
    expect(readModelAfter(revocation).lookup()).toEqual(readModelAfter(binding, revocation).lookup());
  });

  it('lists the obligation among those the consent no longer answers for, by its key', () => {
    expect(readModelAfter(binding, revocation).notAnswered()).toEqual([{ index: OBLIGATIONS_NOT_ANSWERED_INDEX, value: 'ten-1', sortKey: obligationKey('core-loans', 'op-1') }]);
  });

  it('keeps the code of an obligation granted before the revocation', () => {
    const before = bound(readModelAfter().consent, now - 3 * DAY);
    expect(readModelAfter(before, revocation).lookup()).toEqual({ result: 'consent_code', consentCode: grant.data.internalConsentCode });
    expect(readModelAfter(before, revocation).notAnswered()).toEqual([]);
  });

  it('forgets the binding once it is annulled', () => {
    const annulled: ObligationEvent = { type: 'ObligationBindingAnnulled', data: { bindingId: 'b-1', ...op1, redecConsentId: 'con-1', reason: 'mistake', sourceReference: 't-1', annulledAt: now } };
    expect(readModelAfter(binding, revocation, annulled).consent.obligationBindings).toEqual([]);
    expect(readModelAfter(binding, revocation, annulled).notAnswered()).toEqual([]);
  });
});

describe('a credit extension the consent facts keep nothing alive for', () => {
  it('gives its obligation no consent code, and is listed as not answered for', () => {
    const extension = facts.extension('x-1', 'op-1', now - DAY);
    const revocation = facts.revocation(now - 3 * DAY, true);
    expect(readModelAfter(extension).lookup()).toEqual({ result: 'consent_code', consentCode: grant.data.internalConsentCode });
    expect(readModelAfter(extension, revocation).lookup()).toEqual({ result: 'unresolved', consentCode: null });
    expect(readModelAfter(extension, revocation).notAnswered()).toHaveLength(1);
  });
});
