import { ApiProperty } from '@nestjs/swagger';
import { Text } from '../../dto-fields';

/** docs/reference/customers.md, "Legal holds": why the customer's data must be kept past its retention floor, and the case it is kept for. */
export class PlaceLegalHoldRequestDto {
  @ApiProperty({ description: 'Why the data must be kept (a litigation, a regulator\'s request), for the audit trail. It outlives an erasure: write no personal data in it.', maxLength: 500 })
  @Text(500)
  reason!: string;

  @ApiProperty({ description: "The bank's reference for the case (a docket, a ticket).", maxLength: 200 })
  @Text()
  reference!: string;
}

export class LegalHoldResponseDto {
  @ApiProperty({ format: 'uuid' }) legalHoldId!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() reference!: string;
  @ApiProperty({ type: 'integer', description: 'When the hold was placed (epoch ms).' }) placedAt!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When it was released (epoch ms); null while it is in force.' }) releasedAt!: number | null;
}

export class LegalHoldListDto {
  @ApiProperty({ type: [LegalHoldResponseDto] }) items!: LegalHoldResponseDto[];
}
