import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, ValidateNested } from 'class-validator';
import { CAPTURE_TIMINGS, CHANNELS } from '@ledger/redec';
import type { GeneralConsentState } from '@ledger/consents';
import { generalConsentStatus } from '@ledger/consents';
import { EpochMs, IDENTITY, IdentityText } from '../dto-fields';
import { EvidenceDto } from '../redec/interactions/grant/grant.request.dto';

/** The grant of a general consent captured outside the service: when, where, and the evidence. */
export class GeneralGrantRequestDto {
  @ApiProperty({ type: 'integer', description: 'When the data subject accepted (epoch ms); not later than the receipt.' })
  @EpochMs()
  occurredAt!: number;

  @ApiProperty({ description: `The system of the capture on your platform. ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the capture on your platform. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;

  @ApiProperty({ type: EvidenceDto, description: 'As for a REDEC grant: `electronic` (authentication), `audio_recording` or `physical_document` (bytes held, or a reference with its hash). No artifact is rendered.' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => EvidenceDto)
  evidence!: EvidenceDto;
}

export class GeneralRevokeRequestDto {
  @ApiProperty({ type: 'integer', description: 'When the data subject revoked (epoch ms): not before the grant, not after the receipt.' })
  @EpochMs()
  occurredAt!: number;

  @ApiProperty({ enum: CHANNELS, description: 'The channel the revocation was received on.' })
  @IsIn(CHANNELS)
  channel!: (typeof CHANNELS)[number];

  @ApiProperty({ description: `The system the revocation was received on. ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the revocation on that system. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;
}

export class GeneralRevocationDto {
  @ApiProperty({ format: 'uuid' }) consentActionId!: string;
  @ApiProperty({ type: 'integer' }) revokedAt!: number;
  @ApiProperty({ enum: CHANNELS }) channel!: string;
  @ApiProperty({ type: 'integer', description: 'When the service received it.' }) recordedAt!: number;
}

/** A general consent as the customer's consents and GET /v1/consents/{consentId} show it. */
export class GeneralConsentDto {
  @ApiProperty({ enum: ['general'] }) kind!: 'general';
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty() templateKey!: string;
  @ApiProperty({ type: 'integer' }) configurationVersion!: number;
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty({ enum: ['granted', 'revoked'], description: 'A general consent does not expire; it holds until revoked.' }) status!: 'granted' | 'revoked';
  @ApiProperty({ enum: CHANNELS }) channel!: string;
  @ApiProperty({ enum: CAPTURE_TIMINGS }) captureTiming!: string;
  @ApiProperty({ type: 'integer', description: 'When the data subject accepted: occurredAt, or for embedded capture the service receipt.' }) grantedAt!: number;
  @ApiProperty({ type: 'integer' }) recordedAt!: number;
  @ApiProperty({ format: 'uuid', description: 'The grant action.' }) consentActionId!: string;
  @ApiProperty({ type: GeneralRevocationDto, nullable: true }) revocation!: GeneralRevocationDto | null;
}

export class GeneralGrantResponseDto {
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty({ format: 'uuid' }) consentActionId!: string;
  @ApiProperty() templateKey!: string;
  @ApiProperty({ type: 'integer' }) configurationVersion!: number;
  @ApiProperty({ type: 'integer' }) grantedAt!: number;
  @ApiProperty({ type: 'integer' }) recordedAt!: number;
}

export function generalConsentView(state: GeneralConsentState): GeneralConsentDto {
  const { grant, revocation } = state;
  return {
    kind: 'general',
    consentId: grant.consentId,
    customerId: grant.customerId,
    templateKey: grant.templateKey,
    configurationVersion: grant.configurationVersion,
    configurationId: grant.configurationId,
    status: generalConsentStatus(state),
    channel: grant.channel,
    captureTiming: grant.captureTiming,
    grantedAt: grant.grantedAt,
    recordedAt: grant.recordedAt,
    consentActionId: grant.consentActionId,
    revocation: revocation && { consentActionId: revocation.consentActionId, revokedAt: revocation.revokedAt, channel: revocation.channel, recordedAt: revocation.recordedAt },
  };
}
