import { addYears, regulatoryRepresentation } from '../consent/regulatory-representation';
import { facts, given, grantedAt, validUntil } from '../consent/testing/consent-fixtures';
import { assessSuppression } from './suppression';

// Where each record of a data subject stands for erasure when a suppression
// is answered (decision 0073), from the records as the subject's report
// reads them.

const DAY = 86_400_000;
const revokedAt = grantedAt + DAY;
const reported = (consent: ReturnType<typeof given>, now: number) => ({ templateKey: 't', configurationVersion: 1, consentTitle: 'c', representation: regulatoryRepresentation(consent, now), accesses: [], notices: [] });
const general = { consentId: 'gen-1', templateKey: 'terms', configurationVersion: 1, consentTitle: 'Términos', channel: 'digital', grantedAt, revokedAt: null };

describe('assessing a suppression', () => {
  it('states per record whether it can be erased now, or when its floor ends and its basis, and when all of them can', () => {
    const now = revokedAt + DAY;
    const revoked = given(facts.revocation(revokedAt, true));
    const assessment = assessSuppression({ redecConsents: [reported(revoked, now)], generalConsents: [general], legalHolds: [] }, now);
    expect(assessment).toEqual({
      assessedAt: now,
      records: [
        { record: { kind: 'redec_consent', redecConsentId: 'con-1' }, reason: 'within_floor', retentionUntil: addYears(revokedAt, 5), retentionBasis: 'revocation' },
        { record: { kind: 'general_consent', consentId: 'gen-1' }, reason: 'no_floor', retentionUntil: null, retentionBasis: null },
      ],
      legalHoldsInForce: [],
      erasableFrom: addYears(revokedAt, 5) + 1,
    });
    const later = addYears(revokedAt, 5) + 1;
    expect(assessSuppression({ redecConsents: [reported(revoked, later)], generalConsents: [], legalHolds: [] }, later)).toMatchObject({ records: [{ reason: 'past_floor' }], erasableFrom: later });
  });

  it('has no date while a consent still enables access, and names the holds in force', () => {
    const now = grantedAt + DAY;
    expect(validUntil).toBeGreaterThan(now);
    const hold = { legalHoldId: 'lh-1', reason: 'litigio', reference: 'C-1', placedAt: grantedAt, releasedAt: null };
    const released = { ...hold, legalHoldId: 'lh-2', releasedAt: now };
    const assessment = assessSuppression({ redecConsents: [reported(given(), now)], generalConsents: [], legalHolds: [hold, released] }, now);
    expect(assessment).toMatchObject({ records: [{ reason: 'in_force', retentionUntil: null, retentionBasis: null }], legalHoldsInForce: ['lh-1'], erasableFrom: null });
  });

  it('is erasable at once for a subject with no consent at all', () => {
    expect(assessSuppression({ redecConsents: [], generalConsents: [], legalHolds: [] }, grantedAt)).toEqual({ assessedAt: grantedAt, records: [], legalHoldsInForce: [], erasableFrom: grantedAt });
  });
});
