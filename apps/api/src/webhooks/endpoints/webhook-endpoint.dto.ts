import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../page-query.dto';
import { MAX_ROTATION_OVERLAP_MS, DEFAULT_ROTATION_OVERLAP_MS, DEFAULT_WEBHOOK_EVENT_TYPES, NOTIFICATION_REQUIRED, REPORT_CREATED, WEBHOOK_EVENT_TYPES, WebhookEventType } from '@ledger/webhooks';
import { Text } from '../../dto-fields';

export const ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export const DISABLED_REASONS = ['deleted', 'gone'] as const;
export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'skipped'] as const;

export const MAX_OVERLAP_SECONDS = MAX_ROTATION_OVERLAP_MS / 1000;
export const DEFAULT_OVERLAP_SECONDS = DEFAULT_ROTATION_OVERLAP_MS / 1000;

const URL_MAX_LENGTH = 2048;

/** What the description of every operation that hands out a secret says about it. */
export const SIGNATURE_SCHEME =
  'Deliveries are signed with the Standard Webhooks scheme: headers `webhook-id` (the message id, stable across retries), `webhook-timestamp` (seconds) and ' +
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the bytes the `whsec_` secret encodes (base64 after the prefix). ' +
  'During a rotation overlap the header carries several space-separated `v1,` signatures, one per valid secret: accept the message if any of them verifies.';

export const URL_POLICY =
  'URL policy, whatever NODE_ENV is: `https://` to a public host only. Private, loopback, link-local, unique-local, CGNAT, multicast, reserved, documentation and cloud metadata targets are refused, ' +
  'also in the IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo forms of such an IPv4 address, as are local names (`localhost`, one-label names, `.local`, `.internal` such as `metadata.google.internal`, `.home.arpa`); ' +
  'a host name is resolved and every address it resolves to is checked, at registration and again before every delivery. ' +
  'Only a service started with LEDGER_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (tests, local development) allows those targets, and plain `http://` to a loopback host (`localhost`, `127.0.0.1`, `[::1]`). ' +
  'A refused URL is 400 VALIDATION_ERROR on field `url` with the rule as reason: `invalid_url`, `https_required`, `private_address_not_allowed`, `port_not_allowed` (a port other than 443, or than those the operator allows with `LEDGER_WEBHOOK_ALLOWED_PORTS`), or `host_not_resolved` (the name resolves to no address).';

/** docs/reference/webhooks.md, "Managing endpoints": closed, as every request body. */
export class RegisterWebhookEndpointRequestDto {
  @ApiProperty({ description: `Where deliveries are POSTed. ${URL_POLICY}`, maxLength: URL_MAX_LENGTH, example: 'https://bank.example/hooks/ledger' })
  @Text(URL_MAX_LENGTH)
  url!: string;

  @ApiPropertyOptional({
    description:
      'The event types delivered to the endpoint: at least one, each a known type (`redec.notification.required`, `report.created`); duplicates count once. ' +
      'Default `["redec.notification.required"]`: an endpoint receives `report.created` only when it subscribes to it.',
    type: [String],
    enum: WEBHOOK_EVENT_TYPES,
    minItems: 1,
    maxItems: 10,
    default: DEFAULT_WEBHOOK_EVENT_TYPES,
    example: [NOTIFICATION_REQUIRED, REPORT_CREATED],
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true })
  eventTypes?: WebhookEventType[];
}

export class RotateWebhookSecretRequestDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_OVERLAP_SECONDS,
    default: DEFAULT_OVERLAP_SECONDS,
    description: `How long (seconds) the secrets in use before this rotation keep signing beside the new one; default ${DEFAULT_OVERLAP_SECONDS} (a day), at most ${MAX_OVERLAP_SECONDS} (7 days), 0 ends them at once.`,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_OVERLAP_SECONDS)
  overlapSeconds?: number;
}


export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid' })
  endpointId!: string;

  @ApiProperty({ description: 'Where deliveries are POSTed.', maxLength: URL_MAX_LENGTH })
  url!: string;

  @ApiProperty({ type: [String], enum: WEBHOOK_EVENT_TYPES, description: 'The event types delivered to the endpoint.' })
  eventTypes!: string[];

  @ApiProperty({ enum: ENDPOINT_STATUSES, description: '`active`: receives the facts recorded from its registration on. `disabled`: receives nothing any more.' })
  status!: (typeof ENDPOINT_STATUSES)[number];

  @ApiProperty({ type: 'integer', description: 'When the endpoint was registered (epoch ms).' })
  createdAt!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When the endpoint was disabled (epoch ms); null while active.' })
  disabledAt!: number | null;

  @ApiProperty({
    enum: DISABLED_REASONS,
    nullable: true,
    description: '`deleted`: by DELETE /v1/webhook-endpoints/{endpointId}. `gone`: the receiver answered 410 Gone to a delivery. Null while active.',
  })
  disabledReason!: (typeof DISABLED_REASONS)[number] | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'When the secret was last rotated (epoch ms); null if never.' })
  secretRotatedAt!: number | null;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: "Every endpoint of the tenant, active and disabled, in registration order. Secrets are never listed." })
  endpoints!: WebhookEndpointDto[];
}

export class RegisteredWebhookEndpointDto {
  @ApiProperty({ format: 'uuid' })
  endpointId!: string;

  @ApiProperty({ maxLength: URL_MAX_LENGTH })
  url!: string;

  @ApiProperty({ type: [String], enum: WEBHOOK_EVENT_TYPES, description: 'The subscribed event types, duplicates removed.' })
  eventTypes!: string[];

  @ApiProperty({
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description:
      'The signing secret: `whsec_` and the base64 of 32 random bytes. Shown only in this answer (and its exact Idempotency-Key replays, whose stored copy is encrypted); store it now.',
  })
  secret!: string;

  @ApiProperty({ enum: ENDPOINT_STATUSES })
  status!: (typeof ENDPOINT_STATUSES)[number];

  @ApiProperty({ type: 'integer', description: 'When the endpoint was registered (epoch ms).' })
  createdAt!: number;
}

export class RotatedWebhookSecretDto {
  @ApiProperty({ format: 'uuid' })
  endpointId!: string;

  @ApiProperty({
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: 'The new signing secret, shown only in this answer (and its exact Idempotency-Key replays, whose stored copy is encrypted).',
  })
  secret!: string;

  @ApiProperty({ type: 'integer', description: 'Until when (epoch ms) the secrets in use before this rotation keep signing beside the new one.' })
  previousSecretsValidUntil!: number;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'The message id: the body `id` and the `webhook-id` header, the same on every attempt of one message.' })
  messageId!: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  eventType!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The attempt number within one delivery job (1 for the first; a redelivery starts again at 1).' })
  attempt!: number;

  @ApiProperty({ type: 'integer', description: 'When the attempt was made (epoch ms).' })
  attemptedAt!: number;

  @ApiProperty({ enum: DELIVERY_OUTCOMES, description: '`delivered`: the receiver answered 2xx. `failed`: anything else, no answer, or a target the URL policy refuses (retried). `skipped`: the endpoint was disabled meanwhile.' })
  outcome!: (typeof DELIVERY_OUTCOMES)[number];

  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's HTTP status; null when no answer came." })
  status!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'How long the receiver took to answer (ms); null when no answer came.' })
  latencyMs!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'What went wrong, for the integrator; never a secret or the body. Null when delivered. `http_<status>`: the receiver answered that status. ' +
      '`no_response`: no HTTP answer (connection refused or reset, timeout, TLS or DNS failure; which one is not shown, so that the history cannot scan ports). ' +
      '`target_not_allowed`: the URL policy refused the address the host resolves to now, and nothing was sent. `aborted`: the worker stopped during the attempt. `endpoint_disabled`: with `skipped`. ' +
      '`report_content_erased`: with `skipped`, a `report.created` of a report whose content (and its hash) was erased before the message could be sent (decision 0045).',
  })
  error!: string | null;
}

/**
 * Pages as every list does; `before` is this list's name for `cursor` from
 * before lists shared one vocabulary, kept within /v1 (CHANGELOG, "Versioning").
 */
export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ deprecated: true, description: 'Deprecated name of `cursor`; not with it.', maxLength: 1024 })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  @Matches(/^[A-Za-z0-9_-]+$/)
  before?: string;
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Delivery attempts to the endpoint, newest first.' })
  items!: WebhookDeliveryDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next (older) page; null on the last page.' })
  nextCursor!: string | null;

  @ApiProperty({ type: [WebhookDeliveryDto], deprecated: true, description: 'Deprecated: the same as `items`.' })
  deliveries!: WebhookDeliveryDto[];

  @ApiProperty({ type: String, nullable: true, deprecated: true, description: 'Deprecated: the same as `nextCursor`.' })
  next!: string | null;
}
