import { randomUUID } from 'node:crypto';
import { canonicalJson, type RecordedEvent } from '@ledger/event-store';
import { groupedId } from '@ledger/projections';
import { consentReferenceId, consentReferencesProjection } from './consent-references.projection';

const recorded = (type: string, data: object, streamId: string, tenantId: string | null = 'ten-1', position = 1): RecordedEvent => ({
  id: 'e',
  type,
  data,
  metadata: { correlationId: 'c', recordedAt: 0, schemaVersion: 1, ...(tenantId ? { tenantId } : {}) },
  streamId,
  revision: 0,
  position,
  created: 0,
  integrity: { hash: 'h', previousHash: null },
});

describe('consent references (the audit index)', () => {
  const { route, evolve } = consentReferencesProjection;

  it('routes access decisions, confirmations and consent bindings to the consent they name', () => {
    // One document per (consent, stream): an obligation's stream may bind one consent, then another.
    expect(route(recorded('AccessDecided', { redecConsentId: 'con-1' }, 'redec-access-ten-1-a'))).toEqual([consentReferenceId('ten-1', 'con-1', 'redec-access-ten-1-a')]);
    expect(route(recorded('AccessConfirmed', { redecConsentId: 'con-1' }, 'redec-access-ten-1-a'))).toEqual([consentReferenceId('ten-1', 'con-1', 'redec-access-ten-1-a')]);
    expect(route(recorded('ObligationBound', { kind: 'consent', redecConsentId: 'con-1' }, 'redec-obligation-ten-1-x'))).toEqual([consentReferenceId('ten-1', 'con-1', 'redec-obligation-ten-1-x')]);
    expect(route(recorded('ObligationBound', { kind: 'consent', redecConsentId: 'con-2' }, 'redec-obligation-ten-1-x'))).toEqual([consentReferenceId('ten-1', 'con-2', 'redec-obligation-ten-1-x')]);
    const ids = ['con-1', 'con-2'].flatMap((consent) => ['redec-access-ten-1-a', 'redec-obligation-ten-1-x'].map((stream) => consentReferenceId('ten-1', consent, stream)));
    expect(new Set(ids).size).toBe(4);
    expect(ids.every((id) => id.startsWith('ten-1:con-'))).toBe(true);
  });

  it("ignores bindings without a consent, the consent's own facts, and facts without a tenant", () => {
    expect(route(recorded('ObligationBound', { kind: 'legacy_pre_redec', redecConsentId: null }, 'redec-obligation-ten-1-x'))).toEqual([]);
    expect(route(recorded('RevocationRecorded', { redecConsentId: 'con-1' }, 'redec-consent-ten-1-con-1'))).toEqual([]);
    expect(route(recorded('AccessDecided', { redecConsentId: 'con-1' }, 'redec-access-x', null))).toEqual([]);
  });

  it('keeps each stream once in its consent\'s group, with the position where the stream first named it', () => {
    const first = evolve(null, recorded('AccessDecided', { redecConsentId: 'con-1' }, 'access-a', 'ten-1', 9));
    const again = evolve(first, recorded('AccessConfirmed', { redecConsentId: 'con-1' }, 'access-a', 'ten-1', 12));
    expect(again).toBe(first);
    expect(first).toEqual({ firstPosition: 9 });
    // The stream is the field of its consent's group: one group per consent, whatever the stream.
    expect(consentReferenceId('ten-1', 'con-1', 'access-a')).toBe(groupedId('ten-1:con-1', 'access-a'));
    expect(consentReferencesProjection.grouped).toBe(true);
  });

  it("keeps a reference's document within the 64 bytes of a compact hash entry, for any position", () => {
    const reference = evolve(null, recorded('AccessDecided', { redecConsentId: randomUUID() }, `redec-access-${randomUUID()}-${randomUUID()}`, randomUUID(), Number.MAX_SAFE_INTEGER));
    expect(Buffer.byteLength(canonicalJson(reference))).toBeLessThanOrEqual(64);
  });
});
