import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CompletedConsentDecision, DecisionDependencies, readConsentDecision } from '@ledger/consents';
import { CAPTURE_DEPENDENCIES } from '../../capture-dependencies';
import { RequestCommands } from '../../request-commands';

export class GetConsentDecisionQuery {
  constructor(readonly decisionId: string) {}
}

/** A decision as recorded; reading it records the consents it derives that a stopped process left unrecorded. */
@QueryHandler(GetConsentDecisionQuery)
export class GetConsentDecisionHandler implements IQueryHandler<GetConsentDecisionQuery, CompletedConsentDecision> {
  constructor(
    @Inject(CAPTURE_DEPENDENCIES) private readonly deps: DecisionDependencies,
    private readonly commands: RequestCommands,
  ) {}

  execute({ decisionId }: GetConsentDecisionQuery): Promise<CompletedConsentDecision> {
    return this.commands.run(async (_store, context) => {
      const completed = await readConsentDecision(this.deps, decisionId, context);
      return { result: completed, position: completed.position };
    });
  }
}
