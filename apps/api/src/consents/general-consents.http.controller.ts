import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { GeneralConsentRevoked, GeneralConsentState, GeneralGrantResult } from '@ledger/consents';
import { canonicalJsonSha256 } from '@ledger/event-store';
import { CurrentPrincipal, EvidenceBytes, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import type { CreateInteractionResult } from '@ledger/redec';
import { CreateInteractionCommand } from '../redec/interactions/create/create-interaction.command';
import { customerReference } from '../redec/interactions/create/create-interaction.http.controller';
import { CreateInteractionRequestDto, CreateInteractionResponseDto } from '../redec/interactions/create/create-interaction.request.dto';
import { toEvidence } from '../redec/interactions/grant/grant.http.controller';
import { ResourceIdPipe } from '../resource-id.pipe';
import { GetGeneralConsentQuery, GrantGeneralConsentCommand, RevokeGeneralConsentCommand } from './general-consent.commands';
import {
  GeneralConsentDto,
  GeneralGrantRequestDto,
  GeneralGrantResponseDto,
  GeneralRevocationDto,
  GeneralRevokeRequestDto,
  generalConsentView,
} from './general-consent.dto';
import { ProblemResponses, ReadsReadModel } from '../openapi/problem-responses';

/**
 * General (non-REDEC) consents: the same interaction and grant as REDEC's, on
 * configurations published without a `redec` block, outside the `/redec` paths
 * kept for configurations that include REDEC
 * (docs/reference/consent-compliance.md, "General consents").
 */
@ApiTags('consents')
@ApiBearerAuth()
@Controller('v1')
export class GeneralConsentsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Post('consent-interactions')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @ApiOperation({
    operationId: 'createConsentInteraction',
    summary: 'Open a consent interaction on a general (non-REDEC) configuration',
    description:
      'As POST /v1/redec/consent-interactions, for a configuration without a `redec` block (409 `general_configuration_required` otherwise): resolves the customer inline or by `customerId` and freezes the configuration version for the grant.',
  })
  @ApiCreatedResponse({ type: CreateInteractionResponseDto })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: ['general_configuration_required', 'CUSTOMER_IDENTITY_CONFLICT', 'CUSTOMER_RESOLUTION_IN_PROGRESS', 'customer_data_erased', 'concurrent_change'],
  })
  async createInteraction(@Body() body: CreateInteractionRequestDto, @CurrentPrincipal() principal: Principal): Promise<CreateInteractionResponseDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const result = await this.commandBus.execute<CreateInteractionCommand, CreateInteractionResult>(new CreateInteractionCommand({ configurationId: body.configurationId, dataSubjectName: body.dataSubjectName ?? null, ...customerReference(body) }, 'general'));
    return { interactionId: result.interactionId, customerId: result.customerId, configurationId: result.configurationId, customerCreated: result.customerCreated };
  }

  @Post('consent-interactions/:interactionId/grant')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @EvidenceBytes()
  @ApiOperation({
    operationId: 'grantConsent',
    summary: 'Record the grant of a general consent captured outside the service',
    description:
      'occurredAt (not later than the receipt), sourceSystem, sourceReference and the evidence. An identical retry answers the first grant; a different second grant is 409 `consent_interaction_already_granted`. ' +
      'An `embedded` configuration is captured on the consent page instead (409 `capture_is_embedded`). ' +
      'Evidence bytes travel base64 in `contentBase64`: the body may be up to 16 MiB here (64 KiB elsewhere); a larger one is 413 `PAYLOAD_TOO_LARGE`. While the service holds as many bodies as its memory budget allows, or your tenant its share, 503 `SERVICE_BUSY` with `Retry-After` before the body is read: send the same request again after it (send `Expect: 100-continue` to be refused before the body is sent).',
  })
  @ApiCreatedResponse({ type: GeneralGrantResponseDto })
  @ProblemResponses({ 409: ['consent_interaction_already_granted', 'general_configuration_required', 'capture_is_embedded'], 503: ['SERVICE_BUSY'] })
  async grant(@Param('interactionId', new ResourceIdPipe('consent interaction')) interactionId: string, @Body() body: GeneralGrantRequestDto): Promise<GeneralGrantResponseDto> {
    const requestSha256 = await canonicalJsonSha256(body);
    const { occurredAt, sourceSystem, sourceReference } = body;
    const command = new GrantGeneralConsentCommand(interactionId, { occurredAt, sourceSystem, sourceReference, evidence: toEvidence(body.evidence) }, requestSha256);
    const { grant } = await this.commandBus.execute<GrantGeneralConsentCommand, GeneralGrantResult>(command);
    return {
      consentId: grant.consentId,
      consentActionId: grant.consentActionId,
      templateKey: grant.templateKey,
      configurationVersion: grant.configurationVersion,
      grantedAt: grant.grantedAt,
      recordedAt: grant.recordedAt,
    };
  }

  @ReadsReadModel()
  @Get('consents/:consentId')
  @RequireScopes(Scopes.READ)
  @ApiOperation({ operationId: 'getConsent', summary: 'A general consent: template, version, state and dates', description: 'REDEC consents are read at GET /v1/redec/consents/{redecConsentId}.' })
  @ApiOkResponse({ type: GeneralConsentDto })
  async get(@Param('consentId', new ResourceIdPipe('consent')) consentId: string, @CurrentPrincipal() principal: Principal): Promise<GeneralConsentDto> {
    return generalConsentView(await this.queryBus.execute<GetGeneralConsentQuery, GeneralConsentState>(new GetGeneralConsentQuery(principal.tenantId, consentId)));
  }

  @Post('consents/:consentId/revoke')
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'revokeConsent',
    summary: 'Revoke a general consent',
    description: 'Once (409 `consent_already_revoked`), at an instant between the grant and the receipt. Idempotency-Key required: a retry answers the first revocation.',
  })
  @ApiCreatedResponse({ type: GeneralRevocationDto })
  @ProblemResponses({ 409: ['consent_already_revoked', 'concurrent_change'] })
  async revoke(@Param('consentId', new ResourceIdPipe('consent')) consentId: string, @Body() body: GeneralRevokeRequestDto): Promise<GeneralRevocationDto> {
    const { occurredAt, channel, sourceSystem, sourceReference } = body;
    const revocation = await this.commandBus.execute<RevokeGeneralConsentCommand, GeneralConsentRevoked['data']>(
      new RevokeGeneralConsentCommand(consentId, { occurredAt, channel, sourceSystem, sourceReference }),
    );
    return { consentActionId: revocation.consentActionId, revokedAt: revocation.revokedAt, channel: revocation.channel, recordedAt: revocation.recordedAt };
  }
}
