import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { IDENTITY, IdentityCharacters } from '../../dto-fields';

export class IdentifierVerificationDto {
  @ApiProperty({ description: 'How the integrator verified the identifier, e.g. `clave_unica`.', maxLength: 100 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  method!: string;

  @ApiProperty({ description: `Reference of the verification on the integrator's platform. ${IDENTITY}`, maxLength: 200 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IdentityCharacters()
  sourceReference!: string;

  @ApiProperty({ description: 'When it was verified (epoch ms); not after the receipt of this request.', type: 'integer' })
  @IsDefined()
  @IsInt()
  @Min(0)
  verifiedAt!: number;
}

export class IdentifierDto {
  @ApiProperty({ description: 'The issuing system of the identifier, e.g. `cl-sii`.', maxLength: 100 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  system!: string;

  @ApiProperty({ description: 'The identifier type, e.g. `rut` (normalized and check-digit validated).', maxLength: 50 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  type!: string;

  @ApiProperty({ description: 'The identifier value. Kept only as a keyed hash and ciphertext; never returned.', maxLength: 256 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  value!: string;

  @ApiPropertyOptional({ type: IdentifierVerificationDto, description: 'Requires the scope `consent:identity-assert`.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IdentifierVerificationDto)
  verification?: IdentifierVerificationDto;
}

export class ResolveCustomerRequestDto {
  @ApiProperty({ description: `Stable integrator reference of the subject within the tenant. ${IDENTITY}`, maxLength: 200 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @IdentityCharacters()
  userReference!: string;

  @ApiProperty({ type: [IdentifierDto], minItems: 1, maxItems: 20 })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => IdentifierDto)
  identifiers!: IdentifierDto[];
}

export class PublicIdentifierDto {
  @ApiProperty() system!: string;
  @ApiProperty() type!: string;
  @ApiProperty({
    enum: ['asserted', 'unverified'],
    description: '`asserted`: the integrator declared a verification (method, source, instant). The service records the assertion; it does not verify.',
  })
  verificationState!: 'asserted' | 'unverified';
}

export class ResolveCustomerResponseDto {
  @ApiProperty({ description: 'Tenant-scoped subject id.' }) customerId!: string;
  @ApiProperty({ description: 'True on the first resolution (201), false on a compatible repeat (200).' }) created!: boolean;
  @ApiProperty({ type: [PublicIdentifierDto] }) identifiers!: PublicIdentifierDto[];
}
