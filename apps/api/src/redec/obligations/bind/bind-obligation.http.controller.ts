import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { AnnulBindingResult, BindObligationResult } from '@ledger/redec';
import { AnnulRequestDto } from '../../annul-request.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../../../openapi/problem-responses';
import { AnnulBindingCommand, BindObligationCommand } from './bind-obligation.command';
import { BindObligationRequestDto, BindingAnnulmentDto, ObligationBindingDto } from './bind-obligation.request.dto';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/reportable-obligations')
export class BindObligationHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('bindings')
  @RequireScopes(Scopes.RUNTIME)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'bindReportableObligation',
    summary: 'Bind a granted reportable obligation to its consent, or to a kind without one',
    description:
      'Send it when the bank confirms the obligation was granted, never when a grant is evaluated. The obligation is `sourceSystem` + `obligationReference`. ' +
      'Kind `consent` requires `redecConsentId` of a consent of this tenant (404 otherwise) whose obligation source system is `sourceSystem` (422 redec_obligation_source_system_mismatch otherwise), ' +
      'that enabled access for the obligation at `obligationGrantedAt` (422 `redec_consent_not_valid_at_obligation_grant` otherwise), and of which the obligation did not supersede an obligation ' +
      '(422 `redec_superseding_obligation_does_not_inherit_consent`); ' +
      '`legacy_pre_redec` and `no_applicable_consent` take no consent. The same binding again answers the first one (200); ' +
      'a different second binding of the same obligation is kept and makes the consent-code lookup `ambiguous`. Registering a credit extension binds its obligation the same way.',
  })
  @ApiCreatedResponse({ type: ObligationBindingDto, description: 'The binding was recorded.' })
  @ApiOkResponse({ type: ObligationBindingDto, description: 'The same binding was already recorded: the first one.' })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: ['regulatory_profile_unavailable', 'concurrent_change'],
    422: [
      'redec_obligation_source_system_mismatch',
      'redec_superseding_obligation_does_not_inherit_consent',
      'redec_consent_not_valid_at_obligation_grant',
    ],
  })
  async bind(@Body() body: BindObligationRequestDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<ObligationBindingDto> {
    const { sourceSystem, obligationReference, kind, redecConsentId, obligationGrantedAt } = body;
    const request = { sourceSystem, obligationReference, kind, redecConsentId, obligationGrantedAt };
    const { binding, position } = await this.commandBus.execute<BindObligationCommand, BindObligationResult>(new BindObligationCommand(request));
    reply.status(position === null ? 200 : 201);
    return {
      bindingId: binding.bindingId,
      sourceSystem: binding.sourceSystem,
      obligationReference: binding.obligationReference,
      kind: binding.kind,
      redecConsentId: binding.redecConsentId,
      internalConsentCode: binding.internalConsentCode,
      obligationGrantedAt: binding.obligationGrantedAt,
      boundAt: binding.boundAt,
    };
  }

  @ReadsReadModel()
  @Post('bindings/:bindingId/annul')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'annulObligationBinding',
    summary: 'Annul a binding recorded by mistake',
    description:
      'Append-only: the binding stays in the obligation\'s stream and in the audit replay, while the consent-code lookup behaves as if it had never been recorded ' +
      '(an obligation left without a binding in force is `unresolved`). A second annulment is 409 `redec_binding_already_annulled`; an annulment is never annulled. ' +
      'The binding a credit extension produces is annulled with the extension (POST .../credit-extensions/{creditExtensionId}/annul). Scope `consent:admin`; Idempotency-Key required.',
  })
  @ApiOkResponse({ type: BindingAnnulmentDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['redec_binding_already_annulled', 'concurrent_change'] })
  async annul(@Param('bindingId', new ResourceIdPipe('binding')) bindingId: string, @Body() body: AnnulRequestDto): Promise<BindingAnnulmentDto> {
    const { reason, sourceReference } = body;
    const { annulment } = await this.commandBus.execute<AnnulBindingCommand, AnnulBindingResult>(new AnnulBindingCommand(bindingId, { reason, sourceReference }));
    return annulment;
  }
}
