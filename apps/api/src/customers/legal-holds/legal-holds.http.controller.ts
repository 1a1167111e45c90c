import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CurrentPrincipal, Idempotent, RequireScopes } from '@ledger/http';
import { readLegalHolds } from '@ledger/ledger';
import { Principal, Scopes } from '@ledger/platform';
import { ProblemResponses } from '../../openapi/problem-responses';
import { ResourceIdPipe } from '../../resource-id.pipe';
import { LegalHoldListDto, LegalHoldResponseDto, PlaceLegalHoldRequestDto } from './legal-hold.dto';
import { PlaceLegalHoldCommand, ReleaseLegalHoldCommand } from './legal-holds.commands';

@ApiTags('customers')
@ApiBearerAuth()
@Controller('v1/customers/:customerId/legal-holds')
export class LegalHoldsHttpController {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'placeLegalHold',
    summary: "Place a legal hold on a customer's data",
    description:
      "While any hold is in force, `ledger retention erase` passes the customer by (it is counted in `skippedOnHold`) even when every consent is past its retention floor (docs/data-lifecycle.md, decision 0036). " +
      'A hold changes nothing else: consents, accesses and reads behave as before. A customer may have several holds; each is released on its own. ' +
      "A hold on a customer whose data was already erased is 409 `customer_data_erased`. `reason` and `reference` stay in the ledger after an erasure: they must name the case, never the person. Scope `consent:admin`; Idempotency-Key required.",
  })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['customer_data_erased', 'concurrent_change'] })
  @ApiCreatedResponse({ type: LegalHoldResponseDto })
  place(@Param('customerId', new ResourceIdPipe('customer')) customerId: string, @Body() body: PlaceLegalHoldRequestDto): Promise<LegalHoldResponseDto> {
    return this.commandBus.execute(new PlaceLegalHoldCommand(customerId, { reason: body.reason, reference: body.reference }));
  }

  @Post(':legalHoldId/release')
  @HttpCode(200)
  @RequireScopes(Scopes.ADMIN)
  @Idempotent({ required: true })
  @ApiOperation({
    operationId: 'releaseLegalHold',
    summary: 'Release a legal hold',
    description:
      'The hold stays in the customer\'s history with its `releasedAt`; once no hold is in force, the customer is erased by the next `ledger retention erase` if every consent is past its floor. ' +
      'A second release is 409 `legal_hold_already_released`. Scope `consent:admin`; Idempotency-Key required.',
  })
  @ProblemResponses({ 404: ['NOT_FOUND'], 409: ['legal_hold_already_released', 'concurrent_change'] })
  @ApiOkResponse({ type: LegalHoldResponseDto })
  release(
    @Param('customerId', new ResourceIdPipe('customer')) customerId: string,
    @Param('legalHoldId', new ResourceIdPipe('legal hold')) legalHoldId: string,
  ): Promise<LegalHoldResponseDto> {
    return this.commandBus.execute(new ReleaseLegalHoldCommand(customerId, legalHoldId));
  }

  @Get()
  @RequireScopes(Scopes.READ)
  @ApiOperation({ operationId: 'listLegalHolds', summary: "A customer's legal holds, in force and released, oldest first" })
  @ProblemResponses({ 404: ['NOT_FOUND'] })
  @ApiOkResponse({ type: LegalHoldListDto })
  async list(@Param('customerId', new ResourceIdPipe('customer')) customerId: string, @CurrentPrincipal() principal: Principal): Promise<LegalHoldListDto> {
    const holds = await readLegalHolds(this.store, principal.tenantId, customerId);
    return { items: holds.map((hold) => ({ customerId, ...hold })) };
  }
}
