import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsOptional, IsUUID, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { DEADLINE_NOTICES, RECTIFIED_RECORD_KINDS, REDEC_DISPUTE_CLASSIFICATIONS, RIGHTS_REQUEST_KINDS, RIGHTS_REQUEST_OUTCOMES, RIGHTS_TRANSITIONS } from '@ledger/redec';
import type { RectifiedRecord, RedecDisputeClassification, RightsRequestKind, RightsRequestOutcome, RightsRequestStatus, RightsRequestStepName, RightsTransitionTarget } from '@ledger/redec';
import { CustomerReferenceDto } from '../redec/interactions/create/create-interaction.request.dto';
import { EpochMs, IDENTITY, IdentityText, QueryInteger, Sha256Hex, Text, UuidInLowerCase } from '../dto-fields';
import { PageQueryDto } from '../page-query.dto';

/** An opposition names the consents it concerns; a person has a handful, not thousands. */
const MAX_OPPOSED_CONSENTS = 100;

export class RedecDisputeDto {
  @ApiProperty({ enum: REDEC_DISPUTE_CLASSIFICATIONS, description: 'What the debtor asks of the registry data the bank reported.' })
  @IsIn(REDEC_DISPUTE_CLASSIFICATIONS)
  classification!: RedecDisputeClassification;

  @ApiProperty({ description: "The dispute's reason code, as the bank files it.", maxLength: 20 })
  @IdentityText(20)
  reasonCode!: string;

  @ApiProperty({ description: `The reported operation the dispute is about. ${IDENTITY}`, maxLength: 200 })
  @IdentityText(200)
  operationReference!: string;
}

/** docs/reference/rights-requests.md, "Receiving a request". */
export class ReceiveRightsRequestDto extends CustomerReferenceDto {
  @ApiProperty({ enum: RIGHTS_REQUEST_KINDS, description: 'The right exercised (Ley 21.719), or a REDEC dispute of the data the bank reported.' })
  @IsIn(RIGHTS_REQUEST_KINDS)
  kind!: RightsRequestKind;

  @ApiProperty({ type: 'integer', description: 'When the bank received the request (epoch ms): its legal term runs from the local day (America/Santiago) of this instant. Not later than the receipt by the service.' })
  @EpochMs()
  receivedAt!: number;

  @ApiProperty({ description: 'How the request came in (e.g. `branch`, `web`, `email`, `phone`).', maxLength: 50 })
  @IdentityText(50)
  channel!: string;

  @ApiProperty({ description: `The system of the request on the bank's platform. ${IDENTITY}`, maxLength: 100 })
  @IdentityText(100)
  sourceSystem!: string;

  @ApiProperty({ description: `The request's reference on the bank's platform. ${IDENTITY}`, maxLength: 200 })
  @IdentityText(200)
  sourceReference!: string;

  @ApiPropertyOptional({ description: "The request in the data subject's words. Kept under the customer's own key: erasing the customer's data erases it.", maxLength: 4000 })
  @IsOptional()
  @Text(4000)
  description?: string;

  @ApiPropertyOptional({ type: RedecDisputeDto, description: 'Only, and always, with kind `redec_dispute`.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RedecDisputeDto)
  redec?: RedecDisputeDto;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_OPPOSED_CONSENTS,
    description:
      'Only with kind `opposition`: the consents it concerns, each once, every one of them this customer\'s, who is then named by `customerId`. Recorded with the request; revoking a consent stays a request of its own (POST /v1/redec/consents/{redecConsentId}/revoke).',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_OPPOSED_CONSENTS)
  @UuidInLowerCase()
  @IsUUID(undefined, { each: true })
  redecConsentIds?: string[];
}

export class RightsResponseDto {
  @ApiProperty({ description: 'How the answer was sent (e.g. `email`, `letter`, `branch`).', maxLength: 50 })
  @IdentityText(50)
  channel!: string;

  @ApiProperty({ type: 'integer', description: 'When the answer was sent (epoch ms): not before the receipt; a refusal’s complaint window runs from its local day.' })
  @EpochMs()
  sentAt!: number;

  @ApiProperty({ description: 'SHA-256 (lower-case hex) of what was sent, which proves the answer later.', pattern: '^[0-9a-f]{64}$' })
  @Sha256Hex()
  contentSha256!: string;
}

/** docs/reference/rights-requests.md, "The life of a request". */
export class RightsTransitionDto {
  @ApiProperty({ enum: RIGHTS_TRANSITIONS })
  @IsIn(RIGHTS_TRANSITIONS)
  to!: RightsTransitionTarget;

  @ApiProperty({ type: 'integer', description: 'When it happened (epoch ms): not before the previous fact of the request, nor later than the receipt by the service (within the bank clock skew, 5 minutes).' })
  @EpochMs()
  occurredAt!: number;

  @ApiPropertyOptional({ description: 'Required to extend, and to resolve with an outcome other than `approved`: told to the data subject.', maxLength: 2000 })
  @IsOptional()
  @Text(2000)
  reason?: string;

  @ApiPropertyOptional({ enum: RIGHTS_REQUEST_OUTCOMES, description: 'Only, and required, with `to: resolved`.' })
  @IsOptional()
  @IsIn(RIGHTS_REQUEST_OUTCOMES)
  outcome?: RightsRequestOutcome;

  @ApiPropertyOptional({ type: RightsResponseDto, description: 'Only, and required, with `to: resolved`.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RightsResponseDto)
  response?: RightsResponseDto;

  @ApiPropertyOptional({
    type: 'integer',
    description:
      'Only to resolve an `access` or `portability` request `approved` or `partially_approved`: the `asOf` of the subject\'s report sent with the answer (GET …/subject-report). ' +
      'Default: `response.sentAt`, or now if later. Not later than now, nor before `receivedAt`. The answer records the SHA-256 of that report\'s JSON and PDF (`subjectReport`).',
  })
  @IsOptional()
  @EpochMs()
  subjectReportAsOf?: number;
}

export class RectifiedRecordDto {
  @ApiProperty({
    enum: RECTIFIED_RECORD_KINDS,
    description: '`redec_consent`: a REDEC consent of the data subject (`redecConsentId`); `customer`: the customer\'s record in the ledger; `bank_record`: a record in the bank\'s systems (`sourceSystem`, `sourceReference`).',
  })
  @IsIn(RECTIFIED_RECORD_KINDS)
  kind!: RectifiedRecord['kind'];

  @ApiPropertyOptional({ format: 'uuid', description: 'Only, and required, with kind `redec_consent`: a consent of the request\'s data subject.' })
  @ValidateIf((record: RectifiedRecordDto) => record.kind === 'redec_consent' || record.redecConsentId !== undefined)
  @UuidInLowerCase()
  @IsUUID()
  redecConsentId?: string;

  @ApiPropertyOptional({ description: `Only, and required, with kind \`bank_record\`: the system that holds the record. ${IDENTITY}`, maxLength: 100 })
  @ValidateIf((record: RectifiedRecordDto) => record.kind === 'bank_record' || record.sourceSystem !== undefined)
  @IdentityText(100)
  sourceSystem?: string;

  @ApiPropertyOptional({ description: `Only, and required, with kind \`bank_record\`: the record's reference in that system. ${IDENTITY}`, maxLength: 200 })
  @ValidateIf((record: RectifiedRecordDto) => record.kind === 'bank_record' || record.sourceReference !== undefined)
  @IdentityText(200)
  sourceReference?: string;
}

/** docs/reference/rights-requests.md, "Corrections". */
export class RectificationDto {
  @ApiProperty({ type: 'integer', description: 'When the correction was made (epoch ms): not before the request was received, nor later than the receipt by the service (within the bank clock skew, 5 minutes).' })
  @EpochMs()
  occurredAt!: number;

  @ApiProperty({ type: RectifiedRecordDto })
  @IsObject()
  @ValidateNested()
  @Type(() => RectifiedRecordDto)
  record!: RectifiedRecordDto;

  @ApiProperty({ description: "What was corrected, as the data subject is told. Kept under the customer's own key: erasing the customer's data erases it.", maxLength: 2000 })
  @Text(2000)
  description!: string;
}

export class SubjectReportDigestDto {
  @ApiProperty({ type: 'integer', description: 'The instant the report stands at: the facts recorded by then (epoch ms).' }) asOf!: number;
  @ApiProperty({ description: 'SHA-256 (hex) of the report as JSON, the body of GET …/subject-report?asOf=.' }) jsonSha256!: string;
  @ApiProperty({ description: 'SHA-256 (hex) of the report as PDF, the body of GET …/subject-report?format=pdf&asOf=.' }) pdfSha256!: string;
}

class SuppressedRecordRefDto {
  @ApiProperty({ enum: ['redec_consent', 'general_consent'] }) kind!: string;
  @ApiPropertyOptional({ format: 'uuid' }) redecConsentId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) consentId?: string;
}

class SuppressedRecordDto {
  @ApiProperty({ type: SuppressedRecordRefDto }) record!: SuppressedRecordRefDto;
  @ApiProperty({
    enum: ['past_floor', 'within_floor', 'in_force', 'no_floor'],
    description: '`past_floor`: erasable now; `within_floor`: erasable after `retentionUntil`; `in_force`: a consent that still enables access, whose floor has not started; `no_floor`: a general consent, erasable now.',
  })
  reason!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The end of the retention floor (epoch ms), as the regulatory representation states it.' }) retentionUntil!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'What the floor counts from (the representation\'s `retentionBasis`).' }) retentionBasis!: string | null;
}

export class SuppressionAssessmentDto {
  @ApiProperty({ type: 'integer', description: 'When the service assessed the records: the answer\'s recording.' }) assessedAt!: number;
  @ApiProperty({ type: [SuppressedRecordDto], description: "Each REDEC and general consent of the data subject." }) records!: SuppressedRecordDto[];
  @ApiProperty({ type: [String], description: 'The legal holds in force: erasure waits for their release.' }) legalHoldsInForce!: string[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'When every record may be erased (the instant after the latest floor, or `assessedAt`); null while a consent is in force.' }) erasableFrom!: number | null;
}

export const DEADLINE_NOTICE_STEPS = DEADLINE_NOTICES.map((notice) => `${notice}_noticed` as const);

export class RightsRequestHistoryItemDto {
  @ApiProperty({
    enum: ['received', ...RIGHTS_TRANSITIONS, 'rectified', ...DEADLINE_NOTICE_STEPS],
    description:
      'A step of the request\'s life, a correction made for it (`rectified`), or a notice the service gave by webhook when the open request came due soon or overdue (`due_soon_noticed`, `overdue_noticed`).',
  })
  step!: RightsRequestStepName;
  @ApiProperty({ type: 'integer', description: 'When it happened (epoch ms).' }) occurredAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service recorded it (epoch ms).' }) recordedAt!: number;
  @ApiPropertyOptional() reason?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'The deadline this step set (on receipt, and on an extension), or the one a notice announced.' }) dueAt?: number;
  @ApiPropertyOptional({ enum: RIGHTS_REQUEST_OUTCOMES }) outcome?: RightsRequestOutcome;
  @ApiPropertyOptional({ type: RightsResponseDto }) response?: RightsResponseDto;
  @ApiPropertyOptional({ type: SubjectReportDigestDto, description: "On the resolution of an access or portability request answered in all or part: the subject's report it gave." }) subjectReport?: SubjectReportDigestDto;
  @ApiPropertyOptional({ type: SuppressionAssessmentDto, description: 'On the resolution of a suppression answered in all or part: where each record stands for erasure (decision 0073).' }) suppression?: SuppressionAssessmentDto;
  @ApiPropertyOptional({ format: 'uuid', description: 'On a correction (`rectified`).' }) rectificationId?: string;
  @ApiPropertyOptional({ type: RectifiedRecordDto, description: 'On a correction: the record corrected.' }) record?: RectifiedRecordDto;
  @ApiPropertyOptional({ type: String, nullable: true, description: "On a correction: what was corrected; null once the customer's data was erased." }) description?: string | null;
}

export class RightsRequestDto {
  @ApiProperty({ format: 'uuid' }) rightsRequestId!: string;
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ enum: RIGHTS_REQUEST_KINDS }) kind!: RightsRequestKind;
  @ApiProperty({ enum: ['received', 'in_analysis', 'resolved', 'block_lifted'] }) status!: RightsRequestStatus;
  @ApiProperty({ type: 'integer' }) receivedAt!: number;
  @ApiProperty({ type: 'integer', description: 'The end (23:59:59.999, America/Santiago) of the term to answer: 30 calendar days after the day of receipt, 60 once extended; 2 banking days for `blocking`.' }) dueAt!: number;
  @ApiProperty() extended!: boolean;
  @ApiProperty({ enum: RIGHTS_REQUEST_OUTCOMES, nullable: true, type: String }) outcome!: RightsRequestOutcome | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'For an answer that refuses all or part: the end of the 30th business day after it was sent, the data subject’s window to complain to the Agency.' }) complaintDeadline!: number | null;
  @ApiProperty({ description: 'Still open after dueAt.' }) overdue!: boolean;
  @ApiProperty() channel!: string;
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
  @ApiProperty({ type: String, nullable: true, description: "null when none was sent, or once the customer's data was erased." }) description!: string | null;
  @ApiPropertyOptional({ type: RedecDisputeDto }) redec?: RedecDisputeDto;
  @ApiPropertyOptional({ type: [String], description: 'For an opposition, the consents it concerns.' }) redecConsentIds?: string[];
  @ApiProperty({ type: [RightsRequestHistoryItemDto], description: 'Every fact of the request, in order.' }) history!: RightsRequestHistoryItemDto[];
}

const STATUSES = ['received', 'in_analysis', 'resolved', 'block_lifted'] as const;

export class RightsRequestListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: RightsRequestStatus;

  @ApiPropertyOptional({ enum: RIGHTS_REQUEST_KINDS })
  @IsOptional()
  @IsIn(RIGHTS_REQUEST_KINDS)
  kind?: RightsRequestKind;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 366, description: 'Only open requests due by now plus this many days, the overdue ones among them, by deadline.' })
  @IsOptional()
  @QueryInteger()
  @IsInt()
  @Min(0)
  @Max(366)
  dueWithinDays?: number;

  @ApiPropertyOptional({ enum: ['true'], description: 'Only open requests past their deadline, by deadline.' })
  @IsOptional()
  @IsIn(['true'])
  overdue?: 'true';
}

/** A request as the list shows it: no history, no description. */
export class RightsRequestSummaryDto extends OmitType(RightsRequestDto, ['history', 'description', 'redec'] as const) {}

export class RightsRequestPageDto {
  @ApiProperty({ type: [RightsRequestSummaryDto] }) items!: RightsRequestSummaryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null after the last.' }) nextCursor!: string | null;
}
