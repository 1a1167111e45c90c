import { ApiProperty } from '@nestjs/swagger';

/** docs/reference/regulatory-representation.md, "Revocation". */
export class RevocationDto {
  @ApiProperty({ type: 'integer', description: 'When the data subject revoked (epoch ms).' }) revokedAt!: number;
  @ApiProperty({ enum: ['digital', 'phone', 'in_person'] }) channel!: string;
  @ApiProperty({ description: 'Whether the revocation stops the consent now. False while a credit extension is active (it is kept without effect); true once the last one has ended. Never false on a `revoked` consent.' })
  effective!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When it took effect (epoch ms): revokedAt, or the end of the last credit extension when it was kept until then. Null while kept without effect. The retention floor counts from it.' })
  effectiveAt!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When a later fact in force last made the revocation ineffective (epoch ms): a credit granted before revokedAt registered after it, or an annulled extension end.' })
  correctedAt!: number | null;
}
