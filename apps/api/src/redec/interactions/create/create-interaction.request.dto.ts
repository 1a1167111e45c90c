import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IdentifierDto } from '../../../customers/resolve/resolve-customer.request.dto';
import { IDENTITY, IdentityCharacters, IssuedId, PresentedText } from '../../../dto-fields';

/**
 * docs/reference/grants.md, "Opening an interaction": the customer by
 * `customerId`, or resolved inline from `userReference` + `identifiers`.
 * Interactions, embed sessions and Multi-Consent decisions name the customer
 * this way.
 */
export class CustomerReferenceDto {
  @ApiPropertyOptional({ description: 'A customer of this tenant resolved earlier. Send this, or `userReference` with `identifiers`.', format: 'uuid' })
  @IsOptional()
  @IssuedId()
  customerId?: string;

  @ApiPropertyOptional({ description: `Resolves the customer inline with the rules of POST /v1/customers/resolve. ${IDENTITY}`, maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IdentityCharacters()
  userReference?: string;

  @ApiPropertyOptional({
    type: [IdentifierDto],
    description: "With `userReference`. For a REDEC configuration the identifiers and their provenance must satisfy the configuration's channel under its Regulatory Profile.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => IdentifierDto)
  identifiers?: IdentifierDto[];
}

/** The customer of a capture, and how the consent certificate names them. */
export class CaptureSubjectDto extends CustomerReferenceDto {
  @ApiPropertyOptional({
    maxLength: 200,
    example: 'María José Pérez Soto',
    description:
      "The data subject's name as the bank chose to show it on the consent certificate of what this capture records (a REDEC consent's certificate names its holder). " +
      "Kept under the customer's own key and erased with their data; a text shown to the data subject (docs/reference/configurations.md). Absent: the certificate names no one.",
  })
  @IsOptional()
  @PresentedText(200)
  dataSubjectName?: string;
}

/** `{ configurationId, userReference, identifiers }` or `{ configurationId, customerId }`; also the start of an embed session. */
export class CreateInteractionRequestDto extends CaptureSubjectDto {
  @ApiProperty({
    description: 'The published configuration: with a `redec` block for /v1/redec/consent-interactions, without one for /v1/consent-interactions, `captureTiming: embedded` for an embed session.',
    format: 'uuid',
  })
  @IssuedId()
  configurationId!: string;
}

export class CreateInteractionResponseDto {
  @ApiProperty({ format: 'uuid' }) interactionId!: string;
  @ApiProperty({ format: 'uuid', description: 'The tenant-scoped customer the interaction is for.' }) customerId!: string;
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty({ description: 'Whether resolving the customer inline created it.' }) customerCreated!: boolean;
}
