import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  ConsentOnPage,
  OpenPrivacyCenterRequest,
  OpenedPrivacyCenterSession,
  PageRevocation,
  PageRightsRequest,
  PagePresentation,
  PrivacyCenterDependencies,
  PrivacyCenterSession,
  fileOnPrivacyCenter,
  codesShownBy,
  endPrivacyCenterSession,
  openPrivacyCenterSession,
  pagePresentationOf,
  readableTermsMissing,
  readPrivacyCenterSession,
  revokeOnPrivacyCenter,
} from '@ledger/embed';
import { loadTenant } from '@ledger/ledger';
import { CLOCK, Clock, requireContext } from '@ledger/platform';
import { SubjectRecords } from '@ledger/redec';
import { CAPTURE_DEPENDENCIES } from '../capture-dependencies';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands, RequestContext } from '../request-commands';
import { SubjectReports } from '../rights-requests/subject-reports';

export class OpenPrivacyCenterSessionCommand {
  constructor(readonly request: OpenPrivacyCenterRequest) {}
}

@CommandHandler(OpenPrivacyCenterSessionCommand)
export class OpenPrivacyCenterSessionHandler implements ICommandHandler<OpenPrivacyCenterSessionCommand, OpenedPrivacyCenterSession> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    private readonly commands: RequestCommands,
    private readonly subjectReports: SubjectReports,
  ) {}

  execute({ request }: OpenPrivacyCenterSessionCommand): Promise<OpenedPrivacyCenterSession> {
    return this.commands.run(async (_store, context) => {
      const opened = await openPrivacyCenterSession(this.deps, request, context, (customerId) => this.checkReadable(customerId, context));
      return { result: opened, position: opened.position };
    });
  }

  /**
   * A page never shows a person a code without its meaning (decision 0075):
   * a customer whose consents or accesses use one the bank's presentation
   * does not explain is refused, naming where each meaning goes.
   */
  private async checkReadable(customerId: string, context: RequestContext): Promise<void> {
    await this.commands.readModelCaughtUp();
    const [records, tenant] = await Promise.all([this.subjectReports.recordsOf(customerId, context.now, context.tenantId), loadTenant(this.deps.store, context.tenantId)]);
    const { terms } = pagePresentationOf(tenant);
    const unexplained = codesShownBy(records).filter(({ kind, code }) => terms.meaningOf(kind, code) === null);
    if (unexplained.length > 0) throw readableTermsMissing(unexplained);
  }
}

/**
 * The page acts for the data subject, not for an API key: the tenant comes
 * from the page's address (checked by the session's token), the actor is the
 * page itself.
 */
function privacyCenterContext(clock: Clock, tenantId: string): RequestContext {
  return { tenantId, actor: 'privacy-center', correlationId: requireContext().correlationId, now: clock.now() };
}

/** The session a page's token opens, and the bank as it presents itself. */
export interface PrivacyCenterAccess {
  session: PrivacyCenterSession;
  presentation: PagePresentation;
}

/** A page's session, read before anything else a request to the page does. */
export class ReadPrivacyCenterSessionQuery {
  constructor(
    readonly tenantId: string,
    readonly sessionId: string,
    readonly pageToken: string,
  ) {}
}

@QueryHandler(ReadPrivacyCenterSessionQuery)
export class ReadPrivacyCenterSessionHandler implements IQueryHandler<ReadPrivacyCenterSessionQuery, PrivacyCenterAccess> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ tenantId, sessionId, pageToken }: ReadPrivacyCenterSessionQuery): Promise<PrivacyCenterAccess> {
    const context = privacyCenterContext(this.clock, tenantId);
    const [session, tenant] = await Promise.all([readPrivacyCenterSession(this.deps, sessionId, pageToken, context), loadTenant(this.deps.store, tenantId)]);
    return { session, presentation: pagePresentationOf(tenant) };
  }
}

/** What the center shows: the person's records now, read as the subject's report reads them, once the read model has caught up. */
export class PrivacyCenterRecordsQuery {
  constructor(readonly session: PrivacyCenterSession, readonly tenantId: string) {}
}

@QueryHandler(PrivacyCenterRecordsQuery)
export class PrivacyCenterRecordsHandler implements IQueryHandler<PrivacyCenterRecordsQuery, SubjectRecords> {
  constructor(
    private readonly subjectReports: SubjectReports,
    private readonly commands: RequestCommands,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ session, tenantId }: PrivacyCenterRecordsQuery): Promise<SubjectRecords> {
    await this.commands.readModelCaughtUp();
    return this.subjectReports.recordsOf(session.customerId, this.clock.now(), tenantId);
  }
}

export class RevokeOnPrivacyCenterCommand {
  constructor(readonly session: PrivacyCenterSession, readonly tenantId: string, readonly consent: ConsentOnPage) {}
}

@CommandHandler(RevokeOnPrivacyCenterCommand)
export class RevokeOnPrivacyCenterHandler implements ICommandHandler<RevokeOnPrivacyCenterCommand, PageRevocation> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ session, tenantId, consent }: RevokeOnPrivacyCenterCommand): Promise<PageRevocation> {
    const revoked = await revokeOnPrivacyCenter(this.deps, session, consent, privacyCenterContext(this.clock, tenantId));
    // The page the browser is sent back to must already show it.
    await this.readYourWrites.waitFor(revoked.position);
    return revoked;
  }
}

export class FileOnPrivacyCenterCommand {
  constructor(readonly session: PrivacyCenterSession, readonly tenantId: string, readonly request: PageRightsRequest) {}
}

@CommandHandler(FileOnPrivacyCenterCommand)
export class FileOnPrivacyCenterHandler implements ICommandHandler<FileOnPrivacyCenterCommand, void> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ session, tenantId, request }: FileOnPrivacyCenterCommand): Promise<void> {
    const filed = await fileOnPrivacyCenter(this.deps, session, request, privacyCenterContext(this.clock, tenantId));
    await this.readYourWrites.waitFor(filed.position);
  }
}

/** The person ends the session on the page. */
export class EndPrivacyCenterSessionCommand {
  constructor(readonly session: PrivacyCenterSession, readonly tenantId: string) {}
}

@CommandHandler(EndPrivacyCenterSessionCommand)
export class EndPrivacyCenterSessionHandler implements ICommandHandler<EndPrivacyCenterSessionCommand, void> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ session, tenantId }: EndPrivacyCenterSessionCommand): Promise<void> {
    return endPrivacyCenterSession(this.deps, session.sessionId, privacyCenterContext(this.clock, tenantId));
  }
}

/** The bank ends a session it opened (its own online banking session ended, say). */
export class EndPrivacyCenterSessionByBankCommand {
  constructor(readonly sessionId: string) {}
}

@CommandHandler(EndPrivacyCenterSessionByBankCommand)
export class EndPrivacyCenterSessionByBankHandler implements ICommandHandler<EndPrivacyCenterSessionByBankCommand, void> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: PrivacyCenterDependencies,
    private readonly commands: RequestCommands,
  ) {}

  async execute({ sessionId }: EndPrivacyCenterSessionByBankCommand): Promise<void> {
    await endPrivacyCenterSession(this.deps, sessionId, this.commands.context());
  }
}
