import type { RecordedEvent } from '@ledger/event-store';
import { consentReferencesProjection } from './consent-references.projection';

const recorded = (type: string, data: object, streamId: string, tenantId: string | null = 'ten-1'): RecordedEvent => ({
  id: 'e',
  type,
  data,
  metadata: { correlationId: 'c', recordedAt: 0, schemaVersion: 1, ...(tenantId ? { tenantId } : {}) },
  streamId,
  revision: 0,
  position: 1,
  created: 0,
  integrity: { hash: 'h', previousHash: null },
});

describe('consent references (the audit index)', () => {
  const { route, evolve } = consentReferencesProjection;

  it('routes access decisions, confirmations and consent bindings to the consent they name', () => {
    expect(route(recorded('AccessDecided', { redecConsentId: 'con-1' }, 'redec-access-ten-1-a'))).toEqual(['ten-1:con-1']);
    expect(route(recorded('AccessConfirmed', { redecConsentId: 'con-1' }, 'redec-access-ten-1-a'))).toEqual(['ten-1:con-1']);
    expect(route(recorded('ObligationBound', { kind: 'consent', redecConsentId: 'con-1' }, 'redec-obligation-ten-1-x'))).toEqual(['ten-1:con-1']);
  });

  it("ignores bindings without a consent, the consent's own facts, and facts without a tenant", () => {
    expect(route(recorded('ObligationBound', { kind: 'legacy_pre_redec', redecConsentId: null }, 'redec-obligation-ten-1-x'))).toEqual([]);
    expect(route(recorded('RevocationRecorded', { redecConsentId: 'con-1' }, 'redec-consent-ten-1-con-1'))).toEqual([]);
    expect(route(recorded('AccessDecided', { redecConsentId: 'con-1' }, 'redec-access-x', null))).toEqual([]);
  });

  it('keeps each stream once, in the order first seen', () => {
    const first = evolve(null, recorded('AccessDecided', { redecConsentId: 'con-1' }, 'access-a'));
    const again = evolve(first, recorded('AccessConfirmed', { redecConsentId: 'con-1' }, 'access-a'));
    const second = evolve(again, recorded('ObligationBound', { redecConsentId: 'con-1' }, 'obligation-b'));
    expect(second).toEqual({ streams: ['access-a', 'obligation-b'] });
  });
});
