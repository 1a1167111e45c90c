import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CreditExtensionDto } from './credit-extension.dto';
import { RevocationDto } from './revocation.dto';

/** docs/reference/regulatory-representation.md, "Fields". */
export class ConsentRepresentationDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ description: 'Regulatory internal code: 20 characters of 0-9A-Z.' }) internalConsentCode!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ enum: ['granted', 'extended', 'revoked', 'expired'], description: 'Derived from the facts and the clock at read time.' }) status!: string;
  @ApiProperty({ example: 'digital' }) channel!: string;
  @ApiProperty({ example: 'deferred_external' }) captureTiming!: string;
  @ApiProperty({ type: 'integer', description: 'Regulatory grant instant (epoch ms).' }) grantedAt!: number;
  @ApiProperty({ type: 'integer', description: 'End of the initial window (epoch ms).' }) initialAccessValidUntil!: number;
  @ApiProperty({ description: 'Purpose code.' }) finalityCode!: string;
  @ApiProperty({ description: 'Medium code, derived from the evidence.' }) mediumCode!: string;
  @ApiProperty({ type: [String], description: 'Two-digit objective codes.' }) objectiveCodes!: string[];
  @ApiPropertyOptional({ type: RevocationDto, nullable: true, description: 'Present when a revocation was recorded.' }) revocation!: RevocationDto | null;
  @ApiProperty({ type: [CreditExtensionDto], description: 'Credit extensions, in the order their credits were granted (then by creditOperationReference).' }) creditExtensions!: CreditExtensionDto[];
  @ApiProperty({ enum: ['pending', 'ready'] }) artifactStatus!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Minimum retention floor; null while valid or extended. Not a deletion date.' }) retentionUntil!: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['revocation', 'loss_of_validity', 'obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation'],
    description:
      'Basis of the floor: `revocation` (5 years from revocation.effectiveAt), `loss_of_validity` (from initialAccessValidUntil), or how the last obligation ended when it ended after the window ' +
      '(from its endedAt). Null while the consent enables access.',
  })
  retentionBasis!: string | null;
}

export class ConsentListDto {
  @ApiProperty({ type: [ConsentRepresentationDto] }) consents!: ConsentRepresentationDto[];
}

/** An auditor's export item: the representation, and when the consent's last fact was recorded. */
export class ExportedConsentDto extends ConsentRepresentationDto {
  @ApiProperty({ type: 'integer', description: "When the consent's last fact was recorded (epoch ms): the export's order." }) updatedAt!: number;
}

export class ConsentExportPageDto {
  @ApiProperty({ type: [ExportedConsentDto] }) items!: ExportedConsentDto[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null at the end.' }) nextCursor!: string | null;
}
