import { instantSortKey } from '../read-index-page';
import { NotificationReason } from './consent.events';
import { ConsentState } from './consent.state';
import { revocationEffect } from './enablement';

/**
 * A notice the bank owes the data subject (the bank sends it and records the
 * evidence: docs/reference/notification-evidence.md): of the grant, from
 * `grantedAt`, and of a revocation once it is in effect, from `effectiveAt`.
 */
export interface NotificationDuty {
  reason: NotificationReason;
  consentActionId: string;
  /** When the duty arose. */
  actionAt: number;
}

/**
 * The duties no evidence answers yet. Any evidence of the action counts:
 * `delivered` and `bounced` are states of a notice that was sent (each is
 * recorded as its own fact, and a bank may report only the last one).
 */
export function pendingNotificationDuties(consent: ConsentState): NotificationDuty[] {
  const { grant, revocation, notifications } = consent;
  const answered = (consentActionId: string) => notifications.some((n) => n.consentActionId === consentActionId);
  const duties: NotificationDuty[] = [{ reason: 'grant', consentActionId: grant.consentActionId, actionAt: grant.grantedAt }];
  const effect = revocationEffect(consent);
  if (revocation && effect?.effective) duties.push({ reason: 'revoke', consentActionId: revocation.consentActionId, actionAt: effect.effectiveAt! });
  return duties.filter((duty) => !answered(duty.consentActionId));
}

/** The index of pending duties, per tenant, ordered by when each arose: its sort key is the instant, fixed width, then the reason. */
export const NOTIFICATION_DUE_INDEX = 'notification-due';
export const notificationDueSortKey = (duty: NotificationDuty) => `${instantSortKey(duty.actionAt)} ${duty.reason}`;
