import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CommandContext } from '@ledger/ledger';
import { CLOCK, Clock } from '@ledger/platform';
import { ReadYourWrites } from './read-your-writes';
import { requestCommandContext } from './request-command-context';

export type RequestContext = CommandContext & { tenantId: string };

/** What every command handler does around its library call: run it in the request's context, then let the read model catch up. */
@Injectable()
export class RequestCommands {
  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** The command context of the request being handled. */
  context(): RequestContext {
    return requestCommandContext(this.clock);
  }

  /** Runs `command` and answers once the read model shows the facts it recorded (position null: none). */
  async run<R>(command: (store: EventStore, context: RequestContext) => Promise<{ result: R; position: number | null }>): Promise<R> {
    const { result, position } = await command(this.store, this.context());
    await this.readYourWrites.waitFor(position);
    return result;
  }

  /** Returns once the read model holds every fact committed before this call (503 otherwise). */
  async readModelCaughtUp(): Promise<void> {
    await this.readYourWrites.caughtUpWith(await this.store.headPosition());
  }
}
