import { REPORT_KINDS, RIGHTS_REQUEST_KINDS, RIGHTS_REQUEST_OUTCOMES } from '@ledger/redec';
import { NOTIFICATION_REQUIRED, REPORT_CREATED, RIGHTS_REQUEST_DUE_SOON, RIGHTS_REQUEST_OVERDUE, RIGHTS_REQUEST_RECEIVED, RIGHTS_REQUEST_RESOLVED, WebhookEventType } from '@ledger/webhooks';

/**
 * The OpenAPI 3.1 `webhooks` section: what the service POSTs to a
 * registered endpoint, one entry per event type an endpoint can subscribe
 * to, each body as libs/webhooks serializes it. Keyed by the event types
 * themselves, so a new type does not compile until it is described here.
 */

type Schema = Record<string, unknown>;

const EPOCH_MS = { type: 'integer', description: 'Epoch milliseconds.' };

const NOTIFICATION_COMMON: Record<string, Schema> = {
  internal_consent_code: { type: 'string', description: "The consent's internal code, as the data subject knows it." },
  redec_consent_id: { type: 'string', format: 'uuid' },
  consent_action_id: { type: 'string', format: 'uuid', description: 'The grant or revocation action that notification evidence refers to.' },
  channel: { type: 'string', description: 'The channel the action was taken on.' },
};

/** The bodies' schemas, for `components.schemas`. */
export const WEBHOOK_SCHEMAS: Record<string, Schema> = {
  WebhookGrantNotification: {
    type: 'object',
    description: 'The data subject granted a consent: the bank must notify them.',
    required: ['notification_reason', ...Object.keys(NOTIFICATION_COMMON), 'granted_at', 'purpose', 'medium', 'objectives'],
    properties: {
      notification_reason: { type: 'string', enum: ['grant'] },
      ...NOTIFICATION_COMMON,
      granted_at: EPOCH_MS,
      purpose: { type: 'string', description: "The consent's finality code." },
      medium: { type: 'string', description: 'The medium the consent was captured on (code).' },
      objectives: { type: 'array', items: { type: 'string' }, description: 'Objective codes.' },
    },
  },
  WebhookRevokeNotification: {
    type: 'object',
    description: 'The data subject revoked a consent (also a revocation kept without effect): the bank must notify them.',
    required: ['notification_reason', ...Object.keys(NOTIFICATION_COMMON), 'revoked_at'],
    properties: {
      notification_reason: { type: 'string', enum: ['revoke'] },
      ...NOTIFICATION_COMMON,
      revoked_at: EPOCH_MS,
    },
  },
  WebhookReportCreated: {
    type: 'object',
    description: 'An RDC30, RDC31 or RDC40 file is ready; fetch its bytes with a `consent:report` key and check them against `content_sha256`.',
    required: ['report_id', 'kind', 'period_start', 'period_end', 'records', 'content_sha256', 'layout_version'],
    properties: {
      report_id: { type: 'string', format: 'uuid' },
      kind: { type: 'string', enum: [...REPORT_KINDS] },
      period_start: EPOCH_MS,
      period_end: EPOCH_MS,
      records: { type: 'integer', minimum: 0 },
      content_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: "SHA-256 of the file's bytes, lowercase hex." },
      layout_version: { type: 'string' },
    },
  },
  WebhookRightsRequestReceived: {
    type: 'object',
    description: "A data subject's rights request was recorded; answer it by `due_at` (GET /v1/rights-requests/{rightsRequestId}).",
    required: ['rights_request_id', 'customer_id', 'kind', 'received_at', 'due_at'],
    properties: {
      rights_request_id: { type: 'string', format: 'uuid' },
      customer_id: { type: 'string', format: 'uuid' },
      kind: { type: 'string', enum: [...RIGHTS_REQUEST_KINDS] },
      received_at: EPOCH_MS,
      due_at: { ...EPOCH_MS, description: 'The end (America/Santiago) of the term to answer (epoch ms).' },
    },
  },
  WebhookRightsRequestDeadline: {
    type: 'object',
    description: "An open rights request's deadline is near (`rights_request.due_soon`: 5 days before it, 1 day for a blocking request) or past (`rights_request.overdue`). Each is sent once for a deadline; an extension's new deadline gets its own.",
    required: ['rights_request_id', 'customer_id', 'kind', 'due_at'],
    properties: {
      rights_request_id: { type: 'string', format: 'uuid' },
      customer_id: { type: 'string', format: 'uuid' },
      kind: { type: 'string', enum: [...RIGHTS_REQUEST_KINDS] },
      due_at: { ...EPOCH_MS, description: 'The deadline near or past: the end (America/Santiago) of the term to answer (epoch ms).' },
    },
  },
  WebhookRightsRequestResolved: {
    type: 'object',
    description: 'A rights request was answered.',
    required: ['rights_request_id', 'outcome', 'resolved_at', 'complaint_deadline'],
    properties: {
      rights_request_id: { type: 'string', format: 'uuid' },
      outcome: { type: 'string', enum: [...RIGHTS_REQUEST_OUTCOMES] },
      resolved_at: EPOCH_MS,
      complaint_deadline: { type: ['integer', 'null'], description: 'For an answer that refuses all or part: the end of the data subject’s window to complain to the Agency (epoch ms); null for an approval.' },
    },
  },
};

const ref = (name: keyof typeof WEBHOOK_SCHEMAS & string) => ({ $ref: `#/components/schemas/${name}` });

/** The body every delivery shares around its `data`. */
function message(type: WebhookEventType, data: Schema): Schema {
  return {
    type: 'object',
    required: ['id', 'type', 'createdAt', 'data'],
    properties: {
      id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$', description: 'The message id, the same as the `webhook-id` header and on every retry and redelivery: deduplicate on it.' },
      type: { type: 'string', enum: [type] },
      createdAt: { ...EPOCH_MS, description: 'When the fact was recorded (epoch ms), the same on every attempt.' },
      data,
    },
  };
}

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' }, description: 'The message id (Standard Webhooks).' },
  { name: 'webhook-timestamp', in: 'header', required: true, schema: { type: 'string' }, description: 'Seconds since the epoch when this attempt was signed; refuse one more than a few minutes away from your clock.' },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint secret; several, space-separated, during a secret rotation: accept the message if one matches.',
  },
];

const RESPONSES = {
  '2XX': { description: 'Received. Answer quickly and do the work afterwards; any other answer or none is retried with backoff.' },
  '410': { description: 'Gone: the endpoint is disabled and nothing more is sent to it.' },
};

const DESCRIBED: Record<WebhookEventType, { summary: string; data: Schema }> = {
  [NOTIFICATION_REQUIRED]: {
    summary: 'The bank must notify the data subject of a grant or a revocation',
    data: { oneOf: [ref('WebhookGrantNotification'), ref('WebhookRevokeNotification')] },
  },
  [REPORT_CREATED]: {
    summary: 'A regulatory report file is ready to download',
    data: ref('WebhookReportCreated'),
  },
  [RIGHTS_REQUEST_RECEIVED]: {
    summary: "A data subject's rights request was recorded, with its deadline",
    data: ref('WebhookRightsRequestReceived'),
  },
  [RIGHTS_REQUEST_DUE_SOON]: {
    summary: "An open rights request's deadline is near",
    data: ref('WebhookRightsRequestDeadline'),
  },
  [RIGHTS_REQUEST_OVERDUE]: {
    summary: "An open rights request's deadline has passed",
    data: ref('WebhookRightsRequestDeadline'),
  },
  [RIGHTS_REQUEST_RESOLVED]: {
    summary: 'A rights request was answered',
    data: ref('WebhookRightsRequestResolved'),
  },
};

/** The `webhooks` section: one POST per event type, as a registered endpoint receives it. */
export function webhooksSection(): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(DESCRIBED).map(([type, { summary, data }]) => [
      type,
      {
        post: {
          operationId: `receive${type.replace(/(^|[._])(\w)/g, (_, _separator: string, letter: string) => letter.toUpperCase())}`,
          summary,
          description: 'Sent to every active endpoint subscribed to this event type, signed as Standard Webhooks specifies, at least once.',
          tags: ['webhooks'],
          // Not a bearer call: the receiver authenticates the message by its signature headers.
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: message(type as WebhookEventType, data) } } },
          responses: RESPONSES,
        },
      },
    ]),
  );
}
