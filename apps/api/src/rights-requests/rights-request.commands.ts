import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LoadedRightsRequest, ReceiveRightsRequestInput, RightsRequestDependencies, RightsTransition, readRightsRequest, receiveRightsRequest, transitionRightsRequest } from '@ledger/redec';
import { notFound } from '@ledger/platform';
import { CAPTURE_DEPENDENCIES } from '../capture-dependencies';
import { RequestCommands } from '../request-commands';

export class ReceiveRightsRequestCommand {
  constructor(readonly input: ReceiveRightsRequestInput) {}
}

export class TransitionRightsRequestCommand {
  constructor(
    readonly rightsRequestId: string,
    readonly transition: RightsTransition,
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
  ) {}

  execute({ rightsRequestId, transition }: TransitionRightsRequestCommand): Promise<LoadedRightsRequest> {
    return this.commands.run(async (_store, context) => {
      const changed = await transitionRightsRequest(this.deps, rightsRequestId, transition, context);
      return { result: changed, position: changed.position };
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
