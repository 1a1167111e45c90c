import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { CommandContext } from '@ledger/ledger';
import { ConsentChangeResult, changeConsent } from './change-consent';
import { NotificationEvidenceRecorded, NotificationReason, NotificationStatus } from './consent.events';
import { NotificationEvidenceRequest, decideNotificationEvidence } from './notification-evidence.decider';

/** The answer returns the anchor and the consent's code, which the request must not carry (docs/reference/notification-evidence.md, "Recording evidence"). */
export interface NotificationEvidenceAnswer {
  notificationEvidenceId: string;
  consentActionId: string;
  internalConsentCode: string;
  notificationReason: NotificationReason;
  status: NotificationStatus;
  sentAt: number;
  recordedAt: number;
}

export function recordNotificationEvidence(
  store: EventStore,
  redecConsentId: string,
  request: NotificationEvidenceRequest,
  context: CommandContext & { tenantId: string },
): Promise<ConsentChangeResult<NotificationEvidenceAnswer>> {
  return changeConsent(store, redecConsentId, context, {
    decide: (consent) => decideNotificationEvidence(consent, request, randomUUID(), context.now),
    answer: (consent, recorded) => {
      const { data } = recorded.find((e): e is NotificationEvidenceRecorded => e.type === 'NotificationEvidenceRecorded')!;
      const { notificationEvidenceId, consentActionId, notificationReason, status, sentAt, recordedAt } = data;
      return { notificationEvidenceId, consentActionId, internalConsentCode: consent.grant.internalConsentCode, notificationReason, status, sentAt, recordedAt };
    },
  });
}
