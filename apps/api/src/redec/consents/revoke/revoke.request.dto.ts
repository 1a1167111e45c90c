import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { CHANNELS, REVOCATION_SOURCE_TYPES } from '@ledger/redec';
import { EpochMs, Text } from '../../../dto-fields';

/** docs/reference/revocations.md, "Recording a revocation". */
export class RevokeRequestDto {
  @ApiProperty({ enum: CHANNELS, description: 'The channel the revocation was received on; the consent\'s Regulatory Profile must support it.' })
  @IsIn(CHANNELS)
  channel!: (typeof CHANNELS)[number];

  @ApiProperty({ type: 'integer', description: 'When the data subject revoked (epoch ms): not before the grant, not after the receipt.' })
  @EpochMs()
  occurredAt!: number;

  @ApiProperty({ enum: REVOCATION_SOURCE_TYPES, description: '`direct`: the data subject; `representative`: someone acting for them.' })
  @IsIn(REVOCATION_SOURCE_TYPES)
  sourceType!: (typeof REVOCATION_SOURCE_TYPES)[number];

  @ApiProperty({
    example: 'client_authenticated',
    description:
      "How the revoker was established. It must be one the consent's Regulatory Profile accepts on this channel " +
      '(baseline: `client_authenticated` on every channel, and `identity_document_verified` in person); otherwise 400 with reason `identity_assurance_not_accepted`.',
    maxLength: 64,
  })
  @Text(64)
  identityAssurance!: string;
}

export class RevocationResponseDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ format: 'uuid', description: 'The revocation action: notification evidence and the `revoke` webhook refer to it.' }) consentActionId!: string;
  @ApiProperty() internalConsentCode!: string;
  @ApiProperty({ type: 'integer' }) revokedAt!: number;
  @ApiProperty({ enum: CHANNELS }) channel!: string;
  @ApiProperty({ enum: REVOCATION_SOURCE_TYPES }) sourceType!: string;
  @ApiProperty() identityAssurance!: string;
  @ApiProperty({ description: 'False when a credit extension is active: the revocation is kept as a fact, the status is unchanged, and it takes effect when the last extension ends.' })
  effective!: boolean;
  @ApiProperty({ type: 'integer', description: 'When the service received the revocation (epoch ms).' }) recordedAt!: number;
  @ApiProperty({ enum: ['granted', 'extended', 'revoked', 'expired'], description: 'The consent status once the revocation is recorded.' }) consentStatus!: string;
}
