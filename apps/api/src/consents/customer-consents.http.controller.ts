import { Controller, Get, Param } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProperty, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConsentRepresentationDto } from '../redec/consents/consent-representation.dto';
import { ResourceIdPipe } from '../resource-id.pipe';
import { CustomerConsent, CustomerConsentsQuery } from './customer-consents.query';
import { GeneralConsentDto } from './general-consent.dto';
import { ReadsReadModel } from '../openapi/problem-responses';

export class CustomerRedecConsentDto extends ConsentRepresentationDto {
  @ApiProperty({ enum: ['redec'], description: 'The kind of consent.' }) kind!: 'redec';
  @ApiProperty({ description: 'The configuration template the consent was given under.' }) templateKey!: string;
  @ApiProperty({ type: 'integer', description: 'The configuration version the consent was given under.' }) configurationVersion!: number;
}

export class CustomerConsentListDto {
  @ApiProperty({
    description: 'REDEC consents (`kind: redec`, with the regulatory representation) and general consents (`kind: general`), oldest grant first.',
    type: 'array',
    items: {
      oneOf: [{ $ref: getSchemaPath(CustomerRedecConsentDto) }, { $ref: getSchemaPath(GeneralConsentDto) }],
      discriminator: { propertyName: 'kind', mapping: { redec: getSchemaPath(CustomerRedecConsentDto), general: getSchemaPath(GeneralConsentDto) } },
    },
  })
  consents!: CustomerConsent[];
}

@ApiTags('customers')
@ApiBearerAuth()
@ApiExtraModels(CustomerRedecConsentDto, GeneralConsentDto)
@Controller('v1/customers')
export class CustomerConsentsHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get(':customerId/consents')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listCustomerConsents',
    summary: "A customer's general and REDEC consents, oldest first",
    description: 'Public references, template key and version, effective state and relevant dates; no identity material. A customer of another tenant is 404.',
  })
  @ApiOkResponse({ type: CustomerConsentListDto })
  list(@Param('customerId', new ResourceIdPipe('customer')) customerId: string, @CurrentPrincipal() principal: Principal): Promise<CustomerConsentListDto> {
    return this.queryBus.execute(new CustomerConsentsQuery(principal.tenantId, customerId));
  }
}
