import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { CreditExtensionAnswer } from '@ledger/redec';
import { CreditExtensionResponseDto } from '../credit-extension.dto';
import { EndCreditExtensionCommand, RegisterCreditExtensionCommand } from './credit-extension.commands';
import { EndCreditExtensionRequestDto, RegisterCreditExtensionRequestDto } from './credit-extension.request.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents/:redecConsentId/credit-extensions')
export class CreditExtensionsHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    summary: 'Register a credit extension of a consent (spec 2.10)',
    description:
      'The bank confirms a credit was granted under this consent: the consent becomes `extended` and authorizations in mode `credit_lifecycle_extension` cover that exact obligation. ' +
      "Registering produces the obligation's binding (spec 2.11): `GET /v1/redec/reportable-obligations/consent-code` with the consent's obligation source system and this creditOperationReference answers the consent's internal code. " +
      "customerTenantId must be the consent's customer (422 `redec_credit_extension_customer_mismatch`); the objective must be granted (422 `redec_objective_not_granted`); " +
      'the credit must have been granted inside the initial window (422 `redec_credit_granted_outside_initial_window`) and not after the receipt (400). ' +
      'A credit granted before an accepted revocation corrects it (append-only: `effective: false`, `correctedAt`) and needs a non-empty sourceReference ' +
      '(422 `redec_revocation_correction_requires_source_reference`); a credit granted after an effective revocation cannot extend the consent (409 `redec_consent_revoked`). ' +
      'An active extension for the same creditOperationReference is 409 `redec_credit_extension_already_registered`. Idempotency-Key required.',
  })
  @ApiCreatedResponse({ type: CreditExtensionResponseDto })
  register(@Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string, @Body() body: RegisterCreditExtensionRequestDto): Promise<CreditExtensionAnswer> {
    const { customerTenantId, objectiveCode, creditOperationReference, creditGrantedAt, sourceSystem, sourceReference } = body;
    const request = { customerTenantId, objectiveCode, creditOperationReference, creditGrantedAt, sourceSystem, sourceReference };
    return this.commandBus.execute(new RegisterCreditExtensionCommand(redecConsentId, request));
  }

  @Post(':creditExtensionId/end')
  @HttpCode(200)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    summary: 'Report the end of a credit extension, once (spec 2.10)',
    description:
      '`supersededByObligationReference` is required with `superseded_by_new_obligation` and refused with the other reasons; the new obligation does not inherit the consent. ' +
      'A second end is 409 `redec_credit_extension_already_ended`; an exact retry with the same Idempotency-Key answers the first end. ' +
      'Once every extension has ended the consent is `expired`, or `revoked` when a revocation was kept without effect (docs/decisions/0015).',
  })
  @ApiOkResponse({ type: CreditExtensionResponseDto })
  end(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @Param('creditExtensionId', new ResourceIdPipe('credit extension')) creditExtensionId: string,
    @Body() body: EndCreditExtensionRequestDto,
  ): Promise<CreditExtensionAnswer> {
    const { endReason, supersededByObligationReference } = body;
    return this.commandBus.execute(new EndCreditExtensionCommand(redecConsentId, creditExtensionId, { endReason, supersededByObligationReference }));
  }
}
