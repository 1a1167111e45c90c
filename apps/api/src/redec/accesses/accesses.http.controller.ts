import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { AccessDecided, AccessRecord, AuthorizeResult, accessOutcome } from '@ledger/redec';
import { AccessDecisionDto, AuthorizeAccessRequestDto, AuthorizeAccessResponseDto, ConfirmAccessRequestDto, ConfirmAccessResponseDto } from './access.dto';
import { AuthorizeAccessCommand, ConfirmAccessCommand } from './access.commands';
import { ResourceIdPipe } from '../../resource-id.pipe';
import { ProblemResponses } from '../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/accesses')
export class AccessesHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('authorize')
  @RequireScopes(Scopes.RUNTIME)
  @ApiOperation({
    operationId: 'authorizeRedecAccess',
    summary: 'Decide whether a registry access is authorized',
    description:
      'Answers `authorized` or `denied`; only `authorized` lets the reporter query the registry, and a timeout or error is never an authorization. ' +
      'Decided on the consent\'s recorded facts and the clock, independent of artifact readiness. `initial_window`: the consent is in its initial window now (until initialAccessValidUntil) ' +
      'and no revocation was recorded before now, effective or kept without effect (denied `redec_consent_revoked`), for a granted scope, data category and objective. ' +
      '`credit_lifecycle_extension`: requires accessPurpose; only `manage_existing_obligation` for the exact obligation of an active, effective extension ' +
      '(its credit granted before any revocation, its obligation not one that superseded another of the consent: decision 0054) ' +
      "(reportingObligation.sourceSystem the consent's obligation source system, reportingObligation.sourceReference the extension's creditOperationReference) is authorized, " +
      'also while a revocation is kept without effect. An authorization carries `expiresAt`: decidedAt plus the Regulatory Profile\'s authorizationTtlMs (baseline 10 minutes). ' +
      'Every decision is recorded, and only while the consent is still at the revision it was decided on: a revocation recorded meanwhile makes it be decided again (decision 0055). ' +
      'A fact reported later that contradicts an authorization (a revocation back-dated before it) leaves it recorded as decided and lists it at GET /v1/redec/accesses/contradicted. The request is identified by sourceSystem + sourceReference: the same request again answers the same decision with `replayed: true` (200); ' +
      'the same pair with a different body is 409 `redec_access_request_conflict`. Scope `consent:runtime`.',
  })
  @ApiCreatedResponse({ type: AuthorizeAccessResponseDto, description: 'A new decision, recorded.' })
  @ApiOkResponse({ type: AuthorizeAccessResponseDto, description: 'The recorded decision of the same request, `replayed: true`.' })
  @ProblemResponses({ 409: ['redec_access_request_conflict', 'concurrent_change'] })
  async authorize(@Body() body: AuthorizeAccessRequestDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<AuthorizeAccessResponseDto> {
    const { authorizationBasis, consentAuthorizationMode, redecConsentId, dataCategoryCode, scopeId, objectiveCode, sourceSystem, sourceReference, accessPurpose, mandatary } = body;
    const { status, sourceSystem: obligationSystem, sourceReference: obligationReference, assertedAt } = body.reportingObligation;
    const request = {
      authorizationBasis,
      consentAuthorizationMode,
      redecConsentId,
      dataCategoryCode,
      scopeId,
      objectiveCode,
      reportingObligation: { status, sourceSystem: obligationSystem, sourceReference: obligationReference, assertedAt },
      sourceSystem,
      sourceReference,
      ...(accessPurpose !== undefined ? { accessPurpose } : {}),
      // An optional object sent as null is absent, as validation takes it.
      ...(mandatary ? { mandatary: { identifierRutInput: mandatary.identifierRutInput } } : {}),
    };
    const { decision, replayed } = await this.commandBus.execute<AuthorizeAccessCommand, AuthorizeResult>(new AuthorizeAccessCommand(request));
    reply.status(replayed ? 200 : 201);
    return { decision: decisionView(decision), replayed };
  }

  @Post(':redecAccessId/confirm')
  @HttpCode(200)
  @RequireScopes(Scopes.RUNTIME)
  @Idempotent({ required: false })
  @ApiOperation({
    operationId: 'confirmRedecAccess',
    summary: 'Confirm the outcome of an authorized access',
    description:
      "Exactly one outcome kind: `accessed` (with accessedAt, not before the authorization nor after the receipt, within the Regulatory Profile's callerClockSkewMs, baseline 5 minutes), `failed` or `cancelled`. " +
      'Only an authorized access can be confirmed (409 `redec_access_not_authorized`), once (409 `redec_access_already_confirmed`). ' +
      '`accessed` with an accessedAt after the decision\'s `expiresAt`, or after the consent stopped enabling that access (a revocation, the end of the initial window, the end of the obligation) or a block of the data subject came into force, ' +
      'is 409 `redec_authorization_expired`: the registry must not have been queried then. `failed` and `cancelled` are always taken. ' +
      'An optional Idempotency-Key makes a retry answer the first confirmation. Scope `consent:runtime`.',
  })
  @ApiOkResponse({ type: ConfirmAccessResponseDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['redec_access_not_authorized', 'redec_access_already_confirmed', 'redec_authorization_expired', 'concurrent_change'] })
  async confirm(@Param('redecAccessId', new ResourceIdPipe('access')) redecAccessId: string, @Body() body: ConfirmAccessRequestDto): Promise<ConfirmAccessResponseDto> {
    const outcome = accessOutcome(body.outcome);
    const { decision, confirmation } = await this.commandBus.execute<ConfirmAccessCommand, AccessRecord>(new ConfirmAccessCommand(redecAccessId, outcome));
    return { redecAccessId, status: confirmation!.outcome.kind, outcome: confirmation!.outcome, confirmedAt: confirmation!.confirmedAt, decision: decisionView(decision) };
  }
}

function decisionView(decision: AccessDecided['data']): AccessDecisionDto {
  const { request } = decision;
  return {
    redecAccessId: decision.redecAccessId,
    status: decision.status,
    ...(decision.denyReasonCode ? { denyReasonCode: decision.denyReasonCode } : {}),
    redecConsentId: decision.redecConsentId,
    decidedAt: decision.decidedAt,
    ...(decision.expiresAt !== null ? { expiresAt: decision.expiresAt } : {}),
    consentAuthorizationMode: request.consentAuthorizationMode,
    ...(request.accessPurpose ? { accessPurpose: request.accessPurpose } : {}),
    scopeId: request.scopeId,
    dataCategoryCode: request.dataCategoryCode,
    objectiveCode: request.objectiveCode,
    sourceSystem: request.sourceSystem,
    sourceReference: request.sourceReference,
  };
}
