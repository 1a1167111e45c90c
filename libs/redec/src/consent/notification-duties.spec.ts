import { ConsentEvent } from './consent.events';
import { consentsProjection } from './consents.projection';
import { notificationDueSortKey, pendingNotificationDuties } from './notification-duties';
import { facts, given, grant, grantedAt } from './testing/consent-fixtures';

const DAY = 86_400_000;
const evidence = (consentActionId: string, notificationReason: 'grant' | 'revoke', status: 'sent' | 'delivered' | 'bounced'): ConsentEvent => ({
  type: 'NotificationEvidenceRecorded',
  data: {
    redecConsentId: 'con-1',
    notificationEvidenceId: `n-${consentActionId}-${status}`,
    consentActionId,
    notificationReason,
    notificationChannel: 'email',
    recipientHash: 'a'.repeat(64),
    status,
    sentAt: grantedAt + DAY,
    sourceSystem: 'notificador',
    sourceReference: 'aviso-1',
    contentSha256: 'b'.repeat(64),
    contentReference: null,
    recordedAt: grantedAt + DAY,
  },
});
const grantDuty = { reason: 'grant', consentActionId: grant.data.consentActionId, actionAt: grantedAt };

describe('the notices a bank owes the data subject', () => {
  it('owe the grant from grantedAt until any evidence of it is recorded', () => {
    expect(pendingNotificationDuties(given())).toEqual([grantDuty]);
    for (const status of ['sent', 'delivered', 'bounced'] as const) {
      expect(pendingNotificationDuties(given(evidence(grant.data.consentActionId, 'grant', status)))).toEqual([]);
    }
  });

  it('owe a revocation once it is in effect, from effectiveAt', () => {
    const answered = evidence(grant.data.consentActionId, 'grant', 'sent');
    expect(pendingNotificationDuties(given(answered, facts.revocation(grantedAt + DAY, true)))).toEqual([{ reason: 'revoke', consentActionId: 'rev-1', actionAt: grantedAt + DAY }]);
    const kept = [answered, facts.extension('x-1', 'op-1', grantedAt + 1000), facts.revocation(grantedAt + DAY, false)];
    expect(pendingNotificationDuties(given(...kept))).toEqual([]);
    expect(pendingNotificationDuties(given(...kept, facts.extensionEnded('x-1', grantedAt + 2 * DAY)))).toEqual([{ reason: 'revoke', consentActionId: 'rev-1', actionAt: grantedAt + 2 * DAY }]);
    expect(pendingNotificationDuties(given(answered, facts.revocation(grantedAt + DAY, true), evidence('rev-1', 'revoke', 'sent')))).toEqual([]);
  });

  it('are indexed per tenant by when they arose, fixed width so that the index orders them by time', () => {
    const consent = given(facts.revocation(grantedAt + DAY, true));
    expect(consentsProjection.indexes({ ...consent, updatedAt: grantedAt + DAY, obligationBindings: [], authorizationSpans: [] }).filter((e) => e.index === 'notification-due')).toEqual([
      { index: 'notification-due', value: 'ten-1', sortKey: `00${grantedAt} grant` },
      { index: 'notification-due', value: 'ten-1', sortKey: `00${grantedAt + DAY} revoke` },
    ]);
    expect(notificationDueSortKey({ reason: 'grant', consentActionId: 'a', actionAt: 999 }) < notificationDueSortKey({ reason: 'grant', consentActionId: 'b', actionAt: 1000 })).toBe(true);
  });
});
