import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { Principal, Scopes, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { ConsentState } from '@ledger/redec';
import { readConsent } from '../consent-reads';
import { EvidenceViewDto } from './evidence-view.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ReadsReadModel } from '../../../openapi/problem-responses';

/**
 * The auditable view of the regulatory fact
 * (docs/reference/evidence-and-artifacts.md, "The evidence view"): the
 * decision, timestamps, template, authentication and provenance, profile,
 * channel, purpose, objectives and canonical timing, and the evidence of the
 * notices the bank sent. No registry debt data (the service never has any) and
 * no document bytes.
 */
export function evidenceViewOf({ grant, artifact, notifications }: ConsentState): EvidenceViewDto {
  const evidence = grant.evidence;
  return {
    redecConsentId: grant.redecConsentId,
    internalConsentCode: grant.internalConsentCode,
    decision: 'granted' as const,
    consentActionId: grant.consentActionId,
    timestamps: { grantedAt: grant.grantedAt, recordedAt: grant.recordedAt, initialAccessValidUntil: grant.initialAccessValidUntil },
    // Deferred external capture: the regulatory clock is the data subject's occurredAt, not the receipt.
    canonicalTiming: { clock: grant.captureTiming === 'embedded' ? 'recorded_at' : 'occurred_at', grantedAt: grant.grantedAt },
    template: { configurationId: grant.configurationId, templateKey: grant.templateKey, version: grant.configurationVersion, title: grant.consentTitle },
    regulatoryProfile: grant.regulatoryProfile,
    channel: grant.channel,
    captureTiming: grant.captureTiming,
    finalityCode: grant.finalityCode,
    mediumCode: grant.mediumCode,
    objectiveCodes: grant.objectiveCodes,
    scopes: grant.scopes,
    targets: grant.targets,
    provenance: { sourceSystem: grant.sourceSystem, sourceReference: grant.sourceReference },
    evidence: {
      kind: evidence.kind,
      authentication: evidence.kind === 'electronic' ? evidence.authentication : null,
      recordedAt: evidence.kind === 'audio_recording' ? evidence.recordedAt : null,
      digitizedAt: evidence.kind === 'physical_document' ? evidence.digitizedAt : null,
      artifactOrigin: artifact.origin,
      contentSha256: artifact.contentSha256,
    },
    representation: grant.representation && {
      type: grant.representation.type,
      identifier: grant.representation.identifierRutMasked,
      authorityBasis: grant.representation.authorityBasis,
      authorityReference: grant.representation.authorityReference,
      assertedAt: grant.representation.assertedAt,
    },
    reportableObligation: grant.reportableObligation,
    notifications,
  };
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class EvidenceHttpController {
  constructor(private readonly readModel: ReadModel) {}

  @ReadsReadModel()
  @Get(':redecConsentId/evidence')
  @NoStore()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getRedecConsentEvidence',
    summary: 'The evidence view of the consent',
    description: 'The auditable view of the regulatory fact: no debt data, no document bytes.',
  })
  @ApiOkResponse({ type: EvidenceViewDto })
  async evidence(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @CurrentPrincipal() principal: Principal): Promise<EvidenceViewDto> {
    const consent = await readConsent(this.readModel, principal.tenantId, redecConsentId);
    if (!consent) throw notFound('consent');
    return evidenceViewOf(consent);
  }
}
