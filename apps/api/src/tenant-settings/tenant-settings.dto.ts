import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsObject, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';

const TERMS_DESCRIPTION =
  'What a code means, in the words a person reads (Spanish), by code; 1 to 300 characters each, at most 200 per kind. Extends the service\'s own table (docs/embedded-capture.md, "What the page shows"); where it names a code the service knows, the bank\'s words are shown.';

/** The meanings of the bank's codes, by kind. */
export class TermMeaningsDto {
  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, example: { '2': 'Evaluar su solicitud de crédito' }, description: `Purposes (\`finalityCode\`). ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  finality?: Record<string, string>;

  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, example: { '02': 'Otorgarle un crédito nuevo' }, description: `Objectives (\`objectiveCodes\`). ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  objective?: Record<string, string>;

  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, description: `Data categories (\`dataCategoryCode\`). ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  dataCategory?: Record<string, string>;

  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, description: `Media (\`mediumCode\`). ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  medium?: Record<string, string>;

  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, description: `Channels (\`channel\`). ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  channel?: Record<string, string>;

  @ApiProperty({ required: false, type: Object, additionalProperties: { type: 'string' }, example: { otp_sms: 'Clave enviada por SMS a su teléfono' }, description: `Authentication methods (evidence \`authentication.method\`), as the certificate tells the person how they identified themselves. ${TERMS_DESCRIPTION}` })
  @IsOptional()
  @IsObject()
  authenticationMethod?: Record<string, string>;
}

/** The bank's logo, written into the page itself. */
export class TenantLogoDto {
  @ApiProperty({ enum: ['image/png', 'image/jpeg', 'image/svg+xml'], description: 'What the bytes are; they must start as that type does (else 400 `content_does_not_match_media_type`).' })
  @IsString()
  mediaType!: string;

  @ApiProperty({ description: 'The image, base64: at most 32 KiB of bytes (400 `too_large`), so the presentation stays under the 64 KiB body limit.' })
  @IsString()
  base64!: string;
}

/** PUT /v1/tenant-settings/presentation: how the bank appears on the pages a person sees. */
export class TenantPresentationDto {
  @ApiProperty({ example: 'Banco Ejemplo', description: "The bank's name as its customers know it, shown at the top of every page a person sees; 1 to 100 characters, one line." })
  @IsString()
  @MaxLength(200)
  displayName!: string;

  @ApiProperty({
    type: TenantLogoDto,
    required: false,
    nullable: true,
    description: 'Shown beside the name, at most 40 px high, as decoration (the name beside it says who the bank is). Written into the page as a `data:` image, so the page still loads nothing from anywhere. Absent or null: no logo.',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => TenantLogoDto)
  logo?: TenantLogoDto | null;

  @ApiProperty({
    example: '#0b3d91',
    description: "`#rrggbb`: the buttons' fill (with white text) and the page's accent. Refused under 4.5:1 against white (400 `insufficient_contrast`, WCAG 2.2 AA for text).",
  })
  @IsString()
  accentColor!: string;

  @ApiProperty({ type: TermMeaningsDto, description: 'What the codes the pages show mean. A session whose configurations use a code without a meaning here (or in the service\'s own table) is refused: 409 `readable_terms_missing`.' })
  @ValidateNested()
  @Type(() => TermMeaningsDto)
  terms!: TermMeaningsDto;
}

/** PUT /v1/tenant-settings: the whole set of settings (docs/reference/reports.md, "Tenant settings"). */
export class TenantSettingsRequestDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0000000001',
    description: "The bank's institution code at the CMF: exactly 10 digits (400 `invalid_institution_code`), or null to clear it. RDC30, RDC31 and RDC40 cannot be rendered without it.",
  })
  @IsDefined()
  @ValidateIf((_o, value) => value !== null)
  @IsString()
  institutionCode!: string | null;

  @ApiProperty({
    type: Boolean,
    required: false,
    default: false,
    description:
      'Opt-in: every Saturday at 01:00 America/Santiago, RDC30 and RDC31 of the week Saturday to Friday just ended are made and announced by the `report.created` webhook; ' +
      'a run missed while the service was down is made at its next start, once. Needs the institution code (400 `institution_code_required`).',
  })
  @IsOptional()
  @IsBoolean()
  weeklyReports?: boolean;

  @ApiProperty({
    type: Boolean,
    required: false,
    default: false,
    description:
      'Opt-in: every day at 01:00 America/Santiago, RDC40 of the day before (the events of REDEC disputes, or the "no movements" file of a day without any) is made and announced by the `report.created` webhook; ' +
      'a run missed while the service was down is made at its next start, once. Needs the institution code (400 `institution_code_required`).',
  })
  @IsOptional()
  @IsBoolean()
  dailyRightsReport?: boolean;

  @ApiProperty({
    type: Boolean,
    required: false,
    default: false,
    description:
      "Opt-in: the deployment's scheduled erasure after the retention floor (`LEDGER_RETENTION_ERASE_SCHEDULE`, a cron pattern in America/Santiago time that the operator sets) erases this tenant's erasable customers: " +
      'their data keys, evidence and the stored reports that name them are destroyed for good (docs/data-lifecycle.md). Off, only `ledger retention erase --tenant` erases. ' +
      'Where the deployment sets no schedule, turning it on changes nothing until one is set.',
  })
  @IsOptional()
  @IsBoolean()
  scheduledErasure?: boolean;
}

export class TenantSettingsDto {
  @ApiProperty({ type: String, nullable: true, description: 'The CMF institution code, 10 digits; null until set.' }) institutionCode!: string | null;
  @ApiProperty({ description: 'Whether RDC30 and RDC31 are made every week.' }) weeklyReports!: boolean;
  @ApiProperty({ description: 'Whether RDC40 is made every day.' }) dailyRightsReport!: boolean;
  @ApiProperty({ description: "Whether the deployment's scheduled erasure after the retention floor erases this tenant's customers." }) scheduledErasure!: boolean;
  @ApiProperty({ type: TenantPresentationDto, nullable: true, description: "How the bank appears on the pages a person sees; null until set (PUT /v1/tenant-settings/presentation), when the tenant's name is shown." }) presentation!: TenantPresentationDto | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When the settings were last changed (epoch ms); null while they are the defaults.' }) updatedAt!: number | null;
}
