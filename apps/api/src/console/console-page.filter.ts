import { ArgumentsHost, Catch, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem, ProblemFilter } from '@ledger/http';
import { failurePage } from './console-html';
import { ConsoleSessions } from './console-sessions';

/**
 * What the console's pages answer when something they call refuses in a way
 * they do not handle themselves (the read model out of reach, a fault): a
 * page in the person's language with the same status and Retry-After, where
 * the API answers problem+json. Logged as the API's are.
 */
@Catch()
@Injectable()
export class ConsolePageFilter extends ProblemFilter {
  constructor(private readonly sessions: ConsoleSessions) {
    super();
  }

  protected override send(reply: FastifyReply, problem: Problem, host: ArgumentsHost): void {
    this.sessions.send(reply, problem.status, failurePage(this.sessions.view(host.switchToHttp().getRequest<FastifyRequest>()), problem.status));
  }
}
