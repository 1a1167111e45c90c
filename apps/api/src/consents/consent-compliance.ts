import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ConsentCompliance, ComplianceSource, evaluateCompliance, generalConsentStatus } from '@ledger/consents';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { CLOCK, Clock, Principal, Scopes, fieldRefused, notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { deriveStatus, readConfigurationVersions } from '@ledger/redec';
import { ResourceIdPipe } from '../resource-id.pipe';
import { readCustomerConsents } from './customer-consents.query';
import { ReadsReadModel } from '../openapi/problem-responses';

export class PendingRequirementDto {
  @ApiProperty({
    enum: ['acceptance_required', 'scope_not_accepted', 'objective_not_accepted'],
    description: '`acceptance_required`: the evaluated `version` must be accepted. `scope_not_accepted` / `objective_not_accepted`: a REDEC scope (`scopeId`) or objective (`objectiveCode`) of the evaluated version no active consent covers.',
  })
  code!: string;
  @ApiProperty({ type: 'integer', required: false }) version?: number;
  @ApiProperty({ required: false }) scopeId?: string;
  @ApiProperty({ required: false }) objectiveCode?: string;
}

export class PendingVersionChangeDto {
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ format: 'uuid' }) configurationId!: string;
  @ApiProperty({ type: 'integer' }) publishedAt!: number;
  @ApiProperty({ type: 'integer', description: 'When its grace period ends and it becomes the evaluated version: accept it before then.' }) effectiveAt!: number;
}

/** docs/reference/consent-compliance.md, "Compliance by template version". */
export class ConsentComplianceDto {
  @ApiProperty() templateKey!: string;
  @ApiProperty({
    enum: ['complies', 'partially_compliant', 'non_compliant'],
    description:
      '`complies`: an active consent of this template at the evaluated version or later covers all of it. `partially_compliant`: it covers only part of the REDEC scopes or objectives. `non_compliant`: no active consent of this template at the evaluated version or later.',
  })
  status!: ConsentCompliance['status'];
  @ApiProperty({ type: 'integer', nullable: true, description: 'The highest version of this template the customer holds an active (granted or extended) consent for.' })
  acceptedVersion!: number | null;
  @ApiProperty({ type: 'integer', description: 'The version in force now: the latest whose grace period has ended.' }) evaluatedVersion!: number;
  @ApiProperty({ type: [PendingRequirementDto] }) pendingRequirements!: PendingRequirementDto[];
  @ApiProperty({ type: [PendingVersionChangeDto], description: 'Newer versions still in their grace period that the customer has not accepted. Temporary: each leaves the list when it comes into force.' })
  pendingVersionChanges!: PendingVersionChangeDto[];
}

export class ConsentComplianceQuery {
  constructor(
    readonly tenantId: string,
    readonly customerId: string,
    readonly templateKey: string,
  ) {}
}

@QueryHandler(ConsentComplianceQuery)
export class ConsentComplianceHandler implements IQueryHandler<ConsentComplianceQuery, ConsentCompliance> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, customerId, templateKey }: ConsentComplianceQuery): Promise<ConsentCompliance> {
    const now = this.clock.now();
    const [{ redec, general }, versions] = await Promise.all([
      readCustomerConsents(this.readModel, tenantId, customerId),
      readConfigurationVersions(this.readModel, tenantId, templateKey),
    ]);
    if (versions.length === 0) throw notFound('template');
    const consents: ComplianceSource[] = [
      ...redec.map((state) => {
        const { grant } = state;
        const { status } = deriveStatus(state, now);
        return {
          consentId: grant.redecConsentId,
          templateKey: grant.templateKey,
          configurationVersion: grant.configurationVersion,
          active: status === 'granted' || status === 'extended',
          scopeIds: grant.scopes.map((s) => s.scopeId),
          objectiveCodes: grant.objectiveCodes,
        };
      }),
      ...general.map((state) => ({
        consentId: state.grant.consentId,
        templateKey: state.grant.templateKey,
        configurationVersion: state.grant.configurationVersion,
        active: generalConsentStatus(state) === 'granted',
        scopeIds: [],
        objectiveCodes: [],
      })),
    ];
    return evaluateCompliance({
      templateKey,
      now,
      consents,
      versions: versions.map((v) => ({
        configurationId: v.configurationId,
        version: v.version,
        publishedAt: v.publishedAt,
        gracePeriodDays: v.gracePeriodDays,
        scopeIds: v.redec?.scopes.map((s) => s.scopeId) ?? [],
        objectiveCodes: v.redec?.objectiveCodes ?? [],
      })),
    });
  }
}

@ApiTags('customers')
@ApiBearerAuth()
@Controller('v1/customers')
export class ConsentComplianceHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get(':customerId/consent-compliance')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getConsentCompliance',
    summary: 'Whether the customer complies with the version of a consent template in force',
    description:
      'Not an authorization (use POST /v1/redec/accesses/authorize). Only consents of this `templateKey` count: another template sharing the same permissions is not acceptance, and a revoked or expired consent does not satisfy the evaluated version. ' +
      'A version published with `gracePeriodDays` is a `pendingVersionChange` until its grace ends, while holders of the earlier version still comply. Unknown customer or template: 404.',
  })
  @ApiQuery({ name: 'templateKey', required: true, description: 'The configuration template to evaluate.' })
  @ApiOkResponse({ type: ConsentComplianceDto })
  compliance(
    @Param('customerId', new ResourceIdPipe('customer')) customerId: string,
    @Query('templateKey') templateKey: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ConsentComplianceDto> {
    if (typeof templateKey !== 'string' || templateKey === '') throw fieldRefused('templateKey', 'required', 'The query parameter templateKey is required, once.');
    return this.queryBus.execute(new ConsentComplianceQuery(principal.tenantId, customerId, templateKey));
  }
}
