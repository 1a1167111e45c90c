import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  LoadedRightsRequest,
  ReceiveRightsRequestInput,
  RectifyRightsRequestInput,
  RightsRequestDependencies,
  RightsTransition,
  AnswerContent,
  answersWithSuppression,
  readRightsRequest,
  receiveRightsRequest,
  rectifyRightsRequest,
  subjectReportAsOf,
  transitionRightsRequest,
} from '@ledger/redec';
import { notFound } from '@ledger/platform';
import { CAPTURE_DEPENDENCIES } from '../capture-dependencies';
import { RequestCommands, RequestContext } from '../request-commands';
import { SubjectReports } from './subject-reports';

export class ReceiveRightsRequestCommand {
  constructor(readonly input: ReceiveRightsRequestInput) {}
}

export class TransitionRightsRequestCommand {
  constructor(
    readonly rightsRequestId: string,
    readonly transition: RightsTransition,
  ) {}
}

export class RectifyRightsRequestCommand {
  constructor(
    readonly rightsRequestId: string,
    readonly rectification: RectifyRightsRequestInput,
  ) {}
}

export class GetRightsRequestQuery {
  constructor(readonly rightsRequestId: string) {}
}

@CommandHandler(ReceiveRightsRequestCommand)
export class ReceiveRightsRequestHandler implements ICommandHandler<ReceiveRightsRequestCommand, LoadedRightsRequest> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: RightsRequestDependencies,
    private readonly commands: RequestCommands,
  ) {}

  execute({ input }: ReceiveRightsRequestCommand): Promise<LoadedRightsRequest> {
    return this.commands.run(async (_store, context) => {
      const received = await receiveRightsRequest(this.deps, input, context);
      return { result: received, position: received.position };
    });
  }
}

@CommandHandler(TransitionRightsRequestCommand)
export class TransitionRightsRequestHandler implements ICommandHandler<TransitionRightsRequestCommand, LoadedRightsRequest> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: RightsRequestDependencies,
    private readonly commands: RequestCommands,
    private readonly subjectReports: SubjectReports,
  ) {}

  execute({ rightsRequestId, transition }: TransitionRightsRequestCommand): Promise<LoadedRightsRequest> {
    return this.commands.run(async (_store, context) => {
      const changed = await transitionRightsRequest(this.deps, rightsRequestId, transition, context, await this.answerContent(rightsRequestId, transition, context));
      return { result: changed, position: changed.position };
    });
  }

  /**
   * What the service puts into an answer, prepared before the answer is
   * decided: the digest of the subject's report it gives (decision 0071),
   * rendered as of an instant that has passed, so the facts the decision
   * reads later cannot change it; and for a suppression where each record
   * stands for erasure now (decision 0073). Nothing for another step, nor for
   * a request that is not open: the decision refuses the answer.
   */
  private async answerContent(rightsRequestId: string, transition: RightsTransition, context: RequestContext): Promise<AnswerContent> {
    // Only an answer gives anything; the decision refuses what other steps should not carry.
    if (transition.to !== 'resolved') return {};
    const request = await readRightsRequest(this.deps, rightsRequestId, context);
    if (!request || !(request.state.status === 'received' || request.state.status === 'in_analysis')) return {};
    const asOf = subjectReportAsOf(request.state, transition, context.now);
    return {
      ...(asOf !== null ? { subjectReport: SubjectReports.digestOf(await this.subjectReports.render(rightsRequestId, asOf, context)) } : {}),
      ...(answersWithSuppression(request.state, transition) ? { suppression: await this.subjectReports.assessSuppression(request.state, context) } : {}),
    };
  }
}

@CommandHandler(RectifyRightsRequestCommand)
export class RectifyRightsRequestHandler implements ICommandHandler<RectifyRightsRequestCommand, LoadedRightsRequest> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: RightsRequestDependencies,
    private readonly commands: RequestCommands,
  ) {}

  execute({ rightsRequestId, rectification }: RectifyRightsRequestCommand): Promise<LoadedRightsRequest> {
    return this.commands.run(async (_store, context) => {
      const rectified = await rectifyRightsRequest(this.deps, rightsRequestId, rectification, context);
      return { result: rectified, position: rectified.position };
    });
  }
}

/** Read from the request's own stream, never a read model: its status and deadline are those of its facts as recorded. */
@QueryHandler(GetRightsRequestQuery)
export class GetRightsRequestHandler implements IQueryHandler<GetRightsRequestQuery, LoadedRightsRequest> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: RightsRequestDependencies,
    private readonly commands: RequestCommands,
  ) {}

  async execute({ rightsRequestId }: GetRightsRequestQuery): Promise<LoadedRightsRequest> {
    const found = await readRightsRequest(this.deps, rightsRequestId, this.commands.context());
    if (!found) throw notFound('rights request');
    return found;
  }
}
