import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { BankingCalendar, OverdueNotification, listOverdueNotifications } from '@ledger/redec';
import { BANKING_CALENDAR } from '../banking-calendar.provider';

/** One page of the notices the tenant still owes, overdue `afterBankingDays` banking days on, as of the service clock: for the API and the console. */
export class OverdueNotificationsQuery {
  constructor(
    readonly tenantId: string,
    readonly page: { afterBankingDays: number; limit: number; cursor: string | null },
  ) {}
}

@QueryHandler(OverdueNotificationsQuery)
export class OverdueNotificationsHandler implements IQueryHandler<OverdueNotificationsQuery, { items: OverdueNotification[]; nextCursor: string | null }> {
  constructor(
    private readonly readModel: ReadModel,
    @Inject(BANKING_CALENDAR) private readonly calendar: BankingCalendar,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ tenantId, page }: OverdueNotificationsQuery): Promise<{ items: OverdueNotification[]; nextCursor: string | null }> {
    return listOverdueNotifications(this.readModel, this.calendar, tenantId, { ...page, now: this.clock.now() });
  }
}
