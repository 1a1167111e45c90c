import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { BINDING_KINDS, BindingKind } from '@ledger/redec';
import { EpochMs, IDENTITY, IdentityText, IssuedId } from '../../../dto-fields';

/** docs/reference/obligations.md, "Binding an obligation": closed; the kind decides whether a consent is named. */
export class BindObligationRequestDto {
  @ApiProperty({ description: `The system the obligation is recorded in. With kind \`consent\`, the consent's obligation source system (frozen at publication). ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the obligation in that system: the \`creditOperationReference\` a credit extension would carry. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  obligationReference!: string;

  @ApiProperty({
    enum: BINDING_KINDS,
    description: '`consent`: the obligation is reported under that consent. `legacy_pre_redec`: it predates REDEC. `no_applicable_consent`: no consent applies to it.',
  })
  @IsIn(BINDING_KINDS)
  kind!: BindingKind;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'Required with kind `consent`; absent or null with the other kinds.' })
  @IsOptional()
  @IssuedId()
  redecConsentId?: string | null;

  @ApiProperty({
    type: 'integer',
    description:
      "When the bank granted the obligation (epoch ms); not after the receipt beyond the Regulatory Profile's callerClockSkewMs. With kind `consent`, the consent must have enabled access " +
      'for the obligation at that instant: inside its initial window and before any revocation, or extended for exactly that obligation (422 `redec_consent_not_valid_at_obligation_grant`).',
  })
  @EpochMs()
  obligationGrantedAt!: number;
}

/** A recorded binding. The twenty 9s or 0s are not part of it: they exist only in the consent-code lookup. */
export class ObligationBindingDto {
  @ApiProperty({ format: 'uuid' })
  bindingId!: string;

  @ApiProperty({ maxLength: 100 })
  sourceSystem!: string;

  @ApiProperty({ maxLength: 200 })
  obligationReference!: string;

  @ApiProperty({ enum: BINDING_KINDS })
  kind!: BindingKind;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Set only for kind `consent`.' })
  redecConsentId!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The consent's 20-character internal code, frozen when bound; set only for kind `consent`." })
  internalConsentCode!: string | null;

  @ApiProperty({ type: 'integer', description: 'When the bank granted the obligation (epoch ms).' })
  obligationGrantedAt!: number;

  @ApiProperty({ type: 'integer', description: 'When the binding was recorded (epoch ms).' })
  boundAt!: number;
}

/** The answer to annulling a binding. */
export class BindingAnnulmentDto {
  @ApiProperty({ format: 'uuid' }) bindingId!: string;
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() obligationReference!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() sourceReference!: string;
  @ApiProperty({ type: 'integer', description: 'When the service recorded the annulment (epoch ms).' }) annulledAt!: number;
}
