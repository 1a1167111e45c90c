import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { ConsentCodeDto, ConsentCodeQueryDto } from './consent-code.dto';
import { ConsentCodeQuery } from './consent-code.query';
import { ReadsReadModel } from '../../../openapi/problem-responses';

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/reportable-obligations')
export class ConsentCodeHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get('consent-code')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'lookupInternalConsentCode',
    summary: 'The consent code to report for an obligation',
    description:
      'Looks up exactly the obligation `sourceSystem` + `obligationReference` of this tenant, never by customer, latest consent or a similar operation. `result` is: ' +
      '`consent_code`: `consentCode` is the internal code frozen for that obligation; ' +
      '`legacy_pre_redec`: `consentCode` is the 20-character fixed-width field of twenty `9`; ' +
      '`no_applicable_consent`: `consentCode` is the 20-character field of twenty `0`; ' +
      '`unresolved` (no binding in force) or `ambiguous` (bindings that disagree): `consentCode` is null, and the bank must stop generating RDC01/RDC02 for the obligation and reconcile the data. ' +
      'Annulled bindings and extensions count as never recorded. An obligation named as `supersededByObligationReference` by the end of an extension does not inherit that consent: a binding of it to that consent is not counted. ' +
      "A binding to a consent counts only while the consent's facts, as they stand now, say it enabled access for the obligation when it was granted, and an extension only while it keeps the consent: " +
      'a revocation reported after the binding but dated before the obligation was granted takes the code away, as the same binding reported after it is refused (decision 0054). ' +
      'The 9s and 0s are written only here; they are never stored as codes.',
  })
  @ApiOkResponse({ type: ConsentCodeDto, description: 'Every result, `unresolved` and `ambiguous` included, is an answer, not an error.' })
  lookup(@Query() query: ConsentCodeQueryDto, @CurrentPrincipal() principal: Principal): Promise<ConsentCodeDto> {
    return this.queryBus.execute(new ConsentCodeQuery(principal.tenantId, query.sourceSystem, query.obligationReference));
  }
}
