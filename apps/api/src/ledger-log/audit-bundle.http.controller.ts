import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AuditBundle } from '@ledger/ledger-log';
import { CurrentPrincipal, NoStore, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ResourceIdPipe } from '../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../openapi/problem-responses';
import { AuditBundleQuery } from './audit-bundle.query';

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
  constructor(private readonly queryBus: QueryBus) {}

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
    return this.queryBus.execute(new AuditBundleQuery(principal.tenantId, redecConsentId));
  }
}
