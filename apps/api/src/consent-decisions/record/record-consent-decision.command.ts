import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CompletedConsentDecision, ConsentDecisionRequest, DecisionDependencies, recordConsentDecision } from '@ledger/consents';
import { CAPTURE_DEPENDENCIES } from '../../capture-dependencies';
import { RequestCommands } from '../../request-commands';

export class RecordConsentDecisionCommand {
  constructor(readonly request: ConsentDecisionRequest) {}
}

/** Answers once the decision and every consent it derives are recorded and readable. */
@CommandHandler(RecordConsentDecisionCommand)
export class RecordConsentDecisionHandler implements ICommandHandler<RecordConsentDecisionCommand, CompletedConsentDecision> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: DecisionDependencies,
    private readonly commands: RequestCommands,
  ) {}

  execute({ request }: RecordConsentDecisionCommand): Promise<CompletedConsentDecision> {
    return this.commands.run(async (_store, context) => {
      const completed = await recordConsentDecision(this.deps, request, context);
      return { result: completed, position: completed.position };
    });
  }
}
