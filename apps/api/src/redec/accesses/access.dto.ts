import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsOptional, Matches, ValidateNested } from 'class-validator';
import { ACCESS_OUTCOME_KINDS, DENY_REASON_CODES } from '@ledger/redec';
import { EpochMs, IDENTITY, IdentityText, Text, UuidInLowerCase } from '../../dto-fields';
import { IdentifierRutDto } from '../interactions/grant/grant.request.dto';

const MODES = ['initial_window', 'credit_lifecycle_extension'] as const;
const PURPOSES = ['manage_existing_obligation', 'evaluate_new_credit'] as const;

export class ReportingObligationDto {
  @ApiProperty({ example: 'none', description: 'The state of the reportable obligation as the bank asserts it, e.g. `none` before any credit.', maxLength: 64 })
  @Text(64)
  status!: string;

  @ApiProperty({ description: `The obligation's source system; in mode credit_lifecycle_extension, the consent's obligation source system. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceSystem!: string;

  @ApiProperty({ description: `The obligation reference; in mode credit_lifecycle_extension, the creditOperationReference of an active extension. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;

  @ApiProperty({ type: 'integer', description: 'When the bank asserted it (epoch ms); not after the receipt, beyond 5 minutes of clock tolerance.' })
  @EpochMs()
  assertedAt!: number;
}

/** docs/reference/accesses.md, "Authorizing an access". */
export class AuthorizeAccessRequestDto {
  @ApiProperty({ enum: ['consent'] })
  @IsIn(['consent'])
  authorizationBasis!: 'consent';

  @ApiProperty({ enum: MODES })
  @IsIn(MODES)
  consentAuthorizationMode!: (typeof MODES)[number];

  @ApiProperty({ format: 'uuid', description: 'The consent being used. An unknown one, or one of another tenant, is `denied` with `redec_consent_not_found`.' })
  @UuidInLowerCase()
  @Text(64)
  redecConsentId!: string;

  @ApiProperty({ example: 'redec.consolidated_debt_record', maxLength: 100 })
  @Text(100)
  dataCategoryCode!: string;

  @ApiProperty({ example: 'redec-debt', maxLength: 100 })
  @Text(100)
  scopeId!: string;

  @ApiProperty({ example: '02', description: 'Two-digit objective code.' })
  @Matches(/^[0-9]{2}$/)
  objectiveCode!: string;

  @ApiProperty({ type: ReportingObligationDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ReportingObligationDto)
  reportingObligation!: ReportingObligationDto;

  @ApiProperty({ description: `The requesting system; with sourceReference it identifies the access request. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceSystem!: string;

  @ApiProperty({ description: `The access request reference: the same pair again answers the recorded decision with \`replayed: true\`. ${IDENTITY}`, maxLength: 200 })
  @IdentityText()
  sourceReference!: string;

  @ApiPropertyOptional({
    enum: PURPOSES,
    description:
      'Required with credit_lifecycle_extension and refused with initial_window (400). `evaluate_new_credit` is an auditable `denied` with ' +
      '`redec_credit_extension_purpose_not_obligation_management`, never an error; only `manage_existing_obligation` can be authorized.',
  })
  @IsOptional()
  @IsIn(PURPOSES)
  accessPurpose?: (typeof PURPOSES)[number];

  @ApiPropertyOptional({
    type: IdentifierRutDto,
    description: "A third party (mandatario) that queries the registry on the bank's behalf, reported in RDC31 (docs/regulatory-reports.md). Kept only protected, never shown back.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IdentifierRutDto)
  mandatary?: IdentifierRutDto;
}

export class AccessDecisionDto {
  @ApiProperty({ format: 'uuid', description: 'The access id: the path of POST /v1/redec/accesses/{redecAccessId}/confirm.' }) redecAccessId!: string;
  @ApiProperty({ enum: ['authorized', 'denied'], description: 'Only `authorized` lets the reporter query the registry; `denied` is a business decision, never an error.' }) status!: string;
  @ApiPropertyOptional({
    enum: DENY_REASON_CODES,
    description:
      'Present when denied. `redec_consent_not_found`: no such consent in the tenant. `redec_consent_revoked`: in `initial_window`, any revocation recorded before now (effective or kept without effect); ' +
      'in `credit_lifecycle_extension`, an effective revocation. ' +
      '`redec_initial_window_expired`: initial_window after initialAccessValidUntil. `redec_credit_extension_purpose_not_obligation_management`: accessPurpose evaluate_new_credit. ' +
      '`redec_no_active_extension_for_obligation`: no active extension for exactly this obligation. `redec_scope_not_granted`, `redec_data_category_not_granted`, ' +
      '`redec_objective_not_granted`: not what the consent (or the extension) grants. ' +
      '`data_subject_processing_blocked`: the data subject has a block in force (an approved `blocking` rights request not lifted), whatever the consent allows.',
  })
  denyReasonCode?: string;
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ type: 'integer', description: 'When the service decided (epoch ms).' }) decidedAt!: number;
  @ApiPropertyOptional({
    type: 'integer',
    description: "Present when authorized: until when the authorization may be used (epoch ms), decidedAt plus the Regulatory Profile's authorizationTtlMs. An `accessed` confirmation after it is 409 `redec_authorization_expired`.",
  })
  expiresAt?: number;
  @ApiProperty({ enum: MODES }) consentAuthorizationMode!: string;
  @ApiPropertyOptional({ enum: PURPOSES }) accessPurpose?: string;
  @ApiProperty() scopeId!: string;
  @ApiProperty() dataCategoryCode!: string;
  @ApiProperty() objectiveCode!: string;
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
}

export class AuthorizeAccessResponseDto {
  @ApiProperty({ type: AccessDecisionDto }) decision!: AccessDecisionDto;
  @ApiProperty({ description: 'True when this answers an earlier identical request (same sourceSystem + sourceReference and body).' }) replayed!: boolean;
}

export class AccessOutcomeDto {
  @ApiProperty({ enum: ACCESS_OUTCOME_KINDS, description: 'Exactly one kind.' })
  @IsIn(ACCESS_OUTCOME_KINDS)
  kind!: (typeof ACCESS_OUTCOME_KINDS)[number];

  @ApiPropertyOptional({ type: 'integer', description: 'Required with `accessed`, refused otherwise: when the bank queried the registry (epoch ms).' })
  @IsOptional()
  @EpochMs()
  accessedAt?: number;
}

/** docs/reference/accesses.md, "Confirming the outcome". */
export class ConfirmAccessRequestDto {
  @ApiProperty({ type: AccessOutcomeDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AccessOutcomeDto)
  outcome!: AccessOutcomeDto;
}

export class ConfirmAccessResponseDto {
  @ApiProperty({ format: 'uuid' }) redecAccessId!: string;
  @ApiProperty({ enum: ACCESS_OUTCOME_KINDS, description: 'The access status: its confirmed outcome.' }) status!: string;
  @ApiProperty({ type: AccessOutcomeDto }) outcome!: AccessOutcomeDto;
  @ApiProperty({ type: 'integer', description: 'When the service recorded the outcome (epoch ms).' }) confirmedAt!: number;
  @ApiProperty({ type: AccessDecisionDto, description: 'The authorization confirmed.' }) decision!: AccessDecisionDto;
}
