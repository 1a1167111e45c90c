import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { FieldError, Principal, Scopes, validationError } from '@ledger/platform';
import { CreateInteractionResult, CustomerReference } from '@ledger/redec';
import { CreateInteractionCommand } from './create-interaction.command';
import { CreateInteractionRequestDto, CreateInteractionResponseDto, CustomerReferenceDto } from './create-interaction.request.dto';
import { ProblemResponses } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/consent-interactions')
export class CreateInteractionHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @ApiOperation({
    operationId: 'createRedecConsentInteraction',
    summary: 'Open a consent interaction on a REDEC configuration',
    description:
      'Links the data subject to a published configuration that includes REDEC, resolving the customer inline (`userReference` + `identifiers`, with the rules of customer resolution) or by `customerId`. ' +
      "The identifiers and their provenance must satisfy the configuration's channel under its Regulatory Profile (400 `identifiers_do_not_satisfy_profile`). The configuration version is frozen for the grant.",
  })
  @ApiCreatedResponse({ type: CreateInteractionResponseDto })
  @ProblemResponses({
    404: ['NOT_FOUND'],
    409: [
      'redec_configuration_required',
      'regulatory_profile_unavailable',
      'CUSTOMER_IDENTITY_CONFLICT',
      'CUSTOMER_RESOLUTION_IN_PROGRESS',
      'customer_data_erased',
      'concurrent_change',
    ],
  })
  async create(@Body() body: CreateInteractionRequestDto, @CurrentPrincipal() principal: Principal): Promise<CreateInteractionResponseDto> {
    if (body.identifiers?.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const result = await this.commandBus.execute<CreateInteractionCommand, CreateInteractionResult>(new CreateInteractionCommand({ configurationId: body.configurationId, dataSubjectName: body.dataSubjectName ?? null, ...customerReference(body) }, 'redec'));
    return { interactionId: result.interactionId, customerId: result.customerId, configurationId: result.configurationId, customerCreated: result.customerCreated };
  }
}

/** Exactly one way to name the customer: `customerId`, or `userReference` with `identifiers`. */
export function customerReference(body: CustomerReferenceDto): CustomerReference {
  const { customerId, userReference, identifiers } = body;
  if (customerId !== undefined && userReference === undefined && identifiers === undefined) return { customerId };
  if (customerId === undefined && userReference !== undefined && identifiers !== undefined) return { userReference, identifiers };
  const errors: FieldError[] =
    customerId !== undefined
      ? [userReference, identifiers].flatMap((v, i) => (v === undefined ? [] : [{ field: i === 0 ? 'userReference' : 'identifiers', reason: 'not_with_customer_id' }]))
      : [{ field: userReference === undefined ? 'userReference' : 'identifiers', reason: 'required' }];
  throw validationError('Send either customerId, or userReference with identifiers.', { reason: 'customer_reference_required', errors });
}
