import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches, MinLength, ValidateBy } from 'class-validator';
import { MustNotBeSent } from '@ledger/http';
import { NotificationReason, NotificationStatus } from '@ledger/redec';
import { EpochMs, IDENTITY, IdentityText, SHA256_HEX, Sha256Hex, Text } from '../../../dto-fields';

const NOTIFICATION_REASONS: NotificationReason[] = ['grant', 'revoke'];
const NOTIFICATION_STATUSES: NotificationStatus[] = ['sent', 'delivered', 'bounced'];
const SNAKE_CASE_TOKEN = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * The recipient is identified without being revealed: a value with an '@' is
 * an address, not its hash, and is refused before anything could record it.
 * Placed nearest the property, so it is checked first and is the reason
 * given when a raw address also fails a length bound.
 */
const RecipientHashed = () =>
  ValidateBy({ name: 'recipient_not_hashed', validator: { validate: (value: unknown) => typeof value !== 'string' || !value.includes('@') } });

/** docs/reference/notification-evidence.md, "Recording evidence": closed; the service anchors the evidence to the grant or the revocation itself. */
export class NotificationEvidenceRequestDto {
  @ApiProperty({ enum: NOTIFICATION_REASONS, description: 'What was notified. `revoke` needs a recorded revocation (409 `redec_consent_not_revoked`). There is no correction notification.' })
  @IsIn(NOTIFICATION_REASONS)
  notificationReason!: NotificationReason;

  @ApiProperty({ description: 'How the notice was sent: a snake_case token, e.g. `email`, `sms`.', maxLength: 50, pattern: SNAKE_CASE_TOKEN.source })
  @Text(50)
  @Matches(SNAKE_CASE_TOKEN)
  notificationChannel!: string;

  @ApiProperty({
    description: "Hash of the normalized recipient address, computed by the bank: it identifies the recipient without revealing it. An address (a value with '@') is refused with reason `recipient_not_hashed`.",
    minLength: 32,
    maxLength: 128,
  })
  @Text(128)
  @MinLength(32)
  @RecipientHashed()
  recipientHash!: string;

  @ApiProperty({ enum: NOTIFICATION_STATUSES, description: 'The delivery state known to the sender. Each state reported is a new record: send `sent`, then `delivered` or `bounced`.' })
  @IsIn(NOTIFICATION_STATUSES)
  status!: NotificationStatus;

  @ApiProperty({ type: 'integer', description: 'When the notice was sent (epoch ms). Not before the notified grant or revocation, not after the receipt by the service.' })
  @EpochMs()
  sentAt!: number;

  @ApiProperty({ description: `The sender system. ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The notice's reference in the sender system. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;

  @ApiProperty({ description: 'SHA-256 (lower-case hex) of the exact message sent. The bank keeps the message.', pattern: SHA256_HEX.source })
  @Sha256Hex()
  contentSha256!: string;

  @ApiPropertyOptional({ description: 'Where the bank keeps the message.', maxLength: 500 })
  @IsOptional()
  @Text(500)
  contentReference?: string;

  @ApiPropertyOptional({ type: String, description: 'Must not be sent: the service anchors the evidence (400, reason `consent_action_id_is_server_assigned`).', deprecated: true })
  @MustNotBeSent('consent_action_id_is_server_assigned')
  consentActionId?: never;

  @ApiPropertyOptional({ type: String, description: "Must not be sent: it is the consent's own (400, reason `internal_consent_code_is_server_generated`).", deprecated: true })
  @MustNotBeSent('internal_consent_code_is_server_generated')
  internalConsentCode?: never;
}

export class NotificationEvidenceResponseDto {
  @ApiProperty({ format: 'uuid', description: 'This record.' }) notificationEvidenceId!: string;
  @ApiProperty({ format: 'uuid', description: 'The grant or revocation action the evidence is anchored to.' }) consentActionId!: string;
  @ApiProperty({ description: "The consent's code." }) internalConsentCode!: string;
  @ApiProperty({ enum: NOTIFICATION_REASONS }) notificationReason!: string;
  @ApiProperty({ enum: NOTIFICATION_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer' }) sentAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service received the evidence.' }) recordedAt!: number;
}
