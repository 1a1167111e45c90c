import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CustomerReferenceDto } from '../redec/interactions/create/create-interaction.request.dto';
import { Text } from '../dto-fields';

export const DEFAULT_PRIVACY_CENTER_SECONDS = 900;
/** What the bank states when it says nothing else: it authenticated its own customer, as the baseline profile accepts on every channel. */
export const DEFAULT_IDENTITY_ASSURANCE = 'client_authenticated';

/** docs/reference/privacy-center.md, "Opening a session". */
export class OpenPrivacyCenterSessionRequestDto extends CustomerReferenceDto {
  @ApiPropertyOptional({
    description: "The bank's page the person goes back to (a link at the foot of the center). https (http only on localhost). Its origin is the only one that may frame the center.",
    maxLength: 2048,
    example: 'https://www.bank.example/privacidad',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  returnUrl?: string;

  @ApiPropertyOptional({
    default: DEFAULT_IDENTITY_ASSURANCE,
    maxLength: 64,
    description:
      'How the bank established who the person is before opening the center: recorded as the identityAssurance of every revocation made on it, which the consent\'s Regulatory Profile must accept on channel `digital` (baseline: `client_authenticated`).',
  })
  @IsOptional()
  @Text(64)
  identityAssurance?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 60, maximum: 3600, default: DEFAULT_PRIVACY_CENTER_SECONDS, description: 'How long the page may be used, to look and to act.' })
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(3600)
  expiresInSeconds?: number;
}

export class OpenPrivacyCenterSessionResponseDto {
  @ApiProperty({ format: 'uuid' }) sessionId!: string;
  @ApiProperty({ format: 'uuid', description: 'The tenant-scoped customer the center shows.' }) customerId!: string;
  @ApiProperty({ description: "The service's privacy center page for this customer: carries its own secret token (exchanged for a cookie when opened); hand it only to the data subject, over https." }) url!: string;
  @ApiProperty({ type: 'integer', description: 'Epoch ms from which the page shows nothing and records nothing.' }) expiresAt!: number;
  @ApiProperty({ description: 'Whether resolving the customer inline created it.' }) customerCreated!: boolean;
}
