import { Body, Controller, Delete, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OpenedPrivacyCenterSession, PageReferences, pagePath } from '@ledger/embed';
import { CurrentPrincipal, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { LEDGER_CONFIG, LedgerConfig, Principal, Scopes } from '@ledger/platform';
import { customerReference } from '../redec/interactions/create/create-interaction.http.controller';
import { ProblemResponses, ReadsReadModel } from '../openapi/problem-responses';
import { EndPrivacyCenterSessionByBankCommand, OpenPrivacyCenterSessionCommand } from './privacy-center.commands';
import { ResourceIdPipe } from '../resource-id.pipe';
import { DEFAULT_IDENTITY_ASSURANCE, DEFAULT_PRIVACY_CENTER_SECONDS, OpenPrivacyCenterSessionRequestDto, OpenPrivacyCenterSessionResponseDto } from './privacy-center.dto';

@ApiTags('privacy-center')
@ApiBearerAuth()
@Controller('v1/privacy-center/sessions')
export class PrivacyCenterSessionsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(LEDGER_CONFIG) private readonly config: LedgerConfig,
    private readonly pageReferences: PageReferences,
  ) {}

  @ReadsReadModel()
  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false, protectResponse: true })
  @ApiOperation({
    operationId: 'openPrivacyCenterSession',
    summary: "Open the privacy center for a customer the bank has authenticated",
    description:
      'The customer by `customerId`, or resolved inline (`userReference` + `identifiers`) with the rules of customer resolution. Returns the page `url` for the data subject: short-lived (`expiresAt`), usable until then. ' +
      "Opening it exchanges its token for an HttpOnly, Secure, SameSite=None, Partitioned cookie of the page and redirects (303) to the address without the token. " +
      "On the page the person sees each REDEC and general consent with its state, dates and purpose in words, the access decisions under each, the notices the bank recorded and their rights requests; " +
      'revokes a consent (recorded with channel `digital`, source type `direct` and the session\'s `identityAssurance`, under every rule of the lifecycle) and files a rights request (channel `digital`), both announced by the usual webhooks. ' +
      "The page shows every purpose and objective code with its meaning: a customer whose consents or accesses use a code without one is 409 `readable_terms_missing`, each missing entry named as `presentation.terms.<kind>.<code>` (PUT /v1/tenant-settings/presentation), and nothing is recorded. " +
      'Scope `consent:write` (and `consent:identity-assert` to send verification).',
  })
  @ApiCreatedResponse({ type: OpenPrivacyCenterSessionResponseDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['readable_terms_missing', 'CUSTOMER_IDENTITY_CONFLICT', 'CUSTOMER_RESOLUTION_IN_PROGRESS', 'customer_data_erased', 'concurrent_change'], 503: ['read_model_behind'] })
  async open(@Body() body: OpenPrivacyCenterSessionRequestDto, @CurrentPrincipal() principal: Principal): Promise<OpenPrivacyCenterSessionResponseDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const { returnUrl, identityAssurance, expiresInSeconds, ...customer } = body;
    const opened = await this.commandBus.execute<OpenPrivacyCenterSessionCommand, OpenedPrivacyCenterSession>(
      new OpenPrivacyCenterSessionCommand({
        customer: customerReference(customer),
        identityAssurance: identityAssurance ?? DEFAULT_IDENTITY_ASSURANCE,
        returnUrl: returnUrl ?? null,
        expiresInSeconds: expiresInSeconds ?? DEFAULT_PRIVACY_CENTER_SECONDS,
      }),
    );
    const { session } = opened;
    const reference = this.pageReferences.referenceOf('privacy-center', { tenantId: principal.tenantId, sessionId: session.sessionId });
    const url = `${this.config.publicUrl}${pagePath('privacy-center', reference)}?token=${opened.pageToken}`;
    return { sessionId: session.sessionId, customerId: session.customerId, url, expiresAt: session.expiresAt, customerCreated: opened.customerCreated };
  }

  @Delete(':sessionId')
  @HttpCode(204)
  @RequireScopes(Scopes.WRITE)
  @ApiOperation({
    operationId: 'endPrivacyCenterSession',
    summary: 'End a privacy center session before it expires',
    description:
      "For when the bank's own session with the customer ends (a sign-out, say): from then on the session's link and cookie open nothing (410), as after \"Cerrar sesión\" on the page. " +
      'Idempotent: a session already ended or expired answers 204 and records nothing. Scope `consent:write`.',
  })
  @ApiNoContentResponse({ description: 'The session is over.' })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['concurrent_change'] })
  async end(@Param('sessionId', new ResourceIdPipe('privacy center session')) sessionId: string): Promise<void> {
    await this.commandBus.execute(new EndPrivacyCenterSessionByBankCommand(sessionId));
  }
}
