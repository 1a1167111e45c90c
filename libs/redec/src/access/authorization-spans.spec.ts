import { facts, given, grantedAt } from '../consent/testing/consent-fixtures';
import { AccessDecided } from './access.events';
import { accessRequest } from './testing/access-fixtures';
import { AuthorizationSpan, contradictsAuthorizations, withAuthorization } from './authorization-spans';

const DAY = 86_400_000;
const decided = (decidedAt: number, mode: 'initial_window' | 'manage', reference = 'op-1'): AccessDecided['data'] => ({
  redecAccessId: `a-${decidedAt}`,
  redecConsentId: 'con-1',
  request: accessRequest({
    ...(mode === 'manage' ? { consentAuthorizationMode: 'credit_lifecycle_extension', accessPurpose: 'manage_existing_obligation' } : {}),
    reportingObligation: { status: 'granted', sourceSystem: 'core-loans', sourceReference: reference, assertedAt: decidedAt },
    sourceReference: `r-${decidedAt}`,
  }),
  requestSha256: 'h',
  status: 'authorized',
  denyReasonCode: null,
  decidedAt,
  expiresAt: decidedAt + 600_000,
  consentRevision: 0,
});
const spansOf = (...decisions: AccessDecided['data'][]) => decisions.reduce<AuthorizationSpan[]>(withAuthorization, []);

describe('the spans of a consent\'s authorized decisions (decision 0056)', () => {
  it('keep the first and last instant of each kind of access, one span per obligation and objective', () => {
    expect(spansOf(decided(grantedAt + 2 * DAY, 'initial_window'), decided(grantedAt + DAY, 'initial_window'), decided(grantedAt + 3 * DAY, 'manage'))).toEqual([
      { consentAuthorizationMode: 'initial_window', sourceSystem: null, obligationReference: null, objectiveCode: null, first: grantedAt + DAY, last: grantedAt + 2 * DAY },
      { consentAuthorizationMode: 'credit_lifecycle_extension', sourceSystem: 'core-loans', obligationReference: 'op-1', objectiveCode: '02', first: grantedAt + 3 * DAY, last: grantedAt + 3 * DAY },
    ]);
  });

  it('are contradicted by a revocation back-dated to or before the last initial-window authorization, not by one after it', () => {
    const spans = spansOf(decided(grantedAt + DAY, 'initial_window'), decided(grantedAt + 2 * DAY, 'initial_window'));
    expect(contradictsAuthorizations(given(), spans)).toBe(false);
    expect(contradictsAuthorizations(given(facts.revocation(grantedAt + 2 * DAY + 1, true)), spans)).toBe(false);
    expect(contradictsAuthorizations(given(facts.revocation(grantedAt + 2 * DAY, true)), spans)).toBe(true);
  });

  it('are contradicted, for an obligation, by an end reported earlier than an authorization under it, or by an extension that keeps nothing', () => {
    const spans = spansOf(decided(grantedAt + 3 * DAY, 'manage'));
    const extended = [facts.extension('x-1', 'op-1', grantedAt + DAY)];
    expect(contradictsAuthorizations(given(...extended), spans)).toBe(false);
    expect(contradictsAuthorizations(given(...extended, facts.extensionEnded('x-1', grantedAt + 4 * DAY, { creditOperationReference: 'op-1' })), spans)).toBe(false);
    expect(contradictsAuthorizations(given(...extended, facts.extensionEnded('x-1', grantedAt + 3 * DAY, { creditOperationReference: 'op-1' })), spans)).toBe(true);
    // A revocation back-dated before the credit: the extension never kept the consent.
    expect(contradictsAuthorizations(given(...extended, facts.revocation(grantedAt + DAY, true)), spans)).toBe(true);
  });
});
