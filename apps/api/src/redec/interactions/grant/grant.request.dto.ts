import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsDefined, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Min, ValidateIf, ValidateNested } from 'class-validator';
import { DecodedBase64, MustNotBeSent } from '@ledger/http';
import { Base64Bytes } from '@ledger/platform';
import { EVIDENCE_MEDIA_TYPES } from '@ledger/redec';
import { IDENTITY, LOCATION, LocationText, PRESENTED, PresentedText, SHA256_HEX, Text } from '../../../dto-fields';


/** docs/reference/grants.md, "Representation": closed; the service keeps the bank's assertion and never calls it verified. */
export class RepresentationDto {
  @ApiProperty({ enum: ['representative'] })
  @IsIn(['representative'])
  type!: 'representative';

  @ApiProperty({ description: "The representative's RUT as typed; normalized, check-digit validated and kept only protected.", maxLength: 20 })
  @Text(20)
  identifierRutInput!: string;

  @ApiProperty({ enum: ['reporter_asserted_representation'], description: 'The bank asserts the representation; the service does not verify legal powers.' })
  @IsIn(['reporter_asserted_representation'])
  authorityBasis!: 'reporter_asserted_representation';

  @ApiProperty({ description: `Reference to the authority document; printed on the certificate. ${PRESENTED}`, maxLength: 200 })
  @PresentedText()
  authorityReference!: string;

  @ApiProperty({ type: 'integer', description: 'When the authority was asserted (epoch ms).' })
  @IsInt()
  @Min(0)
  assertedAt!: number;
}

/** A RUT as typed, e.g. `12.345.678-5`: normalized, check-digit validated and kept only protected (hash and ciphertext). */
export class IdentifierRutDto {
  @ApiProperty({ description: 'The RUT as typed; normalized, check-digit validated (400 `invalid_rut`) and kept only protected.', maxLength: 20 })
  @Text(20)
  identifierRutInput!: string;
}

export class AuthenticationDto {
  @ApiProperty({ description: `How the data subject authenticated, e.g. \`clave_unica\`; printed on the certificate. ${PRESENTED}`, maxLength: 100 })
  @PresentedText(100)
  method!: string;

  @ApiProperty({ description: `Reference of that authentication on the integrator's platform; printed on the certificate. ${PRESENTED}`, maxLength: 200 })
  @PresentedText()
  reference!: string;
}

/** docs/reference/grants.md, "Evidence": the fields of each `kind`; fields of another kind are refused by the handler. */
export class EvidenceDto {
  @ApiProperty({ enum: ['electronic', 'audio_recording', 'physical_document'], description: 'The medium is derived from it; no medium code is sent.' })
  @IsIn(['electronic', 'audio_recording', 'physical_document'])
  kind!: 'electronic' | 'audio_recording' | 'physical_document';

  @ApiPropertyOptional({ type: AuthenticationDto, description: '`electronic`: required. The service renders the PDF consent certificate.' })
  @ValidateIf((e: EvidenceDto) => e.kind === 'electronic' || e.authentication !== undefined)
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticationDto)
  authentication?: AuthenticationDto;

  @ApiPropertyOptional({ type: 'integer', description: "`audio_recording`: required; the call's instant (epoch ms), compared with occurredAt under the profile's recording tolerance." })
  @ValidateIf((e: EvidenceDto) => e.kind === 'audio_recording' || e.recordedAt !== undefined)
  @IsInt()
  @Min(0)
  recordedAt?: number;

  @ApiPropertyOptional({ type: 'integer', description: '`physical_document`: required; when the paper original was digitized (epoch ms). Never compared with occurredAt.' })
  @ValidateIf((e: EvidenceDto) => e.kind === 'physical_document' || e.digitizedAt !== undefined)
  @IsInt()
  @Min(0)
  digitizedAt?: number;

  @ApiPropertyOptional({
    description:
      '`audio_recording` and `physical_document`: required, one of the kind\'s media types (lower case, as listed), else 400 `media_type_not_accepted` on `evidence.mediaType`. ' +
      `audio_recording: ${Object.keys(EVIDENCE_MEDIA_TYPES.audio_recording).join(', ')}. physical_document: ${Object.keys(EVIDENCE_MEDIA_TYPES.physical_document).join(', ')}. ` +
      'The download of held bytes is served with it, as an attachment.',
    maxLength: 100,
  })
  @ValidateIf((e: EvidenceDto) => e.kind !== 'electronic' || e.mediaType !== undefined)
  @Text(100)
  @Matches(/^[a-z]+\/[A-Za-z0-9.+-]+$/)
  mediaType?: string;

  @ApiPropertyOptional({
    type: 'string',
    description: 'The bytes (standard base64; padding optional), held by the service; else 400 `invalid_base64`. Or send `externalReference` with `contentSha256`.',
  })
  @IsOptional()
  @DecodedBase64()
  contentBase64?: Base64Bytes;

  @ApiPropertyOptional({ description: `Where the bytes are held outside the service; recorded with their hash, never proxied. ${LOCATION}`, maxLength: 500 })
  @IsOptional()
  @LocationText(500)
  externalReference?: string;

  @ApiPropertyOptional({ description: 'SHA-256 (hex) of the bytes: required with `externalReference`, checked when sent with `contentBase64`.', pattern: '^[0-9a-f]{64}$' })
  @IsOptional()
  @Matches(SHA256_HEX)
  contentSha256?: string;
}

/** Printed on the certificate. */
export class ReportableObligationDto {
  @ApiProperty({ description: `e.g. \`none\`, \`pending\`, \`granted\`. ${PRESENTED}`, maxLength: 50 }) @PresentedText(50) status!: string;
  @ApiProperty({ description: `${PRESENTED} ${IDENTITY}`, maxLength: 100 }) @PresentedText(100, { identity: true }) sourceSystem!: string;
  @ApiProperty({ description: `${PRESENTED} ${IDENTITY}`, maxLength: 200 }) @PresentedText(200, { identity: true }) sourceReference!: string;
}

/** docs/reference/grants.md, "The grant request". */
export class GrantRequestDto {
  @ApiProperty({ type: 'integer', description: 'When the data subject consented (epoch ms): the regulatory `grantedAt`. Not after receipt, nor further back than the profile allows (baseline 7 days).' })
  @IsDefined()
  @IsInt()
  @Min(0)
  occurredAt!: number;

  @ApiProperty({ description: `The system of the capture on the caller's platform; printed on the certificate. ${PRESENTED} ${IDENTITY}`, maxLength: 100 })
  @PresentedText(100, { identity: true })
  sourceSystem!: string;

  @ApiProperty({ description: `The reference of the capture on the caller's platform; printed on the certificate. ${PRESENTED} ${IDENTITY}`, maxLength: 200 })
  @PresentedText(200, { identity: true })
  sourceReference!: string;

  @ApiPropertyOptional({ type: RepresentationDto, description: 'When omitted, the data subject acted personally (`self`).' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RepresentationDto)
  representation?: RepresentationDto;

  @ApiPropertyOptional({
    type: IdentifierRutDto,
    description:
      "The bank's executive who captured the consent in person or by phone, reported in RDC30 (docs/regulatory-reports.md). Refused on a `digital` configuration (400 `executive_not_for_digital_channel`). Never shown back.",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => IdentifierRutDto)
  executive?: IdentifierRutDto;

  @ApiPropertyOptional({ type: [String], description: "A non-empty subset of the configuration's scopes; default all." })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsString({ each: true })
  scopeIds?: string[];

  @ApiPropertyOptional({ type: [String], description: "A non-empty subset of the configuration's objective codes; default all." })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsString({ each: true })
  objectiveCodes?: string[];

  @ApiPropertyOptional({ type: ReportableObligationDto, description: 'Snapshot of the reportable obligation.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReportableObligationDto)
  reportableObligation?: ReportableObligationDto;

  @ApiProperty({ type: EvidenceDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => EvidenceDto)
  evidence!: EvidenceDto;

  @ApiPropertyOptional({ type: String, description: 'Must not be sent: the service generates it (400, reason `internal_consent_code_is_server_generated`).', deprecated: true })
  @MustNotBeSent('internal_consent_code_is_server_generated')
  internalConsentCode?: never;
}

export class GrantResponseDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ description: '20 characters of 0-9A-Z, unique in the tenant, never changing.' }) internalConsentCode!: string;
  @ApiProperty({ enum: ['pending', 'ready'], description: 'Poll the consent with bounded backoff until `ready`; it is not an authorization.' }) artifactStatus!: string;
  @ApiProperty({ format: 'uuid', description: 'The grant action, which notification evidence refers to.' }) consentActionId!: string;
  @ApiProperty({ type: 'integer' }) grantedAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service received the grant.' }) recordedAt!: number;
  @ApiProperty({ type: 'integer', description: 'End of the initial window: 15 banking business days.' }) initialAccessValidUntil!: number;
}
