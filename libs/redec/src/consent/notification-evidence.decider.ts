import { conflict, fieldRefused, notFound } from '@ledger/platform';
import { ConsentEvent, NotificationEvidenceRecorded, NotificationReason } from './consent.events';
import { ConsentState } from './consent.state';

/** docs/reference/notification-evidence.md, "Recording evidence". `consentActionId` and `internalConsentCode` are not in it: the service anchors the evidence itself. */
export type NotificationEvidenceRequest = Omit<
  NotificationEvidenceRecorded['data'],
  'redecConsentId' | 'notificationEvidenceId' | 'consentActionId' | 'contentReference' | 'recordedAt'
> & { contentReference?: string };

/** The action a notice is about, and when it happened. */
interface NotifiedFact {
  consentActionId: string;
  at: number;
}

/**
 * A revocation kept with `effective: false` still counts: the data subject
 * did revoke, and the bank may tell them it was recorded.
 */
function notifiedFact({ grant, revocation }: ConsentState, reason: NotificationReason): NotifiedFact {
  if (reason === 'grant') return { consentActionId: grant.consentActionId, at: grant.grantedAt };
  if (!revocation) throw conflict('redec_consent_not_revoked', 'No revocation of this consent is recorded, so there is no revocation to notify.');
  return { consentActionId: revocation.consentActionId, at: revocation.revokedAt };
}

/**
 * docs/reference/notification-evidence.md, "One record per delivery state":
 * evidence that the bank notified the data subject, anchored to the grant or
 * the revocation it notifies. Append-only: every delivery state reported is a
 * new fact, whatever was reported before, since each one is what the bank's
 * system observed at the time.
 */
export function decideNotificationEvidence(
  consent: ConsentState | null,
  request: NotificationEvidenceRequest,
  notificationEvidenceId: string,
  now: number,
): ConsentEvent[] {
  if (!consent) throw notFound('consent');
  const notified = notifiedFact(consent, request.notificationReason);
  if (request.sentAt < notified.at) {
    throw fieldRefused('sentAt', 'sent_at_before_notified_fact', `sentAt precedes the ${request.notificationReason} it notifies.`);
  }
  if (request.sentAt > now) throw fieldRefused('sentAt', 'sent_at_after_receipt', 'sentAt is later than the receipt of the evidence.');
  return [
    {
      type: 'NotificationEvidenceRecorded',
      data: {
        redecConsentId: consent.grant.redecConsentId,
        notificationEvidenceId,
        consentActionId: notified.consentActionId,
        notificationReason: request.notificationReason,
        notificationChannel: request.notificationChannel,
        recipientHash: request.recipientHash,
        status: request.status,
        sentAt: request.sentAt,
        sourceSystem: request.sourceSystem,
        sourceReference: request.sourceReference,
        contentSha256: request.contentSha256,
        contentReference: request.contentReference ?? null,
        recordedAt: now,
      },
    },
  ];
}
