import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  ConsentPageSession,
  EmbedDecision,
  EmbedDecisionResult,
  EmbedDependencies,
  OpenEmbedSessionRequest,
  OpenedEmbedSession,
  decideOnEmbedSession,
  embedSessionStatus,
  loadEmbedSession,
  openEmbedSession,
  readConsentPageSession,
} from '@ledger/embed';
import { CLOCK, Clock, notFound, requireContext } from '@ledger/platform';
import type { ItemConsent } from '@ledger/consents';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands, RequestContext } from '../request-commands';
import { CAPTURE_DEPENDENCIES } from '../capture-dependencies';
import { EmbedSessionConsentDto, EmbedSessionStatusDto } from './embed-session.dto';

export class OpenEmbedSessionCommand {
  constructor(readonly request: OpenEmbedSessionRequest) {}
}

@CommandHandler(OpenEmbedSessionCommand)
export class OpenEmbedSessionHandler implements ICommandHandler<OpenEmbedSessionCommand, OpenedEmbedSession> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: EmbedDependencies,
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
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: EmbedDependencies,
    private readonly commands: RequestCommands,
  ) {}

  async execute({ sessionId }: EmbedSessionQuery): Promise<EmbedSessionStatusDto> {
    const context = this.commands.context();
    const loaded = await this.commands.run(async () => {
      const found = await loadEmbedSession(this.deps, sessionId, context);
      if (!found) throw notFound('embed session');
      return { result: found, position: found.position };
    });
    const { session, decision } = loaded;
    const items = session.items.map((item, index) => ({
      configurationId: item.configurationId,
      decision: session.decision?.decisions[index] ?? null,
      consent: consentView(decision?.consents[index] ?? null),
    }));
    const single = items.length === 1 ? items[0] : null;
    return {
      sessionId: session.sessionId,
      customerId: session.customerId,
      configurationId: single?.configurationId ?? null,
      status: embedSessionStatus(session, context.now),
      dynamicReference: session.dynamicReference,
      openedAt: session.openedAt,
      expiresAt: session.expiresAt,
      decidedAt: session.decision?.decidedAt ?? null,
      consent: single?.consent ?? null,
      decisionId: decision?.decision.decisionId ?? null,
      items,
    };
  }
}

function consentView(consent: ItemConsent | null): EmbedSessionConsentDto | null {
  if (!consent) return null;
  return consent.kind === 'redec'
    ? { kind: 'redec', consentId: consent.redecConsentId, internalConsentCode: consent.internalConsentCode }
    : { kind: 'general', consentId: consent.consentId };
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
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: EmbedDependencies,
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
    /** One per item of the session, in its order. */
    readonly decisions: EmbedDecision[],
  ) {}
}

@CommandHandler(DecideOnEmbedSessionCommand)
export class DecideOnEmbedSessionHandler implements ICommandHandler<DecideOnEmbedSessionCommand, EmbedDecisionResult> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: EmbedDependencies,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ tenantId, sessionId, pageToken, decisions }: DecideOnEmbedSessionCommand): Promise<EmbedDecisionResult> {
    const result = await decideOnEmbedSession(this.deps, sessionId, pageToken, decisions, consentPageContext(this.clock, tenantId));
    // The integrator reads the consent as soon as the browser comes back: it must already be there.
    await this.readYourWrites.waitFor(result.position);
    return result;
  }
}
