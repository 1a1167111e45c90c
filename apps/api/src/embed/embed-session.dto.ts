import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { MAX_DECISION_ITEMS } from '@ledger/consents';
import type { EmbedSessionStatus } from '@ledger/embed';
import { CaptureSubjectDto } from '../redec/interactions/create/create-interaction.request.dto';
import { IDENTITY, IssuedId, PRESENTED, PresentedText, UuidInLowerCase } from '../dto-fields';

export const DEFAULT_SESSION_SECONDS = 900;

/** docs/reference/embed-sessions.md, "Opening a session": the interaction's customer reference and configuration (or several), plus what the flow needs. */
export class OpenEmbedSessionRequestDto extends CaptureSubjectDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The configuration the page offers, published with `captureTiming: embedded`. Send this, or `configurationIds`.' })
  @IsOptional()
  @IssuedId()
  configurationId?: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    minItems: 1,
    maxItems: MAX_DECISION_ITEMS,
    description:
      'Several configurations (each `captureTiming: embedded`, each once) offered together on one page, each accepted or declined on its own and recorded as one Multi-Consent decision. ' +
      "The customer's identifiers must satisfy every REDEC configuration's profile; `returnUrl` must be on the allowed origins of each configuration that lists any, and only an origin every configuration allows may frame the page.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_DECISION_ITEMS)
  @UuidInLowerCase()
  @IsUUID(undefined, { each: true })
  configurationIds?: string[];

  @ApiPropertyOptional({
    description:
      "Where the data subject's browser goes after deciding, with the signed result appended (`embed_session_id`, `status`, `reference`, `timestamp`, `signature`). https (http only on localhost), on one of the configuration's `embed.allowedOrigins` when it lists any. Without it the page shows the outcome itself.",
    maxLength: 2048,
    example: 'https://www.bank.example/consent/return',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  returnUrl?: string;

  @ApiPropertyOptional({
    description: `The integrator's own reference for this capture, returned in the redirect and the status, and recorded as the grant's sourceReference, which the certificate prints. ${PRESENTED} ${IDENTITY}`,
    maxLength: 200,
  })
  @IsOptional()
  @PresentedText(200, { identity: true })
  dynamicReference?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 60, maximum: 3600, default: DEFAULT_SESSION_SECONDS, description: 'How long the page accepts a decision.' })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(3600)
  expiresInSeconds?: number;
}

export class OpenEmbedSessionResponseDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty({ format: 'uuid', description: 'The tenant-scoped customer the session is for.' }) customerId!: string;
  @ApiProperty({ description: "The service's consent page for this session: single use, carries its own secret token (exchanged for a cookie when opened); hand it only to the data subject, over https." }) url!: string;
  @ApiProperty({ type: 'integer', description: 'Epoch ms after which the page refuses a decision.' }) expiresAt!: number;
  @ApiProperty({ description: 'Whether resolving the customer inline created it.' }) customerCreated!: boolean;
  @ApiProperty({ description: 'Verifies the signature of the redirect to returnUrl (docs/embedded-capture.md). Shown only here.' }) resultSecret!: string;
}

export class EmbedSessionConsentDto {
  @ApiProperty({ enum: ['redec', 'general'] }) kind!: 'redec' | 'general';
  @ApiProperty({ format: 'uuid', description: 'The consent id: `redecConsentId` for REDEC (GET /v1/redec/consents/{id}), else GET /v1/consents/{id}.' }) consentId!: string;
  @ApiPropertyOptional({ description: 'REDEC only.' }) internalConsentCode?: string;
}

export class EmbedSessionItemDto {
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty({ enum: ['accepted', 'declined'], nullable: true, type: String, description: 'null until the data subject decided.' }) decision!: 'accepted' | 'declined' | null;
  @ApiProperty({ type: EmbedSessionConsentDto, nullable: true, description: 'The consent recorded when this item was accepted.' }) consent!: EmbedSessionConsentDto | null;
}

export class EmbedSessionStatusDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The configuration of a session that offers one; null when it offers several (see `items`).' }) configurationId!: string | null;
  @ApiProperty({
    enum: ['open', 'accepted', 'declined', 'partially_accepted', 'expired'],
    description: '`expired`: no decision before expiresAt. `accepted` / `declined`: every item was; `partially_accepted`: some items were accepted and some declined (only a session of several).',
  })
  status!: EmbedSessionStatus;
  @ApiProperty({ nullable: true, type: String }) dynamicReference!: string | null;
  @ApiProperty({ type: 'integer' }) openedAt!: number;
  @ApiProperty({ type: 'integer' }) expiresAt!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When the service received the decision; for what was accepted, the regulatory grantedAt.' }) decidedAt!: number | null;
  @ApiProperty({ type: EmbedSessionConsentDto, nullable: true, description: 'The consent recorded on acceptance, for a session that offers one configuration; null when it offers several (see `items`).' })
  consent!: EmbedSessionConsentDto | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The Multi-Consent decision the session recorded once decided (GET /v1/consent-decisions/{decisionId}).' }) decisionId!: string | null;
  @ApiProperty({ type: [EmbedSessionItemDto], description: 'Every configuration offered, in the order of the page, with its decision and consent.' }) items!: EmbedSessionItemDto[];
}
