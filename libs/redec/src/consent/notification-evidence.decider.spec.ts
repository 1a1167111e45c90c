import { refusalOf } from '@ledger/platform/testing';
import { ConsentEvent } from './consent.events';
import { NotificationEvidenceRequest, decideNotificationEvidence } from './notification-evidence.decider';
import { facts, given, grantedAt, state } from './testing/consent-fixtures';

const DAY = 86_400_000;
const revokedAt = grantedAt + 5 * DAY;
const notice = (overrides: Partial<NotificationEvidenceRequest> = {}): NotificationEvidenceRequest => ({
  notificationReason: 'grant',
  notificationChannel: 'email',
  recipientHash: 'b'.repeat(64),
  status: 'sent',
  sentAt: grantedAt + 60_000,
  sourceSystem: 'notifier',
  sourceReference: 'msg-1',
  contentSha256: 'c'.repeat(64),
  ...overrides,
});
describe('notification evidence', () => {
  it('of the grant is anchored to the grant action, with no content reference when none is sent', () => {
    expect(decideNotificationEvidence(state, notice(), 'ne-1', grantedAt + DAY)).toEqual([
      {
        type: 'NotificationEvidenceRecorded',
        data: {
          redecConsentId: 'con-1',
          notificationEvidenceId: 'ne-1',
          consentActionId: 'act-1',
          notificationReason: 'grant',
          notificationChannel: 'email',
          recipientHash: 'b'.repeat(64),
          status: 'sent',
          sentAt: grantedAt + 60_000,
          sourceSystem: 'notifier',
          sourceReference: 'msg-1',
          contentSha256: 'c'.repeat(64),
          contentReference: null,
          recordedAt: grantedAt + DAY,
        },
      },
    ]);
  });

  it('keeps the content reference sent', () => {
    const [event] = decideNotificationEvidence(state, notice({ contentReference: 'mail://outbox/1' }), 'ne-1', grantedAt + DAY);
    expect(event).toMatchObject({ data: { contentReference: 'mail://outbox/1' } });
  });

  it('of the revocation is anchored to the revocation action, effective or not', () => {
    for (const effective of [true, false]) {
      const revoked = given(facts.revocation(revokedAt, effective));
      const [event] = decideNotificationEvidence(revoked, notice({ notificationReason: 'revoke', sentAt: revokedAt }), 'ne-1', revokedAt + DAY);
      expect(event).toMatchObject({ data: { notificationReason: 'revoke', consentActionId: 'rev-1', sentAt: revokedAt } });
    }
  });

  it('of the grant is still anchored to the grant after a revocation', () => {
    const [event] = decideNotificationEvidence(given(facts.revocation(revokedAt, true)), notice(), 'ne-1', revokedAt + DAY);
    expect(event).toMatchObject({ data: { notificationReason: 'grant', consentActionId: 'act-1' } });
  });

  it('of a revocation before any is recorded is 409 redec_consent_not_revoked', () => {
    const error = refusalOf(() => decideNotificationEvidence(state, notice({ notificationReason: 'revoke' }), 'ne-1', grantedAt + DAY));
    expect(error).toMatchObject({ kind: 'conflict', code: 'redec_consent_not_revoked' });
  });

  it('of an unknown consent is not found', () => {
    expect(refusalOf(() => decideNotificationEvidence(null, notice(), 'ne-1', grantedAt + DAY)).code).toBe('NOT_FOUND');
  });

  describe('sentAt', () => {
    const now = revokedAt + DAY;
    const revoked = given(facts.revocation(revokedAt, true));

    it('may be the instant of the notified fact or of the receipt', () => {
      expect(decideNotificationEvidence(state, notice({ sentAt: grantedAt }), 'ne-1', now)).toHaveLength(1);
      expect(decideNotificationEvidence(state, notice({ sentAt: now }), 'ne-1', now)).toHaveLength(1);
      expect(decideNotificationEvidence(revoked, notice({ notificationReason: 'revoke', sentAt: revokedAt }), 'ne-1', now)).toHaveLength(1);
    });

    it('must not precede the grant it notifies', () => {
      const error = refusalOf(() => decideNotificationEvidence(state, notice({ sentAt: grantedAt - 1 }), 'ne-1', now));
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'sent_at_before_notified_fact', errors: [{ field: 'sentAt', reason: 'sent_at_before_notified_fact' }] });
    });

    it('must not precede the revocation it notifies, though it follows the grant', () => {
      const error = refusalOf(() => decideNotificationEvidence(revoked, notice({ notificationReason: 'revoke', sentAt: revokedAt - 1 }), 'ne-1', now));
      expect(error.reason).toBe('sent_at_before_notified_fact');
    });

    it('must not follow the receipt', () => {
      const error = refusalOf(() => decideNotificationEvidence(state, notice({ sentAt: now + 1 }), 'ne-1', now));
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', reason: 'sent_at_after_receipt', errors: [{ field: 'sentAt', reason: 'sent_at_after_receipt' }] });
    });
  });

  it('is append-only: every delivery state reported is a new record, in order, whatever came before', () => {
    const reports = [notice({ status: 'sent' }), notice({ status: 'delivered' }), notice({ status: 'bounced' }), notice({ status: 'sent', sourceReference: 'msg-2' })];
    const recorded: ConsentEvent[] = [];
    reports.forEach((report, i) => recorded.push(...decideNotificationEvidence(given(...recorded), report, `ne-${i}`, grantedAt + DAY)));
    expect(given(...recorded).notifications.map((n) => [n.notificationEvidenceId, n.status])).toEqual([
      ['ne-0', 'sent'],
      ['ne-1', 'delivered'],
      ['ne-2', 'bounced'],
      ['ne-3', 'sent'],
    ]);
  });
});
