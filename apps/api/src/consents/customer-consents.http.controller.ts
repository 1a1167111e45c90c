import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConsentRepresentationDto } from '../consent-representation.dto';
import { CustomerConsentsQuery } from './customer-consents.query';
import { ResourceIdPipe } from '../../../resource-id.pipe';

export class CustomerConsentDto extends ConsentRepresentationDto {
  @ApiProperty({ enum: ['redec'], description: 'The kind of consent.' }) kind!: 'redec';
  @ApiProperty({ description: 'The configuration template the consent was given under.' }) templateKey!: string;
  @ApiProperty({ type: 'integer', description: 'The configuration version the consent was given under.' }) configurationVersion!: number;
}

export class CustomerConsentListDto {
  @ApiProperty({ type: [CustomerConsentDto] }) consents!: CustomerConsentDto[];
}

@ApiTags('customers')
@ApiBearerAuth()
@Controller('v1/customers')
export class CustomerConsentsHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get(':customerId/consents')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    summary: "A customer's consents, oldest first",
    description: "Public references, effective state and relevant dates; no identity material. A customer of another tenant is 404.",
  })
  @ApiOkResponse({ type: CustomerConsentListDto })
  list(@Param('customerId', new ResourceIdPipe('customer')) customerId: string, @CurrentPrincipal() principal: Principal): Promise<CustomerConsentListDto> {
    return this.queryBus.execute(new CustomerConsentsQuery(principal.tenantId, customerId));
  }
}
