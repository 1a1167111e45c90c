import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { RIGHTS_REQUEST_KINDS, RIGHTS_REQUEST_OUTCOMES, SUBJECT_REPORT_SCHEMA } from '@ledger/redec';
import { ConsentRepresentationDto } from '../redec/consents/consent-representation.dto';
import { RectifiedRecordDto } from './rights-request.dto';

/** docs/reference/rights-requests.md, "The subject's report". */
export class SubjectReportQueryDto {
  @ApiPropertyOptional({ enum: ['json', 'pdf'], description: '`pdf`: the report in Spanish for the data subject to read. Default `json`.' })
  @IsOptional()
  @IsIn(['json', 'pdf'])
  format?: 'json' | 'pdf';

  @ApiPropertyOptional({
    description: 'The instant the report stands at (epoch ms): the facts recorded by then. Default now; not later than now (400 `in_the_future`), nor before the request was received (400 `before_receipt`).',
    pattern: '^\\d{1,15}$',
  })
  @IsOptional()
  @Matches(/^\d{1,15}$/)
  asOf?: string;
}

class VerificationDto {
  @ApiProperty() method!: string;
  @ApiProperty() sourceReference!: string;
  @ApiProperty({ type: 'integer' }) verifiedAt!: number;
}

class ReportedIdentifierDto {
  @ApiProperty({ example: 'cl-sii' }) system!: string;
  @ApiProperty({ example: 'rut' }) type!: string;
  @ApiProperty({ type: String, nullable: true, description: "In clear: the data subject's own. Null once erased." }) value!: string | null;
  @ApiProperty({ type: VerificationDto, nullable: true }) verification!: VerificationDto | null;
}

class ReportedDataSubjectDto {
  @ApiProperty({ format: 'uuid' }) customerId!: string;
  @ApiProperty({ type: String, nullable: true, description: "The bank's reference for the customer; null once erased." }) userReference!: string | null;
  @ApiProperty({ type: [ReportedIdentifierDto] }) identifiers!: ReportedIdentifierDto[];
  @ApiProperty({ type: 'integer' }) registeredAt!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When its personal data was erased after the retention floor; null while it exists.' }) erasedAt!: number | null;
}

class AccessOutcomeDto {
  @ApiProperty({ enum: ['accessed', 'failed', 'cancelled'] }) kind!: string;
  @ApiPropertyOptional({ type: 'integer', description: 'With `accessed`: when the bank queried the registry.' }) accessedAt?: number;
}

class AccessConfirmationDto {
  @ApiProperty({ type: AccessOutcomeDto }) outcome!: AccessOutcomeDto;
  @ApiProperty({ type: 'integer' }) confirmedAt!: number;
}

class ReportedAccessDto {
  @ApiProperty({ format: 'uuid' }) redecAccessId!: string;
  @ApiProperty({ type: 'integer' }) decidedAt!: number;
  @ApiProperty({ enum: ['authorized', 'denied'] }) status!: string;
  @ApiProperty({ type: String, nullable: true }) denyReasonCode!: string | null;
  @ApiProperty() dataCategoryCode!: string;
  @ApiProperty() objectiveCode!: string;
  @ApiProperty({ type: String, nullable: true, enum: ['manage_existing_obligation', 'evaluate_new_credit'] }) accessPurpose!: string | null;
  @ApiProperty({ description: "Whether a third party queried the registry on the bank's behalf (its RUT is not shown)." }) throughMandatary!: boolean;
  @ApiProperty({ type: AccessConfirmationDto, nullable: true, description: "The bank's report of the registry query; null while none was given." }) confirmation!: AccessConfirmationDto | null;
}

class ReportedNoticeDto {
  @ApiProperty({ format: 'uuid' }) notificationEvidenceId!: string;
  @ApiProperty({ format: 'uuid' }) consentActionId!: string;
  @ApiProperty({ enum: ['grant', 'revoke'] }) notificationReason!: string;
  @ApiProperty() notificationChannel!: string;
  @ApiProperty({ enum: ['sent', 'delivered', 'bounced'] }) status!: string;
  @ApiProperty({ type: 'integer' }) sentAt!: number;
  @ApiProperty({ type: 'integer' }) recordedAt!: number;
}

class ReportedRedecConsentDto {
  @ApiProperty() templateKey!: string;
  @ApiProperty({ type: 'integer' }) configurationVersion!: number;
  @ApiProperty() consentTitle!: string;
  @ApiProperty({ type: ConsentRepresentationDto, description: 'The regulatory representation as of `asOf`.' }) representation!: ConsentRepresentationDto;
  @ApiProperty({ type: [ReportedAccessDto], description: 'Every access decision taken under the consent, in the order recorded.' }) accesses!: ReportedAccessDto[];
  @ApiProperty({ type: [ReportedNoticeDto], description: 'The notices of the grant and revocation, each delivery state as recorded.' }) notices!: ReportedNoticeDto[];
}

class ReportedGeneralConsentDto {
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty() templateKey!: string;
  @ApiProperty({ type: 'integer' }) configurationVersion!: number;
  @ApiProperty() consentTitle!: string;
  @ApiProperty() channel!: string;
  @ApiProperty({ type: 'integer' }) grantedAt!: number;
  @ApiProperty({ type: 'integer', nullable: true }) revokedAt!: number | null;
}

class ReportedLegalHoldDto {
  @ApiProperty({ format: 'uuid' }) legalHoldId!: string;
  @ApiProperty() reason!: string;
  @ApiProperty() reference!: string;
  @ApiProperty({ type: 'integer' }) placedAt!: number;
  @ApiProperty({ type: 'integer', nullable: true }) releasedAt!: number | null;
}

class ReportedStepDto {
  @ApiProperty({ enum: ['received', 'in_analysis', 'extended', 'resolved', 'block_lifted', 'rectified'] }) step!: string;
  @ApiProperty({ type: 'integer' }) occurredAt!: number;
}

class ReportedRectificationDto {
  @ApiProperty({ format: 'uuid' }) rectificationId!: string;
  @ApiProperty({ type: 'integer' }) rectifiedAt!: number;
  @ApiProperty({ type: RectifiedRecordDto }) record!: RectifiedRecordDto;
  @ApiProperty({ type: String, nullable: true, description: 'What was corrected; null once erased.' }) description!: string | null;
}

class ReportedRightsRequestDto {
  @ApiProperty({ format: 'uuid' }) rightsRequestId!: string;
  @ApiProperty({ enum: RIGHTS_REQUEST_KINDS }) kind!: string;
  @ApiProperty({ enum: ['received', 'in_analysis', 'resolved', 'block_lifted'] }) status!: string;
  @ApiProperty({ type: 'integer' }) receivedAt!: number;
  @ApiProperty({ type: 'integer' }) dueAt!: number;
  @ApiProperty() extended!: boolean;
  @ApiProperty({ type: String, nullable: true, enum: RIGHTS_REQUEST_OUTCOMES }) outcome!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) resolvedAt!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) complaintDeadline!: number | null;
  @ApiProperty({ type: String, nullable: true, description: "The request in the data subject's words; null when none was recorded, or once erased." }) description!: string | null;
  @ApiProperty({ type: [ReportedRectificationDto], description: 'The corrections made for it.' }) rectifications!: ReportedRectificationDto[];
  @ApiProperty({ type: [ReportedStepDto] }) history!: ReportedStepDto[];
}

/** The portable form of the subject's report: canonical JSON (keys sorted, no whitespace), so the same `asOf` gives the same bytes. */
export class SubjectReportDto {
  @ApiProperty({ enum: [SUBJECT_REPORT_SCHEMA], description: 'The layout of this document; a change that removes or renames a member gets a new one.' }) schema!: string;
  @ApiProperty({ format: 'uuid' }) rightsRequestId!: string;
  @ApiProperty({ enum: ['access', 'portability'] }) kind!: string;
  @ApiProperty({ type: 'integer', description: 'The instant the report stands at: the facts recorded by then.' }) asOf!: number;
  @ApiProperty({ type: ReportedDataSubjectDto }) dataSubject!: ReportedDataSubjectDto;
  @ApiProperty({ type: [ReportedRedecConsentDto], description: 'Every REDEC consent of the subject granted by `asOf`, the earliest first.' }) redecConsents!: ReportedRedecConsentDto[];
  @ApiProperty({ type: [ReportedGeneralConsentDto], description: 'Every other consent of the subject granted by `asOf`.' }) generalConsents!: ReportedGeneralConsentDto[];
  @ApiProperty({ type: [ReportedLegalHoldDto], description: "Every legal hold placed on the subject's data." }) legalHolds!: ReportedLegalHoldDto[];
  @ApiProperty({ type: [ReportedRightsRequestDto], description: "Every request of the subject received by `asOf`, this one included, without the service's reminders to the bank." }) rightsRequests!: ReportedRightsRequestDto[];
}
