import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { canonicalJsonSha256 } from '@ledger/event-store';
import { EvidenceBytes, Idempotent, RequireScopes } from '@ledger/http';
import { Base64Bytes, FieldError, Scopes, validationError } from '@ledger/platform';
import { EvidenceInput, GrantConsentRequest, GrantConsentResult } from '@ledger/redec';
import { GrantConsentCommand } from './grant.command';
import { EvidenceDto, GrantRequestDto, GrantResponseDto } from './grant.request.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consent-interactions')
export class GrantHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post(':interactionId/grant')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @EvidenceBytes()
  @ApiOperation({
    operationId: 'grantRedecConsent',
    summary: 'Record the grant of consent captured outside the service',
    description:
      'Requires occurredAt, sourceSystem, sourceReference and the evidence. occurredAt is the regulatory grantedAt and may be neither later than the receipt nor further back than the Regulatory Profile allows (baseline 7 days); ' +
      "a call recording's instant must match occurredAt within the profile tolerance (baseline 5 minutes); a paper original's digitization date is never compared. " +
      'internalConsentCode must not be sent (400, reason internal_consent_code_is_server_generated). The medium is derived from the evidence. ' +
      'An identical retry answers the first grant; a different second grant is 409 redec_interaction_already_granted. ' +
      'artifactStatus may be `pending`: read the consent with bounded polling and backoff until `ready`; the grant is valid either way. ' +
      'Evidence bytes travel base64 in `contentBase64`: the body may be up to 16 MiB here (64 KiB elsewhere); a larger one is 413 `PAYLOAD_TOO_LARGE`. While the service holds as many bodies as its memory budget allows, or your tenant its share, 503 `SERVICE_BUSY` with `Retry-After` before the body is read: send the same request again after it (send `Expect: 100-continue` to be refused before the body is sent).',
  })
  @ApiCreatedResponse({ type: GrantResponseDto })
  @ProblemResponses({
    409: [
      'redec_interaction_already_granted',
      'redec_capture_is_embedded',
      'redec_configuration_required',
      'internal_consent_code_unavailable',
      'regulatory_profile_unavailable',
      'customer_data_erased',
      'concurrent_change',
    ],
    503: ['banking_calendar_out_of_range', 'SERVICE_BUSY'],
  })
  async grant(@Param('interactionId', new ResourceIdPipe('consent interaction')) interactionId: string, @Body() body: GrantRequestDto): Promise<GrantResponseDto> {
    const requestSha256 = await canonicalJsonSha256(body);
    const command = new GrantConsentCommand(interactionId, toGrantRequest(body), requestSha256);
    const { grant } = await this.commandBus.execute<GrantConsentCommand, GrantConsentResult>(command);
    return {
      redecConsentId: grant.redecConsentId,
      internalConsentCode: grant.internalConsentCode,
      artifactStatus: grant.artifact.status,
      consentActionId: grant.consentActionId,
      grantedAt: grant.grantedAt,
      recordedAt: grant.recordedAt,
      initialAccessValidUntil: grant.initialAccessValidUntil,
    };
  }
}

function toGrantRequest(body: GrantRequestDto): GrantConsentRequest {
  const { occurredAt, sourceSystem, sourceReference } = body;
  return { occurredAt, sourceSystem, sourceReference, ...toGrantTerms(body) };
}

/** What a grant says beside when and where it was captured; also an item's `redec` in a Multi-Consent decision. */
export function toGrantTerms(body: Omit<GrantRequestDto, 'occurredAt' | 'sourceSystem' | 'sourceReference'>): Omit<GrantConsentRequest, 'occurredAt' | 'sourceSystem' | 'sourceReference'> {
  const { representation, executive, scopeIds, objectiveCodes, reportableObligation } = body;
  return {
    representation: representation && { ...representation },
    ...(executive ? { executive: { identifierRutInput: executive.identifierRutInput } } : {}),
    scopeIds,
    objectiveCodes,
    reportableObligation: reportableObligation && { ...reportableObligation },
    evidence: toEvidence(body.evidence),
  };
}

/** The fields each evidence kind takes (docs/reference/grants.md, "Evidence"); a field of another kind is refused, so nothing unasked is recorded. */
const EVIDENCE_FIELDS: Record<EvidenceDto['kind'], Array<keyof EvidenceDto>> = {
  electronic: ['kind', 'authentication'],
  audio_recording: ['kind', 'recordedAt', 'mediaType', 'contentBase64', 'externalReference', 'contentSha256'],
  physical_document: ['kind', 'digitizedAt', 'mediaType', 'contentBase64', 'externalReference', 'contentSha256'],
};

export function toEvidence(evidence: EvidenceDto): EvidenceInput {
  const allowed = EVIDENCE_FIELDS[evidence.kind];
  const foreign: FieldError[] = (Object.keys(evidence) as Array<keyof EvidenceDto>)
    .filter((field) => evidence[field] !== undefined && !allowed.includes(field))
    .map((field) => ({ field: `evidence.${field}`, reason: 'not_for_evidence_kind' }));
  if (foreign.length > 0) throw validationError(`These evidence fields do not apply to kind ${evidence.kind}.`, { errors: foreign });
  const { contentBase64, ...sent } = Object.fromEntries(allowed.filter((field) => evidence[field] !== undefined).map((field) => [field, field === 'authentication' ? { ...evidence.authentication } : evidence[field]]));
  // The bytes were decoded as the body arrived, and validation refused text that was not base64.
  return (contentBase64 === undefined ? sent : { ...sent, bytes: (contentBase64 as Base64Bytes).bytes }) as unknown as EvidenceInput;
}
