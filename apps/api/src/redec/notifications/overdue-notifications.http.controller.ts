import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsDefined, IsInt, Max, Min } from 'class-validator';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes } from '@ledger/platform';
import { QueryInteger } from '../../dto-fields';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from '../../page-query.dto';
import { OverdueNotificationsQuery } from './overdue-notifications.query';
import { ProblemResponses, ReadsReadModel } from '../../openapi/problem-responses';

export class OverdueNotificationsQueryDto extends PageQueryDto {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 60, description: 'How many banking business days after the grant or the effective revocation a notice is overdue.' })
  @IsDefined()
  @QueryInteger()
  @IsInt()
  @Min(0)
  @Max(60)
  afterBankingDays!: number;
}

class OverdueNotificationDto {
  @ApiProperty({ format: 'uuid' }) redecConsentId!: string;
  @ApiProperty() internalConsentCode!: string;
  @ApiProperty({ enum: ['grant', 'revoke'] }) reason!: string;
  @ApiProperty({ type: 'integer', description: 'When the notice became owed (epoch ms): the grant\'s grantedAt, or the revocation\'s effectiveAt.' }) actionAt!: number;
  @ApiProperty({ format: 'uuid', description: 'The grant or revocation action the notification evidence must name.' }) consentActionId!: string;
  @ApiProperty({ type: 'integer', description: 'The end (America/Santiago) of the last banking day the notice was due on (epoch ms).' }) dueAt!: number;
}

class OverdueNotificationsDto {
  @ApiProperty({ type: [OverdueNotificationDto] }) items!: OverdueNotificationDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null after the last.' }) nextCursor!: string | null;
}

@ApiTags('redec')
@ApiBearerAuth()
@Controller('v1/redec/notifications')
export class OverdueNotificationsHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @ReadsReadModel()
  @Get('overdue')
  @RequireScopes(Scopes.READ)
  @ApiOperation({
    operationId: 'listOverdueNotifications',
    summary: 'Notices the bank still owes the data subject, overdue after N banking days',
    description:
      'Each grant, and each revocation in effect, whose action no notification evidence names (`sent`, `delivered` or `bounced`: all say the notice was sent) ' +
      'by the end (America/Santiago) of the `afterBankingDays`-th banking business day after it: after the grant\'s `grantedAt`, or after the revocation\'s `effectiveAt`. ' +
      'Oldest first; a consent appears once per notice it lacks. Paged with `limit` and `cursor` (400 `invalid_cursor` for a cursor this list did not hand out). Scope `consent:read`.',
  })
  @ApiOkResponse({ type: OverdueNotificationsDto })
  @ProblemResponses({ 503: ['banking_calendar_out_of_range'] })
  list(@Query() query: OverdueNotificationsQueryDto, @CurrentPrincipal() principal: Principal): Promise<OverdueNotificationsDto> {
    const { afterBankingDays, limit = DEFAULT_PAGE_LIMIT, cursor = null } = query;
    return this.queryBus.execute(new OverdueNotificationsQuery(principal.tenantId, { afterBankingDays, limit, cursor }));
  }
}
