import { ApiProperty } from '@nestjs/swagger';
import { RevocationDto } from './revocation.dto';

/** A record inside `creditExtensions` (docs/reference/regulatory-representation.md, "Credit extensions"). */
export class CreditExtensionDto {
  @ApiProperty({ format: 'uuid' }) creditExtensionId!: string;
  @ApiProperty({ description: 'Two-digit objective code, one the consent grants.' }) objectiveCode!: string;
  @ApiProperty({ description: 'The exact obligation the extension arose from; authorizations under it cover this obligation only.' }) creditOperationReference!: string;
  @ApiProperty({ type: 'integer', description: 'When the credit was granted (epoch ms).' }) creditGrantedAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service registered the extension (epoch ms).' }) extendedAt!: number;
  @ApiProperty({ enum: ['active', 'ended'] }) status!: string;
  @ApiProperty({ type: 'string', nullable: true, enum: ['obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation'] }) endReason!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "When the obligation ended (epoch ms): the end request's occurredAt, or its receipt." }) endedAt!: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'With `superseded_by_new_obligation`: the new obligation, which does not inherit the consent.' })
  supersededByObligationReference!: string | null;
  @ApiProperty({
    description:
      'Whether the extension keeps the consent for its obligation. Decided by when things happened, not the order the bank reported them (decision 0054): ' +
      'an extension registered before a revocation back-dated before its credit, or of an obligation later named as superseding another of the consent, stays a fact but enables nothing.',
  })
  effective!: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['credit_granted_after_revocation', 'superseding_obligation'],
    description: 'Why it enables nothing: the credit was granted at or after the revocation, or its obligation superseded one of the consent\'s. Null while effective.',
  })
  ineffectiveReason!: string | null;
}

/** The answer to registering or ending a credit extension: the record, and the consent as it stands after. */
export class CreditExtensionResponseDto extends CreditExtensionDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ enum: ['granted', 'extended', 'revoked', 'expired'] }) consentStatus!: string;
  @ApiProperty({ type: RevocationDto, nullable: true, description: 'A correction shows here as `effective: false` with `correctedAt`.' }) revocation!: RevocationDto | null;
}

/** The answer to an annulment: what was annulled, and the consent as it stands after. */
export class CreditExtensionAnnulmentResponseDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ format: 'uuid' }) creditExtensionId!: string;
  @ApiProperty({ enum: ['credit_extension', 'credit_extension_end'], description: 'The registration (the extension is gone from the read) or its end (the extension is active again).' })
  annulled!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() sourceReference!: string;
  @ApiProperty({ type: 'integer', description: 'When the service recorded the annulment (epoch ms).' }) annulledAt!: number;
  @ApiProperty({ enum: ['granted', 'extended', 'revoked', 'expired'] }) consentStatus!: string;
  @ApiProperty({ type: RevocationDto, nullable: true }) revocation!: RevocationDto | null;
}
