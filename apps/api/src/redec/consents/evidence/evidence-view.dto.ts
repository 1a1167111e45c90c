import { ApiProperty } from '@nestjs/swagger';

class EvidenceTimestampsDto {
  @ApiProperty({ type: 'integer', description: 'Regulatory grant instant (epoch ms).' }) grantedAt!: number;
  @ApiProperty({ type: 'integer', description: 'When the service received the grant.' }) recordedAt!: number;
  @ApiProperty({ type: 'integer', description: 'End of the initial window.' }) initialAccessValidUntil!: number;
}

class CanonicalTimingDto {
  @ApiProperty({ enum: ['occurred_at', 'recorded_at'], description: "Which instant is the regulatory clock: the data subject's occurredAt (deferred capture) or the service's receipt (embedded)." })
  clock!: string;
  @ApiProperty({ type: 'integer' }) grantedAt!: number;
}

class EvidenceTemplateDto {
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty() templateKey!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ description: 'The title presented to the data subject.' }) title!: string;
}

class EvidenceScopeDto {
  @ApiProperty() scopeId!: string;
  @ApiProperty() dataCategoryCode!: string;
}

class EvidenceProvenanceDto {
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
}

class EvidenceAuthenticationDto {
  @ApiProperty() method!: string;
  @ApiProperty() reference!: string;
}

class EvidenceDetailDto {
  @ApiProperty({ enum: ['electronic', 'audio_recording', 'physical_document'] }) kind!: string;
  @ApiProperty({ type: EvidenceAuthenticationDto, nullable: true, description: 'Electronic evidence only.' }) authentication!: EvidenceAuthenticationDto | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "A call recording's instant." }) recordedAt!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: "A paper original's digitization date." }) digitizedAt!: number | null;
  @ApiProperty({ enum: ['generated_pdf', 'supplied', 'external_reference'] }) artifactOrigin!: string;
  @ApiProperty({ type: 'string', nullable: true, description: "The artifact's SHA-256 (hex); null while a certificate is pending." }) contentSha256!: string | null;
}

class EvidenceRepresentationDto {
  @ApiProperty({ enum: ['representative'] }) type!: string;
  @ApiProperty({ description: "The representative's RUT, masked." }) identifier!: string;
  @ApiProperty({ enum: ['reporter_asserted_representation'], description: 'Asserted by the bank; the service does not verify legal powers.' }) authorityBasis!: string;
  @ApiProperty() authorityReference!: string;
  @ApiProperty({ type: 'integer' }) assertedAt!: number;
}

class EvidenceObligationDto {
  @ApiProperty() status!: string;
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
}

/** docs/reference/notification-evidence.md: evidence the bank recorded of a notice it sent; the message and the address stay with the bank. */
class EvidenceNotificationDto {
  @ApiProperty({ format: 'uuid' }) notificationEvidenceId!: string;
  @ApiProperty({ format: 'uuid', description: 'The grant or revocation action notified.' }) consentActionId!: string;
  @ApiProperty({ enum: ['grant', 'revoke'] }) notificationReason!: string;
  @ApiProperty({ description: 'e.g. `email`, `sms`.' }) notificationChannel!: string;
  @ApiProperty({ description: 'Hash of the normalized recipient address.' }) recipientHash!: string;
  @ApiProperty({ enum: ['sent', 'delivered', 'bounced'] }) status!: string;
  @ApiProperty({ type: 'integer' }) sentAt!: number;
  @ApiProperty() sourceSystem!: string;
  @ApiProperty() sourceReference!: string;
  @ApiProperty({ description: 'SHA-256 (hex) of the exact message sent.' }) contentSha256!: string;
  @ApiProperty({ type: 'string', nullable: true }) contentReference!: string | null;
  @ApiProperty({ type: 'integer', description: 'When the service received the evidence.' }) recordedAt!: number;
}

/** docs/reference/evidence-and-artifacts.md, "The evidence view": no debt data, no bytes. */
export class EvidenceViewDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty() internalConsentCode!: string;
  @ApiProperty({ enum: ['granted'], description: 'The decision the fact records.' }) decision!: string;
  @ApiProperty({ format: 'uuid', description: 'The grant action.' }) consentActionId!: string;
  @ApiProperty({ type: EvidenceTimestampsDto }) timestamps!: EvidenceTimestampsDto;
  @ApiProperty({ type: CanonicalTimingDto }) canonicalTiming!: CanonicalTimingDto;
  @ApiProperty({ type: EvidenceTemplateDto }) template!: EvidenceTemplateDto;
  @ApiProperty() regulatoryProfile!: string;
  @ApiProperty() channel!: string;
  @ApiProperty() captureTiming!: string;
  @ApiProperty({ description: 'Purpose code.' }) finalityCode!: string;
  @ApiProperty({ description: 'Medium code, derived from the evidence.' }) mediumCode!: string;
  @ApiProperty({ type: [String] }) objectiveCodes!: string[];
  @ApiProperty({ type: [EvidenceScopeDto] }) scopes!: EvidenceScopeDto[];
  @ApiProperty({ type: [String] }) targets!: string[];
  @ApiProperty({ type: EvidenceProvenanceDto }) provenance!: EvidenceProvenanceDto;
  @ApiProperty({ type: EvidenceDetailDto }) evidence!: EvidenceDetailDto;
  @ApiProperty({ type: EvidenceRepresentationDto, nullable: true, description: 'Null when the data subject acted personally.' }) representation!: EvidenceRepresentationDto | null;
  @ApiProperty({ type: EvidenceObligationDto, nullable: true }) reportableObligation!: EvidenceObligationDto | null;
  @ApiProperty({ type: [EvidenceNotificationDto], description: 'Notification evidence, append-only, in the order recorded: each delivery state is its own record.' })
  notifications!: EvidenceNotificationDto[];
}
