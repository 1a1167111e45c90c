import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  ConsentPageSession,
  EmbedDecision,
  EmbedDecisionResult,
  EmbedDependencies,
  EmbedSession,
  OpenEmbedSessionRequest,
  OpenedEmbedSession,
  decideOnEmbedSession,
  embedSessionStatus,
  loadEmbedSession,
  openEmbedSession,
  readConsentPageSession,
} from '@ledger/embed';
import { CLOCK, Clock, notFound, requireContext } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { readConsent } from '../redec/consents/consent-reads';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands, RequestContext } from '../request-commands';
import { EMBED_DEPENDENCIES } from './embed-dependencies';
import { EmbedSessionStatusDto } from './embed-session.dto';

export class OpenEmbedSessionCommand {
  constructor(readonly request: OpenEmbedSessionRequest) {}
}

@CommandHandler(OpenEmbedSessionCommand)
export class OpenEmbedSessionHandler implements ICommandHandler<OpenEmbedSessionCommand, OpenedEmbedSession> {
  constructor(
    @Inject(EMBED_DEPENDENCIES) private readonly deps: EmbedDependencies,
    private readonly commands: RequestCommands,
  ) {}

  execute({ request }: OpenEmbedSessionCommand): Promise<OpenedEmbedSession> {
    return this.commands.run(async (_store, context) => {
      const opened = await openEmbedSession(this.deps, request, context);
      return { result: opened, position: opened.position };
    });
  }
}

export class EmbedSessionQuery {
  constructor(readonly sessionId: string) {}
}

/** The integrator's view of a session: its status and, once accepted, the consent it recorded. */
@QueryHandler(EmbedSessionQuery)
export class EmbedSessionHandler implements IQueryHandler<EmbedSessionQuery, EmbedSessionStatusDto> {
  constructor(
    @Inject(EMBED_DEPENDENCIES) private readonly deps: EmbedDependencies,
    private readonly commands: RequestCommands,
    private readonly readModel: ReadModel,
  ) {}

  async execute({ sessionId }: EmbedSessionQuery): Promise<EmbedSessionStatusDto> {
    const context = this.commands.context();
    const session = await this.commands.run(async () => {
      const loaded = await loadEmbedSession(this.deps, sessionId, context);
      if (!loaded) throw notFound('embed session');
      return { result: loaded.session, position: loaded.position };
    });
    return {
      sessionId: session.sessionId,
      customerId: session.customerId,
      configurationId: session.configurationId,
      status: embedSessionStatus(session, context.now),
      dynamicReference: session.dynamicReference,
      openedAt: session.openedAt,
      expiresAt: session.expiresAt,
      decidedAt: session.decision?.decidedAt ?? null,
      consent: await this.consentOf(session, context),
    };
  }

  private async consentOf(session: EmbedSession, context: RequestContext): Promise<EmbedSessionStatusDto['consent']> {
    if (session.decision?.outcome !== 'accepted') return null;
    if (session.consentKind === 'general') return { kind: 'general', consentId: session.consentId };
    const consent = await readConsent(this.readModel, context.tenantId, session.consentId);
    return { kind: 'redec', consentId: session.consentId, internalConsentCode: consent?.grant.internalConsentCode };
  }
}

/**
 * The consent page acts for the data subject, not for an API key: the
 * tenant comes from the page URL (checked by the session's token), the
 * actor is the page itself.
 */
function consentPageContext(clock: Clock, tenantId: string): RequestContext {
  return { tenantId, actor: 'embed-consent-page', correlationId: requireContext().correlationId, now: clock.now() };
}

export class ReadConsentPageQuery {
  constructor(
    readonly tenantId: string,
    readonly sessionId: string,
    readonly pageToken: string,
  ) {}
}

@QueryHandler(ReadConsentPageQuery)
export class ReadConsentPageHandler implements IQueryHandler<ReadConsentPageQuery, ConsentPageSession> {
  constructor(
    @Inject(EMBED_DEPENDENCIES) private readonly deps: EmbedDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ tenantId, sessionId, pageToken }: ReadConsentPageQuery): Promise<ConsentPageSession> {
    return readConsentPageSession(this.deps, sessionId, pageToken, consentPageContext(this.clock, tenantId));
  }
}

export class DecideOnEmbedSessionCommand {
  constructor(
    readonly tenantId: string,
    readonly sessionId: string,
    readonly pageToken: string,
    readonly outcome: EmbedDecision,
  ) {}
}

@CommandHandler(DecideOnEmbedSessionCommand)
export class DecideOnEmbedSessionHandler implements ICommandHandler<DecideOnEmbedSessionCommand, EmbedDecisionResult> {
  constructor(
    @Inject(EMBED_DEPENDENCIES) private readonly deps: EmbedDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ tenantId, sessionId, pageToken, outcome }: DecideOnEmbedSessionCommand): Promise<EmbedDecisionResult> {
    const result = await decideOnEmbedSession(this.deps, sessionId, pageToken, outcome, consentPageContext(this.clock, tenantId));
    // The integrator reads the consent as soon as the browser comes back: it must already be there.
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
