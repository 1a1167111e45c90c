import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger as PinoLogger } from 'pino';
import { currentContext } from '@ledger/platform';

export interface JsonLogOptions {
  level?: string;
  /** Where the lines go; stdout by default. Tests pass a stream to read them. */
  destination?: DestinationStream;
}

/**
 * The root logger of the process: JSON lines, one per call. Fastify logs
 * requests through it and stamps `requestId` on those lines itself; Nest's
 * messages go through JsonLogger, which takes the id from the request context.
 *
 * Requests are serialized as method and path only: headers carry the API key
 * and query strings may carry references, and bodies are never logged.
 */
export function createJsonLogger(options: JsonLogOptions = {}): PinoLogger {
  return pino(
    {
      level: options.level ?? 'info',
      serializers: {
        req: (request: { method?: string; url?: string }) => ({ method: request.method, path: request.url?.split('?')[0] }),
        res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    // Synchronous: the last lines before a crash are the ones worth having.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Nest's LoggerService over pino, adding the current request id to every line written during a request. */
export class JsonLogger implements LoggerService {
  constructor(private readonly pino: PinoLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /**
   * Nest passes `(message, context)` and, for errors, `(message, stack, context)`;
   * a string that looks like a stack trace is the stack, any other the context.
   */
  private write(level: Level, message: unknown, params: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const requestId = currentContext()?.requestId;
    if (requestId !== undefined) fields.requestId = requestId;
    for (const param of params) {
      if (typeof param === 'string' && /\n\s+at /.test(param)) fields.stack = param;
      else if (typeof param === 'string') fields.context = param;
      else if (param instanceof Error) fields.err = param;
    }
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, message.message);
    } else {
      this.pino[level](fields, typeof message === 'string' ? message : JSON.stringify(message));
    }
  }
}
