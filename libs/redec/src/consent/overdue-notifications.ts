import type { ReadModel } from '@ledger/projections';
import { BankingCalendar, endOfBankingDaysAfter } from '../calendar';
import { readIndexPage } from '../read-index-page';
import { NotificationReason } from './consent.events';
import { ConsentState } from './consent.state';
import { CONSENTS_PROJECTION } from './consents.projection';
import { NOTIFICATION_DUE_INDEX, notificationDueSortKey, pendingNotificationDuties } from './notification-duties';

export interface OverdueNotification {
  redecConsentId: string;
  internalConsentCode: string;
  reason: NotificationReason;
  actionAt: number;
  consentActionId: string;
  /** The end of the last banking day the notice was due on. */
  dueAt: number;
}

/**
 * One page of the duties still pending `afterBankingDays` banking days after
 * they arose, oldest first. The index is ordered by when each duty arose and
 * the deadline grows with it, so the first duty not yet overdue ends the
 * list: no page reads past it.
 */
export async function listOverdueNotifications(
  readModel: ReadModel,
  calendar: BankingCalendar,
  tenantId: string,
  query: { afterBankingDays: number; limit: number; cursor: string | null; now: number },
): Promise<{ items: OverdueNotification[]; nextCursor: string | null }> {
  const page = await readIndexPage<ConsentState>(readModel, CONSENTS_PROJECTION, NOTIFICATION_DUE_INDEX, tenantId, { after: query.cursor, limit: query.limit });
  const items: OverdueNotification[] = [];
  for (const { sortKey, document: consent } of page.entries) {
    const duty = pendingNotificationDuties(consent).find((d) => notificationDueSortKey(d) === sortKey);
    if (!duty) continue;
    const dueAt = endOfBankingDaysAfter(duty.actionAt, query.afterBankingDays, calendar);
    if (dueAt >= query.now) return { items, nextCursor: null };
    const { redecConsentId, internalConsentCode } = consent.grant;
    items.push({ redecConsentId, internalConsentCode, reason: duty.reason, actionAt: duty.actionAt, consentActionId: duty.consentActionId, dueAt });
  }
  return { items, nextCursor: page.nextCursor };
}
