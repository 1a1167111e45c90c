import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent, RequireScopes } from '@ledger/http';
import { Scopes } from '@ledger/platform';
import { CreditExtensionAnnulmentAnswer, CreditExtensionAnswer } from '@ledger/redec';
import { CreditExtensionAnnulmentResponseDto, CreditExtensionResponseDto } from '../credit-extension.dto';
import { AnnulCreditExtensionCommand, EndCreditExtensionCommand, RegisterCreditExtensionCommand } from './credit-extension.commands';
import { EndCreditExtensionRequestDto, RegisterCreditExtensionRequestDto } from './credit-extension.request.dto';
import { AnnulRequestDto } from '../../annul-request.dto';
import { ResourceIdPipe } from '../../../resource-id.pipe';
import { ProblemResponses, ReadsReadModel } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consents/:redecConsentId/credit-extensions')
export class CreditExtensionsHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @ReadsReadModel()
  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'registerCreditExtension',
    summary: 'Register a credit extension of a consent',
    description:
      'The bank confirms a credit was granted under this consent: the consent becomes `extended` and authorizations in mode `credit_lifecycle_extension` cover that exact obligation. ' +
      "Registering produces the obligation's binding: `GET /v1/redec/reportable-obligations/consent-code` with the consent's obligation source system and this creditOperationReference answers the consent's internal code. " +
      "customerTenantId must be the consent's customer (422 `redec_credit_extension_customer_mismatch`; a UUID compares without regard to case); the objective must be granted (422 `redec_objective_not_granted`); " +
      'the credit must have been granted inside the initial window (422 `redec_credit_granted_outside_initial_window`) and not after the receipt (400). ' +
      'A credit granted at or after the instant of any revocation of the consent, effective or kept, cannot extend it (422 `redec_credit_granted_after_revocation`). ' +
      'A credit granted before a recorded revocation needs a non-empty sourceReference (422 `redec_revocation_correction_requires_source_reference`), ' +
      'and corrects an effective one (append-only: `effective: false`, `correctedAt`). ' +
      'An obligation named as `supersededByObligationReference` by the end of one of this consent\'s extensions does not inherit it (422 `redec_superseding_obligation_does_not_inherit_consent`). ' +
      'An active extension for the same creditOperationReference is 409 `redec_credit_extension_already_registered`; an obligation whose extension ended, on any consent of the tenant, ' +
      'is 409 `redec_credit_extension_already_ended` (its end is reported once). Idempotency-Key required.',
  })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: ['redec_credit_extension_already_registered', 'redec_credit_extension_already_ended', 'concurrent_change'],
    422: [
      'redec_credit_extension_customer_mismatch',
      'redec_objective_not_granted',
      'redec_credit_granted_outside_initial_window',
      'redec_credit_granted_after_revocation',
      'redec_superseding_obligation_does_not_inherit_consent',
      'redec_revocation_correction_requires_source_reference',
    ],
    503: ['read_model_behind'],
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
    operationId: 'endCreditExtension',
    summary: 'Report the end of a credit extension, once',
    description:
      '`supersededByObligationReference` is required with `superseded_by_new_obligation` and refused with the other reasons; the new obligation does not inherit the consent: ' +
      'it can not be extended or bound to it, and the consent-code lookup never answers this consent\'s code for it. ' +
      '`occurredAt` (optional, default the receipt) is when the obligation ended: it becomes `endedAt`. ' +
      'A second end is 409 `redec_credit_extension_already_ended`; an exact retry with the same Idempotency-Key answers the first end; an annulled extension is 409 `redec_credit_extension_annulled`. ' +
      'Once every extension has ended the consent is `expired` (retentionBasis: how the last obligation ended, or `loss_of_validity`), or `revoked` when a revocation was kept without effect: ' +
      'it takes effect at `endedAt` (`revocation.effective: true`, `revocation.effectiveAt`), recorded as a `RevocationTookEffect` fact (docs/decisions/0023).',
  })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: ['redec_credit_extension_already_ended', 'redec_credit_extension_annulled', 'regulatory_profile_unavailable', 'concurrent_change'],
  })
  @ApiOkResponse({ type: CreditExtensionResponseDto })
  end(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @Param('creditExtensionId', new ResourceIdPipe('credit extension')) creditExtensionId: string,
    @Body() body: EndCreditExtensionRequestDto,
  ): Promise<CreditExtensionAnswer> {
    const { endReason, supersededByObligationReference, occurredAt } = body;
    return this.commandBus.execute(new EndCreditExtensionCommand(redecConsentId, creditExtensionId, { endReason, supersededByObligationReference, occurredAt }));
  }

  @Post(':creditExtensionId/annul')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'annulCreditExtension',
    summary: 'Annul a credit extension registered by mistake',
    description:
      'Append-only: the registration (and its end, and any revocation correction it caused) stays in the stream and in the audit replay, while the regulatory read and the consent-code lookup behave as if ' +
      'it had never been registered; the obligation can be registered again. When it was the last active extension over a revocation kept without effect, the revocation takes effect. ' +
      'A second annulment is 409 `redec_credit_extension_annulled`; an annulment is never annulled. Scope `consent:admin`; Idempotency-Key required.',
  })
  @ApiOkResponse({ type: CreditExtensionAnnulmentResponseDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['redec_credit_extension_annulled', 'concurrent_change'] })
  annul(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @Param('creditExtensionId', new ResourceIdPipe('credit extension')) creditExtensionId: string,
    @Body() body: AnnulRequestDto,
  ): Promise<CreditExtensionAnnulmentAnswer> {
    const { reason, sourceReference } = body;
    return this.commandBus.execute(new AnnulCreditExtensionCommand(redecConsentId, creditExtensionId, 'credit_extension', { reason, sourceReference }));
  }

  @Post(':creditExtensionId/end/annul')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'annulCreditExtensionEnd',
    summary: 'Annul the end of a credit extension reported by mistake',
    description:
      'Append-only: the end stays in the stream and in the audit replay, while the read and the lookup behave as if it had not been reported: the extension is active again (and can be ended anew), ' +
      'an obligation it named as superseding is no longer kept from the consent, and a revocation that took effect at that end is kept without effect again (recorded as a `RevocationCorrected` fact). ' +
      'An extension without an end in force is 409 `redec_credit_extension_not_ended`; an annulled extension is 409 `redec_credit_extension_annulled`. Scope `consent:admin`; Idempotency-Key required.',
  })
  @ApiOkResponse({ type: CreditExtensionAnnulmentResponseDto })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['redec_credit_extension_not_ended', 'redec_credit_extension_annulled', 'concurrent_change'] })
  annulEnd(
    @Param('redecConsentId', new ResourceIdPipe('consent')) redecConsentId: string,
    @Param('creditExtensionId', new ResourceIdPipe('credit extension')) creditExtensionId: string,
    @Body() body: AnnulRequestDto,
  ): Promise<CreditExtensionAnnulmentAnswer> {
    const { reason, sourceReference } = body;
    return this.commandBus.execute(new AnnulCreditExtensionCommand(redecConsentId, creditExtensionId, 'credit_extension_end', { reason, sourceReference }));
  }
}
