import { Body, Controller, Get, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { signOutOfConsole } from '@ledger/console';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { BodyLimit, Public } from '@ledger/http';
import { loadTenant, tenantDisplayName } from '@ledger/ledger';
import { Scopes } from '@ledger/platform';
import { formRefusedPage, homePage } from './console-html';
import { ConsolePageFilter } from './console-page.filter';
import { ConsoleSessions } from './console-sessions';

/** The console's first page, and signing out; anyone without an open session is sent to the sign-in. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console')
export class ConsoleHomeHttpController {
  constructor(
    private readonly sessions: ConsoleSessions,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get()
  @Public()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // Every role reads.
    const session = await this.sessions.signedIn(request, reply, Scopes.READ);
    if (!session) return;
    const tenant = await loadTenant(this.store, session.user.tenantId);
    this.sessions.send(reply, 200, homePage(this.sessions.signedInView(request, session), { tenantName: tenantDisplayName(tenant), role: session.user.role, expiresAt: session.user.sessions[session.sessionSha256] }));
  }

  @Post('sign-out')
  @Public()
  // The session's token alone.
  @BodyLimit(1024)
  async signOut(@Body() form: Record<string, unknown> | undefined, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = await this.sessions.session(request);
    if (!session || !this.sessions.genuine(request, form?.csrf, session.csrfToken)) return this.sessions.send(reply, 403, formRefusedPage(this.sessions.view(request)));
    await signOutOfConsole(this.sessions.deps, session, this.sessions.sessionContext(session));
    this.sessions.endSession(reply);
    this.sessions.seeOther(reply, '/sign-in');
  }
}
