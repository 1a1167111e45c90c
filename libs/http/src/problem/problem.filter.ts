import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '@ledger/platform';
import { PROBLEM_CONTENT_TYPE, Problem, toProblem } from './problem';

/**
 * Renders every error as application/problem+json: what a controller, guard,
 * pipe or interceptor throws, and (through Nest's Fastify error handler and
 * not-found handler) malformed bodies and unknown routes. A server fault is
 * logged with its stack here and answered with a generic detail.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    const problem = toProblem(exception);
    if (problem.status >= 500) {
      const error = exception instanceof Error ? exception : new Error(String(exception));
      this.logger.error(`unhandled ${error.name}: ${error.message}`, error.stack);
    }
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent) return;
    if (exception instanceof DomainError && exception.retryAfterSeconds !== undefined) void reply.header('retry-after', String(exception.retryAfterSeconds));
    this.send(reply, problem, host);
  }

  /** How the problem reaches the client: problem+json, unless a page meant for a person says it in its own words. */
  protected send(reply: FastifyReply, problem: Problem, _host: ArgumentsHost): void {
    void reply.status(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
  }
}
