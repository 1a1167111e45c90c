import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { CREDIT_EXTENSION_END_REASONS } from '@ledger/redec';
import { EpochMs, IDENTITY, IdentityCharacters, IdentityText, Text } from '../../../dto-fields';

/** docs/reference/credit-extensions.md, "Registering an extension". */
export class RegisterCreditExtensionRequestDto {
  @ApiProperty({ format: 'uuid', description: "The customer's id (customerId); it must be the consent's customer." })
  @Text(64)
  customerTenantId!: string;

  @ApiProperty({ example: '02', description: 'A two-digit objective code the consent grants.' })
  @Matches(/^[0-9]{2}$/)
  objectiveCode!: string;

  @ApiProperty({ description: `The credit operation (the obligation); under \`obligationSourceSystem\` of the consent it is the binding produced. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  creditOperationReference!: string;

  @ApiProperty({ type: 'integer', description: 'When the credit was granted (epoch ms): inside the initial window and not after the receipt.' })
  @EpochMs()
  creditGrantedAt!: number;

  @ApiProperty({ description: IDENTITY, maxLength: 200 })
  @IdentityText()
  sourceSystem!: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'Must be non-empty when creditGrantedAt precedes the accepted revokedAt (a revocation recorded, effective or kept): without it, 422 `redec_revocation_correction_requires_source_reference`. ' +
      'Over an effective revocation the registration then appends a correction leaving the revocation `effective: false` with `correctedAt`. ' +
      IDENTITY,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @IdentityCharacters()
  sourceReference?: string;
}

/** docs/reference/credit-extensions.md, "Ending an extension". */
export class EndCreditExtensionRequestDto {
  @ApiProperty({ enum: CREDIT_EXTENSION_END_REASONS })
  @IsIn(CREDIT_EXTENSION_END_REASONS)
  endReason!: (typeof CREDIT_EXTENSION_END_REASONS)[number];

  @ApiPropertyOptional({ description: `Required with \`superseded_by_new_obligation\`, refused otherwise: the creditOperationReference of the new obligation, which does not inherit the consent. ${IDENTITY}`, maxLength: 200 })
  @IsOptional()
  @IdentityText()
  supersededByObligationReference?: string;

  @ApiPropertyOptional({
    type: 'integer',
    description:
      "When the obligation ended at the bank (epoch ms); the receipt when absent. Not after the receipt, not before the credit was granted, and not further back than the Regulatory Profile's maxOccurredAtSkewMs (baseline 7 days). " +
      'It is the extension\'s `endedAt`, and the retention floor counts from it.',
  })
  @IsOptional()
  @EpochMs()
  occurredAt?: number;
}
