import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { AuditBundle, auditBundle, cosignedNote } from '@ledger/ledger-log';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { Principal, Scopes, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { consentFacts, readConsentReferences } from '@ledger/redec';
import { ResourceIdPipe } from '../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../openapi/problem-responses';
import { LedgerLogService } from './ledger-log.service';

class BundledEventDto {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty() streamId!: string;
  @ApiProperty({ type: 'integer' }) revision!: number;
  @ApiProperty() type!: string;
  @ApiProperty({ type: 'integer', description: 'metadata.recordedAt (epoch ms), which the leaf states.' }) recordedAt!: number;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The data as stored (protected identity material sealed): what the chain hash covers.' }) data!: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: unknown;
  @ApiProperty({ description: 'The chain hash (hex).' }) hash!: string;
  @ApiProperty({ type: 'string', nullable: true }) previousHash!: string | null;
  @ApiProperty({ type: 'integer' }) leafIndex!: number;
  @ApiProperty({ description: 'The leaf bytes, base64 (`consent-ledger/leaf/v1`, docs/auditing.md).' }) leaf!: string;
  @ApiProperty({ type: [String], description: 'RFC 9162 inclusion proof against the bundle\'s checkpoint, base64 hashes from the leaf up.' }) inclusionProof!: string[];
}

class AuditBundleDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty({ description: 'The checkpoint every proof leads to: a signed note with any witnesses\' cosignatures.' }) checkpoint!: string;
  @ApiProperty({ description: "The log's verifier key (check it against the one you hold)." }) verifierKey!: string;
  @ApiProperty({ type: [BundledEventDto] }) events!: BundledEventDto[];
}

/**
 * A consent's audit bundle (decision 0058): what an auditor keeps and checks
 * offline with `ledger audit verify-bundle` or any RFC 6962 implementation.
 */
@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1/redec/consents')
export class AuditBundleHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModel: ReadModel,
    private readonly ledgerLog: LedgerLogService,
  ) {}

  @ReadsReadModel()
  @Get(':redecConsentId/audit-bundle')
  @NoStore()
  @ProblemResponses({ 503: ['ledger_log_unavailable'] })
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getRedecConsentAuditBundle',
    summary: "A consent's audit bundle",
    description:
      'The consent\'s facts and those of the access decisions, credit extensions and obligation bindings that name it, each with its leaf bytes, leaf index and inclusion proof, all against one checkpoint (issued first if none includes them yet), with the log\'s verifier key. ' +
      'It proves each fact was in the ledger when the checkpoint was signed; it cannot prove that no later fact exists (docs/auditing.md). Scope `consent:audit`.',
  })
  @ApiOkResponse({ type: AuditBundleDto })
  async bundle(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @CurrentPrincipal() principal: Principal): Promise<AuditBundle> {
    const { tenantId } = principal;
    const references = await readConsentReferences(this.readModel, tenantId, redecConsentId);
    const facts = await consentFacts(this.store, tenantId, redecConsentId, references);
    if (facts === null) throw notFound('consent');
    const log = this.ledgerLog.log;
    // The leaves are read before the checkpoint is chosen, so it includes every one of them.
    const leaves = await log.leavesOf(facts.map((fact) => fact.id));
    const checkpoint = await this.ledgerLog.checkpointIncluding(Math.max(-1, ...leaves.map((leaf) => leaf.leafIndex)));
    return auditBundle(log, {
      redecConsentId,
      checkpoint: { size: checkpoint.size, note: await cosignedNote(log, checkpoint) },
      verifierKey: this.ledgerLog.identity.verifierKey,
      facts,
    });
  }
}
