import type { RecordedEvent } from '@ledger/event-store';
import type { ReportKeySource } from '@ledger/platform';
import type { ConsentGranted, ReportRendered, RevocationRecorded, RightsRequestDeadlineNoticed, RightsRequestReceived, RightsRequestResolved } from '@ledger/redec';

/** The bank must notify the data subject of a grant or a revocation (docs/reference/events.md). */
export const NOTIFICATION_REQUIRED = 'redec.notification.required';
/** Issue 16: an RDC30 or RDC31 file is ready to download. */
export const REPORT_CREATED = 'report.created';
/** A data subject's rights request was recorded, with the deadline to answer it (decision 0067). */
export const RIGHTS_REQUEST_RECEIVED = 'rights_request.received';
/** A rights request was answered. */
export const RIGHTS_REQUEST_RESOLVED = 'rights_request.resolved';
/** An open rights request's deadline is near (decision 0069). */
export const RIGHTS_REQUEST_DUE_SOON = 'rights_request.due_soon';
/** An open rights request's deadline has passed (decision 0069). */
export const RIGHTS_REQUEST_OVERDUE = 'rights_request.overdue';
/** Every event type an endpoint may subscribe to; an endpoint that names none gets `redec.notification.required` only. */
export const WEBHOOK_EVENT_TYPES = [NOTIFICATION_REQUIRED, REPORT_CREATED, RIGHTS_REQUEST_RECEIVED, RIGHTS_REQUEST_DUE_SOON, RIGHTS_REQUEST_OVERDUE, RIGHTS_REQUEST_RESOLVED] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const DEFAULT_WEBHOOK_EVENT_TYPES: WebhookEventType[] = [NOTIFICATION_REQUIRED];

/** Reason `grant`: purpose, medium and objectives are sent only with it (docs/reference/events.md, "redec.notification.required"). */
export interface GrantNotification {
  notification_reason: 'grant';
  internal_consent_code: string;
  redec_consent_id: string;
  consent_action_id: string;
  channel: string;
  granted_at: number;
  purpose: string;
  medium: string;
  objectives: string[];
}

/** Reason `revoke` (docs/reference/events.md, "redec.notification.required"): `revoked_at` replaces `granted_at`, and the three grant fields are absent. */
export interface RevokeNotification {
  notification_reason: 'revoke';
  internal_consent_code: string;
  redec_consent_id: string;
  consent_action_id: string;
  channel: string;
  revoked_at: number;
}

/**
 * `report.created`: what the file is and the hash of its bytes; the bytes
 * themselves are fetched with a `consent:report` key, never sent. A queued
 * message keeps the hash as its fact does, under the report's key
 * (`protected_content_sha256`, decision 0045), so that no job or failed set
 * in Redis holds it in clear after the report's content is erased; it is
 * opened only to be sent (messageToSend). A fact recorded before that
 * decision gives `content_sha256` itself.
 */
export interface ReportCreated {
  report_id: string;
  kind: string;
  period_start: number;
  period_end: number;
  records: number;
  content_sha256?: string;
  protected_content_sha256?: string;
  layout_version: string;
}

/** `rights_request.received`: which request, of whom, and by when the bank must answer it. */
export interface RightsRequestReceivedData {
  rights_request_id: string;
  customer_id: string;
  kind: string;
  received_at: number;
  due_at: number;
}

/** `rights_request.resolved`: the answer's outcome, and for a refusal the end of the data subject's window to complain. */
export interface RightsRequestResolvedData {
  rights_request_id: string;
  outcome: string;
  resolved_at: number;
  complaint_deadline: number | null;
}

/** `rights_request.due_soon` and `rights_request.overdue`: which open request, of whom, and the deadline it is near or past. */
export interface RightsRequestDeadlineData {
  rights_request_id: string;
  customer_id: string;
  kind: string;
  due_at: number;
}

/** The delivery body (docs/reference/events.md, "The envelope"). */
export type WebhookMessage =
  | { id: string; type: typeof NOTIFICATION_REQUIRED; /** When the fact was recorded (epoch ms), the same on every attempt. */ createdAt: number; data: GrantNotification | RevokeNotification }
  | { id: string; type: typeof REPORT_CREATED; createdAt: number; data: ReportCreated }
  | { id: string; type: typeof RIGHTS_REQUEST_RECEIVED; createdAt: number; data: RightsRequestReceivedData }
  | { id: string; type: typeof RIGHTS_REQUEST_DUE_SOON | typeof RIGHTS_REQUEST_OVERDUE; createdAt: number; data: RightsRequestDeadlineData }
  | { id: string; type: typeof RIGHTS_REQUEST_RESOLVED; createdAt: number; data: RightsRequestResolvedData };

/**
 * The body's key order as docs/reference/events.md shows it. As a
 * JSON.stringify allow-list it also keeps anything else a message object might
 * carry out of the body.
 */
const BODY_KEYS = [
  'id',
  'type',
  'createdAt',
  'data',
  'notification_reason',
  'internal_consent_code',
  'redec_consent_id',
  'consent_action_id',
  'channel',
  'granted_at',
  'revoked_at',
  'purpose',
  'medium',
  'objectives',
  'report_id',
  'kind',
  'period_start',
  'period_end',
  'records',
  'content_sha256',
  'layout_version',
  'rights_request_id',
  'customer_id',
  'received_at',
  'due_at',
  'outcome',
  'resolved_at',
  'complaint_deadline',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The message id, both the body `id` and the `webhook-id` header: derived
 * from the fact's id alone, so every retry and every replay of the fact
 * carries the same one and receivers can deduplicate on it.
 */
export function webhookMessageId(eventId: string): string {
  if (!UUID.test(eventId)) throw new Error('a webhook message id is derived from an event uuid');
  return `evt_${eventId.replace(/-/g, '').toLowerCase()}`;
}

/**
 * The `redec.notification.required` message a fact calls for, or null. Every
 * recorded revocation calls for one, also one kept without effect: the data
 * subject did revoke, and the bank must tell them it was recorded. Built
 * from the fact alone, so a replay builds the same message.
 */
export function notificationFor(event: RecordedEvent): WebhookMessage | null {
  const base = { id: webhookMessageId(event.id), createdAt: event.metadata.recordedAt };
  if (event.type === 'ReportRendered') return { ...base, type: REPORT_CREATED, data: reportCreatedData(event.data as ReportRendered['data']) };
  if (event.type === 'RightsRequestReceived') {
    const { rightsRequestId, customerId, kind, receivedAt, dueAt } = event.data as RightsRequestReceived['data'];
    return { ...base, type: RIGHTS_REQUEST_RECEIVED, data: { rights_request_id: rightsRequestId, customer_id: customerId, kind, received_at: receivedAt, due_at: dueAt } };
  }
  if (event.type === 'RightsRequestResolved') {
    const { rightsRequestId, outcome, resolvedAt, complaintDeadline } = event.data as RightsRequestResolved['data'];
    return { ...base, type: RIGHTS_REQUEST_RESOLVED, data: { rights_request_id: rightsRequestId, outcome, resolved_at: resolvedAt, complaint_deadline: complaintDeadline } };
  }
  if (event.type === 'RightsRequestDeadlineNoticed') {
    const { rightsRequestId, customerId, kind, notice, dueAt } = event.data as RightsRequestDeadlineNoticed['data'];
    const type = notice === 'due_soon' ? RIGHTS_REQUEST_DUE_SOON : RIGHTS_REQUEST_OVERDUE;
    return { ...base, type, data: { rights_request_id: rightsRequestId, customer_id: customerId, kind, due_at: dueAt } };
  }
  const data = notificationData(event);
  return data && { ...base, type: NOTIFICATION_REQUIRED, data };
}

function reportCreatedData(rendered: ReportRendered['data']): ReportCreated {
  return {
    report_id: rendered.reportId,
    kind: rendered.kind,
    period_start: rendered.periodStart,
    period_end: rendered.periodEnd,
    records: rendered.records,
    ...(rendered.contentSha256 !== undefined ? { content_sha256: rendered.contentSha256 } : { protected_content_sha256: rendered.protectedContentSha256 }),
    layout_version: rendered.layoutVersion,
  };
}

/**
 * The message as it is sent: a `report.created`'s hash opened with the
 * report's key. Null once that key was destroyed with the report's content
 * (decision 0045): the message promised can no longer be built.
 */
export async function messageToSend(tenantId: string, message: WebhookMessage, reportKeys: Pick<ReportKeySource, 'keyOf'>): Promise<WebhookMessage | null> {
  if (message.type !== REPORT_CREATED || message.data.protected_content_sha256 === undefined) return message;
  const { protected_content_sha256: sealed, ...data } = message.data;
  const key = await reportKeys.keyOf(tenantId, data.report_id);
  return key && { ...message, data: { ...data, content_sha256: key.decrypt(sealed) } };
}

/** The exact body sent and signed; the same message always gives the same bytes. */
export function serializeMessage(message: WebhookMessage): string {
  return JSON.stringify(message, BODY_KEYS);
}

function notificationData(event: RecordedEvent): GrantNotification | RevokeNotification | null {
  switch (event.type) {
    case 'ConsentGranted': {
      const grant = event.data as ConsentGranted['data'];
      return {
        notification_reason: 'grant',
        internal_consent_code: grant.internalConsentCode,
        redec_consent_id: grant.redecConsentId,
        consent_action_id: grant.consentActionId,
        channel: grant.channel,
        granted_at: grant.grantedAt,
        purpose: grant.finalityCode,
        medium: grant.mediumCode,
        objectives: [...grant.objectiveCodes],
      };
    }
    case 'RevocationRecorded': {
      const revocation = event.data as RevocationRecorded['data'];
      return {
        notification_reason: 'revoke',
        internal_consent_code: revocation.internalConsentCode,
        redec_consent_id: revocation.redecConsentId,
        consent_action_id: revocation.consentActionId,
        channel: revocation.channel,
        revoked_at: revocation.revokedAt,
      };
    }
    default:
      return null;
  }
}
