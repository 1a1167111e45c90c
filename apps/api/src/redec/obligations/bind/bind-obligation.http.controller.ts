import { Body, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { BindObligationResult } from '@ledger/redec';
import { BindObligationCommand } from './bind-obligation.command';
import { BindObligationRequestDto, ObligationBindingDto } from './bind-obligation.request.dto';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/reportable-obligations')
export class BindObligationHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('bindings')
  @RequireScopes(Scopes.RUNTIME)
  @Idempotent({ required: true })
  @ApiOperation({
    summary: 'Bind a granted reportable obligation to its consent, or to a kind without one (spec 2.11)',
    description:
      'Send it when the bank confirms the obligation was granted, never when a grant is evaluated. The obligation is `sourceSystem` + `obligationReference`. ' +
      'Kind `consent` requires `redecConsentId` of a consent of this tenant (404 otherwise) whose obligation source system is `sourceSystem` (422 redec_obligation_source_system_mismatch otherwise); ' +
      '`legacy_pre_redec` and `no_applicable_consent` take no consent. The same binding again answers the first one (200); ' +
      'a different second binding of the same obligation is kept and makes the consent-code lookup `ambiguous`. Registering a credit extension binds its obligation the same way.',
  })
  @ApiCreatedResponse({ type: ObligationBindingDto, description: 'The binding was recorded.' })
  @ApiOkResponse({ type: ObligationBindingDto, description: 'The same binding was already recorded: the first one.' })
  async bind(@Body() body: BindObligationRequestDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<ObligationBindingDto> {
    const { sourceSystem, obligationReference, kind } = body;
    const request = { sourceSystem, obligationReference, kind, redecConsentId: body.redecConsentId?.toLowerCase() };
    const { binding, position } = await this.commandBus.execute<BindObligationCommand, BindObligationResult>(new BindObligationCommand(request));
    reply.status(position === null ? 200 : 201);
    return {
      bindingId: binding.bindingId,
      sourceSystem: binding.sourceSystem,
      obligationReference: binding.obligationReference,
      kind: binding.kind,
      redecConsentId: binding.redecConsentId,
      internalConsentCode: binding.internalConsentCode,
      boundAt: binding.boundAt,
    };
  }
}
