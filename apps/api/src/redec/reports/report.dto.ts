import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { REPORT_KINDS, ReportKind } from '@ledger/redec';
import { EpochMs } from '../../dto-fields';

/** docs/reference/reports.md, "Asking for a report". */
export class RequestReportDto {
  @ApiProperty({ enum: REPORT_KINDS, description: '`rdc30`: consents captured (and corrected) in the period; `rdc31`: accesses confirmed `accessed` in it; `rdc40`: each step of a REDEC dispute in it (filed, analysis started, closed), the header alone when none.' })
  @IsIn(REPORT_KINDS)
  kind!: ReportKind;

  @ApiProperty({ type: 'integer', description: 'First instant of the period (epoch ms), included. A weekly file: Saturday 00:00 America/Santiago.' })
  @EpochMs()
  periodStart!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Last instant of the period (epoch ms), included: before now (400 `period_not_ended`), not before periodStart, at most 93 days after it. A weekly file: Friday 23:59:59.999 America/Santiago.',
  })
  @EpochMs()
  periodEnd!: number;
}

export class ReportRequestedDto {
  @ApiProperty({ format: 'uuid' }) reportId!: string;
  @ApiProperty({ enum: ['pending'] }) status!: string;
}

export class ReportDto {
  @ApiProperty({ format: 'uuid' }) reportId!: string;
  @ApiProperty({ enum: REPORT_KINDS }) kind!: string;
  @ApiProperty({ enum: ['pending', 'ready', 'failed'], description: '`pending` until the background job renders it (seconds); `failed` names why in `failureReason`.' }) status!: string;
  @ApiProperty({ type: 'integer' }) periodStart!: number;
  @ApiProperty({ type: 'integer' }) periodEnd!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Detail lines (the header not counted); null until ready.' }) records!: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    nullable: true,
    description:
      'Cover-sheet figures; null until ready. rdc30: `totalRecords`, `captured`, `corrected` (consents of earlier periods whose end of validity changed), `withExecutive`. ' +
      'rdc31: `totalRecords`, `byMandatary`, `onBankingDays`, `outsideBusinessHours`. rdc40: `totalRecords`, `filed`, `analysisStarted`, `closed`, `noMovements` (1 for a period without any).',
  })
  metadata!: Record<string, number> | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'SHA-256 (hex) of the exact bytes of the content; null until ready, and null again once the content is erased (`contentErasedAt` set): the ledger keeps it only under the report\'s own key, destroyed with the content (decision 0045).',
  })
  contentSha256!: string | null;
  @ApiProperty({ description: 'The version of the layout the file is written under (decision 0033).' }) layoutVersion!: string;
  @ApiProperty({ description: 'The CMF institution code in its header.' }) institutionCode!: string;
  @ApiProperty({ type: 'integer' }) requestedAt!: number;
  @ApiProperty({ type: 'integer', nullable: true }) renderedAt!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'When the stored content was erased because it named a data subject erased after the retention floor (decision 0040); its download is then 410 `report_content_erased` and `contentSha256` null (decision 0045). Null otherwise.',
  })
  contentErasedAt!: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why a `failed` report could not be rendered (a field and the problem, never a value).' }) failureReason!: string | null;
}
