import { Controller, Get, Query, Req, Res, UseFilters } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@ledger/http';
import { DomainError, Scopes } from '@ledger/platform';
import { OverdueNotification } from '@ledger/redec';
import { OverdueNotificationsQuery } from '../redec/notifications/overdue-notifications.query';
import { overdueNoticesPage } from './console-html';
import { ConsolePageFilter } from './console-page.filter';
import { ConsoleSessions } from './console-sessions';
import { csvLine } from './csv';

/** Notices are owed this many banking days on unless the person asks otherwise: the bank's own deadline is not in the ledger (docs/console.md). */
const DEFAULT_AFTER_BANKING_DAYS = 2;
const PAGE = 50;
/** Rows a CSV export reads from the read model at a time. */
const EXPORT_PAGE = 500;

type Listed = { items: OverdueNotification[]; nextCursor: string | null };

/** `afterBankingDays` as the list's form sends it: an integer 0 to 60, the API's bounds; anything else, the default. */
function afterBankingDaysOf(value: unknown): number {
  const days = typeof value === 'string' && /^\d{1,2}$/.test(value) ? Number(value) : NaN;
  return days >= 0 && days <= 60 ? days : DEFAULT_AFTER_BANKING_DAYS;
}

/**
 * The lists that keep the bank compliant, by the API's own queries under
 * the person's role (consent:read): each a page at a time, and whole as CSV.
 */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console/notices')
export class ConsoleListsHttpController {
  constructor(
    private readonly sessions: ConsoleSessions,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('overdue')
  @Public()
  async overdue(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const afterBankingDays = afterBankingDaysOf(query.afterBankingDays);
    const cursor = typeof query.cursor === 'string' ? query.cursor : null;
    let listed: Listed;
    try {
      listed = await this.queryBus.execute(new OverdueNotificationsQuery(session.principal.tenantId, { afterBankingDays, limit: PAGE, cursor }));
    } catch (error) {
      // A cursor this list did not hand out starts the list again.
      if (!(error instanceof DomainError && error.kind === 'validation' && cursor !== null)) throw error;
      listed = await this.queryBus.execute(new OverdueNotificationsQuery(session.principal.tenantId, { afterBankingDays, limit: PAGE, cursor: null }));
    }
    this.sessions.send(reply, 200, overdueNoticesPage(this.sessions.signedInView(request, session), afterBankingDays, listed, session.principal.scopes.includes(Scopes.RUNTIME)));
  }

  @Get('overdue.csv')
  @Public()
  async overdueCsv(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const afterBankingDays = afterBankingDaysOf(query.afterBankingDays);
    const { tenantId } = session.principal;
    const queryBus = this.queryBus;
    // Page by page as the client reads: a long list is never held whole.
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(['internalConsentCode', 'redecConsentId', 'reason', 'actionAt', 'dueAt', 'consentActionId']);
      for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
        const listed: Listed = await queryBus.execute(new OverdueNotificationsQuery(tenantId, { afterBankingDays, limit: EXPORT_PAGE, cursor }));
        for (const notice of listed.items) {
          yield csvLine([notice.internalConsentCode, notice.redecConsentId, notice.reason, new Date(notice.actionAt).toISOString(), new Date(notice.dueAt).toISOString(), notice.consentActionId]);
        }
        cursor = listed.nextCursor;
      }
    }
    void reply
      .status(200)
      .headers({
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="overdue-notices-${afterBankingDays}-banking-days.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(Readable.from(lines()));
  }
}
