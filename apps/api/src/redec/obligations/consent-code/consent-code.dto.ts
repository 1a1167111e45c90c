import { ApiProperty } from '@nestjs/swagger';
import { CONSENT_CODE_RESULTS, ConsentCodeResult } from '@ledger/redec';
import { IDENTITY, IdentityText } from '../../../dto-fields';

/** docs/reference/obligations.md, "The consent-code lookup": both fields, always; the lookup never falls back to anything else. */
export class ConsentCodeQueryDto {
  @ApiProperty({ description: `The system the obligation is recorded in. ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the obligation in that system. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  obligationReference!: string;
}

export class ConsentCodeDto {
  @ApiProperty({ maxLength: 100 })
  sourceSystem!: string;

  @ApiProperty({ maxLength: 200 })
  obligationReference!: string;

  @ApiProperty({ enum: CONSENT_CODE_RESULTS })
  result!: ConsentCodeResult;

  @ApiProperty({
    type: String,
    nullable: true,
    minLength: 20,
    maxLength: 20,
    description: 'The 20-character field to report: the internal consent code, twenty `9`, or twenty `0`; null when `unresolved` or `ambiguous`.',
  })
  consentCode!: string | null;
}
