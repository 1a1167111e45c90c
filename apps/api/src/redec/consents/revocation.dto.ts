import { ApiProperty } from '@nestjs/swagger';

/** Spec 2.5: the revocation inside the regulatory representation. */
export class RevocationDto {
  @ApiProperty({ type: 'integer', description: 'When the data subject revoked (epoch ms).' }) revokedAt!: number;
  @ApiProperty({ enum: ['digital', 'phone', 'in_person'] }) channel!: string;
  @ApiProperty({ description: 'False when a credit granted before the revocation keeps the consent.' }) effective!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When a credit registered later, granted before revokedAt, made the revocation ineffective (epoch ms).' })
  correctedAt!: number | null;
}
