import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OpenEmbedSessionRequest, OpenedEmbedSession, PageReferences, pagePath } from '@ledger/embed';
import { CurrentPrincipal, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { LEDGER_CONFIG, LedgerConfig, Principal, Scopes, fieldRefused, validationError } from '@ledger/platform';
import { customerReference } from '../redec/interactions/create/create-interaction.http.controller';
import { ResourceIdPipe } from '../resource-id.pipe';
import { EmbedSessionQuery, OpenEmbedSessionCommand } from './embed-session.commands';
import { DEFAULT_SESSION_SECONDS, EmbedSessionStatusDto, OpenEmbedSessionRequestDto, OpenEmbedSessionResponseDto } from './embed-session.dto';
import { ProblemResponses } from '../openapi/problem-responses';

@ApiTags('embed')
@ApiBearerAuth()
@Controller('v1/embed/sessions')
export class EmbedSessionsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    private readonly pageReferences: PageReferences,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false, protectResponse: true })
  @ApiOperation({
    operationId: 'openEmbedSession',
    summary: "Open a session on the service's consent page (embedded capture)",
    description:
      'Resolves the customer inline (`userReference` + `identifiers`, with the rules of customer resolution) or by `customerId`, on a configuration published with `captureTiming: embedded` (409 `configuration_not_embedded` otherwise), ' +
      'or on several (`configurationIds`), which the page offers together, each accepted or declined on its own, recorded as one Multi-Consent decision. ' +
      "Returns the page `url` for the data subject: short-lived (`expiresAt`) and single use. Opening it exchanges its token for an HttpOnly, Secure, SameSite=None, Partitioned cookie of the session's page and redirects (303) to the address without the token, so the page also works inside an allowed origin's frame; the link stays valid until the session is decided or expires. On acceptance the consent is recorded with grantedAt = the service's receipt of the acceptance; " +
      'the browser is sent to `returnUrl` with a signed result, and GET /v1/embed/sessions/{sessionId} tells the outcome. ' +
      "The page names the bank (the tenant's presentation) and shows every REDEC code with its meaning: a configuration using a code without one is 409 `readable_terms_missing`, each missing entry named as `presentation.terms.<kind>.<code>` (PUT /v1/tenant-settings/presentation), and nothing is recorded. " +
      'Scope `consent:write` (and `consent:identity-assert` to send verification).',
  })
  @ApiCreatedResponse({ type: OpenEmbedSessionResponseDto })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: [
      'configuration_not_embedded',
      'regulatory_profile_unavailable',
      'readable_terms_missing',
      'CUSTOMER_IDENTITY_CONFLICT',
      'CUSTOMER_RESOLUTION_IN_PROGRESS',
      'customer_data_erased',
      'concurrent_change',
    ],
  })
  async open(@Body() body: OpenEmbedSessionRequestDto, @CurrentPrincipal() principal: Principal): Promise<OpenEmbedSessionResponseDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const { returnUrl, dynamicReference, expiresInSeconds, configurationId, configurationIds, dataSubjectName, ...customer } = body;
    const opened = await this.commandBus.execute<OpenEmbedSessionCommand, OpenedEmbedSession>(
      new OpenEmbedSessionCommand({
        customer: customerReference(customer),
        dataSubjectName: dataSubjectName ?? null,
        ...configurationsOf(configurationId, configurationIds),
        returnUrl: returnUrl ?? null,
        dynamicReference: dynamicReference ?? null,
        expiresInSeconds: expiresInSeconds ?? DEFAULT_SESSION_SECONDS,
      }),
    );
    const { session } = opened;
    const reference = this.pageReferences.referenceOf('consent-page', { tenantId: principal.tenantId, sessionId: session.sessionId });
    const url = `${this.config.publicUrl}${pagePath('consent-page', reference)}?token=${opened.pageToken}`;
    return { sessionId: session.sessionId, customerId: session.customerId, url, expiresAt: session.expiresAt, customerCreated: opened.customerCreated, resultSecret: opened.resultSecret };
  }

  @Get(':sessionId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'getEmbedSession',
    summary: 'The status of an embed session and the consent it recorded',
    description:
      '`open`, `accepted`, `declined`, `partially_accepted` (several configurations, some accepted) or `expired`. `items` gives each configuration its decision and the consent recorded; for a session of one, `consent` names it too. ' +
      'Once decided, `decisionId` names the Multi-Consent decision recorded. The authority on the outcome: a redirect only carries it.',
  })
  @ApiOkResponse({ type: EmbedSessionStatusDto })
  status(@Param('sessionId', new ResourceIdPipe('embed session')) sessionId: string): Promise<EmbedSessionStatusDto> {
    return this.queryBus.execute(new EmbedSessionQuery(sessionId));
  }
}

/** Exactly one way to name what the page offers: `configurationId`, or `configurationIds` (each once). */
function configurationsOf(configurationId: string | undefined, configurationIds: string[] | undefined): Pick<OpenEmbedSessionRequest, 'configurationIds' | 'configurationField'> {
  if (configurationId !== undefined && configurationIds === undefined) return { configurationIds: [configurationId], configurationField: 'configurationId' };
  if (configurationId === undefined && configurationIds !== undefined) {
    const repeated = configurationIds.findIndex((id, index) => configurationIds.indexOf(id) !== index);
    if (repeated >= 0) throw fieldRefused(`configurationIds[${repeated}]`, 'duplicate', 'A session offers each configuration once.');
    return { configurationIds, configurationField: 'configurationIds' };
  }
  const field = configurationId === undefined ? 'configurationId' : 'configurationIds';
  throw validationError('Send either configurationId, or configurationIds.', {
    reason: 'configuration_reference_required',
    errors: [{ field, reason: configurationId === undefined ? 'required' : 'not_with_configuration_id' }],
  });
}
