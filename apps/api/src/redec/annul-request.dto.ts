import { ApiProperty } from '@nestjs/swagger';
import { IDENTITY, IdentityText, Text } from '../dto-fields';

/** docs/reference/credit-extensions.md, "Annulling a fact recorded by mistake": why a fact recorded by mistake is annulled, and the bank's reference for the correction. */
export class AnnulRequestDto {
  @ApiProperty({ description: 'Why the fact is annulled, for the audit trail.', maxLength: 500 })
  @Text(500)
  reason!: string;

  @ApiProperty({ description: `The bank's reference for this correction. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;
}
