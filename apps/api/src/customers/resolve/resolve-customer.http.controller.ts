import { Body, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, Idempotent, RequireScopes, assertScope } from '@ledger/http';
import { ResolveCustomerResult } from '@ledger/ledger';
import { Principal, Scopes } from '@ledger/platform';
import { ResolveCustomerCommand } from './resolve-customer.command';
import { ResolveCustomerRequestDto, ResolveCustomerResponseDto } from './resolve-customer.request.dto';
import { ProblemResponses } from '../../openapi/problem-responses';

@ApiTags('customers')
@ApiBearerAuth()
@Controller('v1/customers')
export class ResolveCustomerHttpController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('resolve')
  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @ApiOperation({
    operationId: 'resolveCustomer',
    summary: 'Resolve the Customer an integrator is dealing with',
    description:
      'Creates no consent. The same userReference with compatible identifiers resolves to the same customer; an incompatible reference or identity fails closed with 409 CUSTOMER_IDENTITY_CONFLICT. ' +
      '`identifiers[].verification` requires the scope `consent:identity-assert`. An optional Idempotency-Key replays the first answer exactly.',
  })
  @ApiCreatedResponse({ type: ResolveCustomerResponseDto, description: 'First resolution: `created: true`.' })
  @ApiOkResponse({ type: ResolveCustomerResponseDto, description: 'Compatible repeat: the same customerId, `created: false`.' })
  @ProblemResponses({ 409: ['CUSTOMER_IDENTITY_CONFLICT', 'CUSTOMER_RESOLUTION_IN_PROGRESS', 'customer_data_erased', 'concurrent_change'] })
  async resolve(
    @Body() body: ResolveCustomerRequestDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ResolveCustomerResponseDto> {
    if (body.identifiers.some((i) => i.verification)) assertScope(principal, Scopes.IDENTITY_ASSERT);
    const result = await this.commandBus.execute<ResolveCustomerCommand, ResolveCustomerResult>(new ResolveCustomerCommand(body));
    reply.status(result.created ? 201 : 200);
    return { customerId: result.customerId, created: result.created, identifiers: result.identifiers };
  }
}
