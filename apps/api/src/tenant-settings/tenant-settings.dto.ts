import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, ValidateIf } from 'class-validator';

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
  @ApiProperty({ type: 'integer', nullable: true, description: 'When the settings were last changed (epoch ms); null while they are the defaults.' }) updatedAt!: number | null;
}
