import { Controller, Get, Inject, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { evolveCustomer, loadAggregate, streams } from '@ledger/ledger';
import { Principal, Scopes, conflict, customerDataErased, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { ConsentState, EVIDENCE_MEDIA_TYPES, evidenceDownloadType } from '@ledger/redec';
import { readConsent } from '../consent-reads';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../../../openapi/problem-responses';

/** Integrators poll with backoff (docs/reference/evidence-and-artifacts.md, "Polling a pending artifact"); this is the first wait suggested for a pending artifact. */
export const ARTIFACT_RETRY_AFTER_SECONDS = 5;

const MEDIUM: Record<string, string> = { electronic: 'consent_certificate', audio_recording: 'call_recording', physical_document: 'paper_original' };

export class ArtifactMetadataDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ enum: ['pending', 'ready'], description: '`ready` only means the artifact is held and downloadable; it is not an authorization.' }) status!: string;
  @ApiProperty({ enum: ['generated_pdf', 'supplied', 'external_reference'], description: 'Rendered by the service, supplied and held, or held elsewhere (recorded, never proxied).' }) origin!: string;
  @ApiProperty({ enum: ['consent_certificate', 'call_recording', 'paper_original'], description: 'What the artifact is.' }) medium!: string;
  @ApiProperty({ description: 'The MIME type of the bytes as recorded, e.g. `application/pdf`, `audio/mpeg`.' }) mediaType!: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'SHA-256 (hex) of the bytes; null while a certificate is pending.' }) contentSha256!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Size in bytes of what the service holds.' }) size!: number | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'Where an external artifact is held.' }) externalReference!: string | null;
}

function metadataOf(consent: ConsentState): ArtifactMetadataDto {
  const { grant, artifact } = consent;
  const content = grant.evidence.kind === 'electronic' ? null : grant.evidence.content;
  return {
    redecConsentId: grant.redecConsentId,
    status: artifact.status,
    origin: artifact.origin,
    medium: MEDIUM[grant.evidence.kind],
    mediaType: artifact.mediaType,
    contentSha256: artifact.contentSha256,
    size: artifact.size,
    externalReference: content?.origin === 'external_reference' ? content.externalReference : null,
  };
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class ArtifactHttpController {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @ReadsReadModel()
  @Get(':redecConsentId/artifact')
  @RequireScopes(Scopes.READ)
  @ApiOperation({ operationId: 'getRedecConsentArtifact', summary: "The consent artifact's metadata" })
  @ApiOkResponse({ type: ArtifactMetadataDto })
  async metadata(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @CurrentPrincipal() principal: Principal): Promise<ArtifactMetadataDto> {
    return metadataOf(await this.consent(principal.tenantId, redecConsentId));
  }

  @ReadsReadModel()
  @Get(':redecConsentId/artifact/download')
  @NoStore()
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'downloadRedecConsentArtifact',
    summary: 'The exact bytes of a ready artifact held by the service',
    description:
      'The SHA-256 of the body is the metadata `contentSha256` (also sent as ETag). A pending artifact is 409 `artifact_not_ready` with Retry-After: poll with bounded backoff. ' +
      'An artifact held elsewhere is never proxied: 409 `artifact_held_externally`. Evidence erased with its data subject\'s personal data after the retention floor is 409 `customer_data_erased` (docs/data-lifecycle.md). ' +
      'Always a download, never a page: `Content-Disposition: attachment` with a file name of the medium, the consent id and the extension of the media type (`call_recording-<id>.mp3`), ' +
      "`X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox; default-src 'none'`. Content-Type is the recorded media type, one of the evidence kind's " +
      '(see the grant), or `application/octet-stream` for evidence recorded with another type before that list existed.',
  })
  @ApiProduces(...new Set(Object.values(EVIDENCE_MEDIA_TYPES).flatMap((types) => Object.keys(types))), 'application/octet-stream')
  @ApiOkResponse({ description: 'The artifact bytes.', schema: { type: 'string', format: 'binary' } })
  @ProblemResponses({ 409: ['artifact_not_ready', 'artifact_held_externally', 'customer_data_erased', 'concurrent_change'] })
  async download(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const { grant, artifact } = await this.consent(principal.tenantId, redecConsentId);
    if (artifact.origin === 'external_reference') {
      throw conflict('artifact_held_externally', 'The artifact is held outside the service; its reference and hash are in the metadata.');
    }
    if (artifact.status !== 'ready' || !artifact.contentSha256) {
      void reply.header('Retry-After', String(ARTIFACT_RETRY_AFTER_SECONDS));
      throw conflict('artifact_not_ready', 'The artifact is not ready yet; retry later with backoff.');
    }
    // Deleted with the data subject's other personal data after the retention floor (decision 0035): say so, rather than a bare 404.
    // Asked before the bytes: the same bytes may still be held at the tenant's address for someone else (decision 0048).
    const { state: customer } = await loadAggregate(this.store, streams.customer(principal.tenantId, grant.customerId), evolveCustomer);
    if (customer && customer.erasedAt !== null) throw customerDataErased();
    const bytes = await this.blobs.get(principal.tenantId, artifact.contentSha256, grant.customerId);
    if (!bytes) throw notFound('artifact bytes');
    // Evidence is opened by staff in a browser: it is saved as a file, never rendered or sniffed as a page of this origin.
    const { mediaType, extension } = evidenceDownloadType(grant.evidence.kind, artifact.mediaType);
    void reply
      .header('Content-Type', mediaType)
      .header('Content-Disposition', `attachment; filename="${MEDIUM[grant.evidence.kind]}-${grant.redecConsentId}.${extension}"`)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "sandbox; default-src 'none'")
      .header('ETag', `"${artifact.contentSha256}"`);
    return new StreamableFile(bytes);
  }

  private async consent(tenantId: string, redecConsentId: string): Promise<ConsentState> {
    const consent = await readConsent(this.readModel, tenantId, redecConsentId);
    if (!consent) throw notFound('consent');
    return consent;
  }
}
