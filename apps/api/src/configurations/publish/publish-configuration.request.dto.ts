import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { CAPTURE_TIMINGS, CHANNELS } from '@ledger/redec';
import type { ConfigurationContent } from '@ledger/redec';
import { PRESENTED, PresentedText } from '../../dto-fields';

/** Keys and ids the integrator chooses: short, printable, without spaces, safe in URLs and logs. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class ConsentScopeDto {
  @ApiProperty({ description: 'Id of the scope inside the configuration, unique in it; a grant narrows to scopes by this id.', pattern: KEY.source, example: 'redec-debt' })
  @IsDefined()
  @IsString()
  @Matches(KEY)
  scopeId!: string;

  @ApiProperty({ description: `The data category the scope grants access to, shown on the consent page and the certificate. ${PRESENTED}`, maxLength: 100, example: 'redec.consolidated_debt_record' })
  @PresentedText(100)
  dataCategoryCode!: string;
}

export class RedecTermsDto {
  @ApiProperty({ description: 'REDEC purpose (finality) code, frozen into every consent captured under this version.', pattern: '^[0-9A-Za-z]{1,10}$', example: '2' })
  @IsDefined()
  @IsString()
  @Matches(/^[0-9A-Za-z]{1,10}$/)
  finalityCode!: string;

  @ApiProperty({
    description: 'REDEC objective codes: two digits each, unique, at least one. A grant may narrow to a non-empty subset.',
    type: [String],
    minItems: 1,
    maxItems: 99,
    example: ['02', '03'],
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(99)
  @IsString({ each: true })
  @Matches(/^[0-9]{2}$/, { each: true })
  objectiveCodes!: string[];

  @ApiProperty({ description: 'What the consent gives access to: at least one scope, scopeIds unique.', type: [ConsentScopeDto], minItems: 1, maxItems: 50 })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => ConsentScopeDto)
  scopes!: ConsentScopeDto[];

  @ApiProperty({ description: `The reporter(s) the consent is given to, as presented to the data subject; at least one, each at most 200 characters. ${PRESENTED}`, type: [String], minItems: 1, maxItems: 50 })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @PresentedText(200, { each: true })
  targets!: string[];

  @ApiProperty({ description: "The integrator's system the reportable obligations of these consents come from.", maxLength: 100, example: 'core-loans' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  obligationSourceSystem!: string;

  @ApiProperty({
    description:
      'Id of the Regulatory Profile that judges interactions and grants under this configuration (identifiers per channel, accepted evidence, medium codes, timing tolerances): `baseline`, or one configured with LEDGER_PROFILES_FILE. It must exist and support the channel.',
    maxLength: 64,
    example: 'baseline',
  })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  regulatoryProfile!: string;
}

export class EmbedTermsDto {
  @ApiProperty({
    description:
      "Origins of the integrator's sites (`https://bank.example`, exactly as a browser writes an origin; `http://` only for localhost): they alone may frame the consent page (CSP frame-ancestors), and a session's `returnUrl` must be on one of them. Empty: the page is never framed.",
    type: [String],
    maxItems: 20,
    example: ['https://www.bank.example'],
  })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  allowedOrigins!: string[];
}

export class PublishConfigurationRequestDto {
  @ApiProperty({
    description: 'The template this publishes a version of. Versions are numbered 1, 2, 3… per template key within the tenant.',
    pattern: KEY.source,
    example: 'redec-credit-evaluation',
  })
  @IsDefined()
  @IsString()
  @Matches(KEY)
  templateKey!: string;

  @ApiProperty({ description: `Title of the consent as presented to the data subject. ${PRESENTED}`, maxLength: 200 })
  @PresentedText(200)
  title!: string;

  @ApiProperty({ description: `The consent text presented to the data subject, exactly as presented; each line a paragraph. ${PRESENTED}`, maxLength: 50_000 })
  @PresentedText(50_000)
  text!: string;

  @ApiProperty({ description: 'The channel consent is captured through. The Regulatory Profile says what identifiers and evidence it needs.', enum: CHANNELS })
  @IsDefined()
  @IsIn(CHANNELS)
  channel!: ConfigurationContent['channel'];

  @ApiProperty({
    description: "`deferred_external`: captured on the integrator's platform and registered with a grant. `embedded`: captured on the service's own consent page (digital channel only).",
    enum: CAPTURE_TIMINGS,
  })
  @IsDefined()
  @IsIn(CAPTURE_TIMINGS)
  captureTiming!: ConfigurationContent['captureTiming'];

  @ApiPropertyOptional({ type: RedecTermsDto, description: 'The REDEC terms. Absent for a general (non-REDEC) consent, which cannot be granted as a REDEC consent.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RedecTermsDto)
  redec?: RedecTermsDto;

  @ApiPropertyOptional({ type: EmbedTermsDto, description: 'Only with `captureTiming: embedded`: where the consent page may be framed and may return to.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => EmbedTermsDto)
  embed?: EmbedTermsDto;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 365,
    default: 0,
    description:
      'Days during which a customer who accepted an earlier version of the template still complies; meanwhile this version is a `pendingVersionChange` for them. 0 (default): in force at publication. Not allowed on version 1.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(365)
  gracePeriodDays?: number;
}
