import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, LogFn, Logger as PinoLogger } from 'pino';
import { currentContext } from '@ledger/platform';
import { routeOf, scrubLogText } from './log-scrubbing';

export interface JsonLogOptions {
  level?: string;
  /** Where the lines go; stdout by default. Tests pass a stream to read them. */
  destination?: DestinationStream;
  /** Fields added to every line, computed as it is written (the current trace's ids, when tracing runs). */
  mixin?: () => Record<string, unknown>;
}

/**
 * Keys whose values are never written, wherever a caller logs an object that
 * has them: credentials (API keys, the consent page's token and cookie, CSRF
 * values, signing secrets, the master key), evidence bytes and identifiers.
 * Nothing logs such objects today; this is the net under the next one that does.
 */
const REDACTED_LOG_KEYS: ReadonlySet<string> = new Set([
  'authorization',
  'cookie',
  'set-cookie',
  'apiKey',
  'token',
  'pageToken',
  'csrf',
  'secret',
  'resultSecret',
  'masterKey',
  'contentBase64',
  'userReference',
  'identifierRutInput',
  'identifiers',
]);
/** How deep under a logged object the keys are looked for. */
const REDACTED_DEPTH = 4;
const NOTHING_SERIALIZED: ReadonlySet<string> = new Set();

/**
 * The logged object with the values of REDACTED_LOG_KEYS censored, copied
 * only where something is censored. One walk of the object, whatever the
 * number of keys: the line of every request goes through it.
 */
export function redactLogObject(value: Record<string, unknown>, depth = REDACTED_DEPTH, serialized: ReadonlySet<string> = NOTHING_SERIALIZED): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || serialized.has(key)) continue;
    const field = value[key];
    let redacted = field;
    if (REDACTED_LOG_KEYS.has(key)) redacted = '[redacted]';
    else if (depth > 1 && field !== null && typeof field === 'object' && !(field instanceof Error)) {
      redacted = Array.isArray(field) ? redactLogArray(field, depth - 1) : redactLogObject(field as Record<string, unknown>, depth - 1);
    }
    if (redacted !== field) (copy ??= { ...value })[key] = redacted;
  }
  return copy ?? value;
}

function redactLogArray(values: unknown[], depth: number): unknown[] {
  let copy: unknown[] | undefined;
  values.forEach((item, index) => {
    if (item === null || typeof item !== 'object' || item instanceof Error) return;
    const redacted = Array.isArray(item) ? redactLogArray(item, depth - 1) : redactLogObject(item as Record<string, unknown>, depth - 1);
    if (redacted !== item) (copy ??= [...values])[index] = redacted;
  });
  return copy ?? values;
}

const LOG_SERIALIZERS = {
  req: (request: Parameters<typeof routeOf>[0] & { method?: string }) => ({ method: request.method, route: routeOf(request) }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: (error: Error) => scrubbedError(pino.stdSerializers.err(error)),
};
const SERIALIZED_LOG_KEYS: ReadonlySet<string> = new Set(Object.keys(LOG_SERIALIZERS));

/**
 * The one logger of every process (the service, the worker, the tests): JSON
 * lines, one per call. Fastify logs requests through it and stamps
 * `requestId` on those lines itself; Nest's messages go through JsonLogger,
 * which takes the id from the request context.
 *
 * Requests are serialized as method and route pattern only: paths carry
 * identifiers (and whatever a caller puts in them), headers carry the API
 * key and query strings carry tokens, codes and references; bodies are never
 * logged. Messages, stacks and error objects are scrubbed (scrubLogText)
 * because Fastify, Nest and Node quote URLs and inputs in them.
 */
export function createJsonLogger(options: JsonLogOptions = {}): PinoLogger {
  return pino(
    {
      level: options.level ?? 'info',
      mixin: options.mixin,
      serializers: LOG_SERIALIZERS,
      // Pino formats before it serializes: the serialized keys (a raw request, a reply) are
      // left to their serializers, which keep nothing that could need censoring.
      formatters: { log: (object) => redactLogObject(object, REDACTED_DEPTH, SERIALIZED_LOG_KEYS) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(scrubbedArgument) as Parameters<LogFn>);
        },
      },
    },
    // Synchronous: the last lines before a crash are the ones worth having.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A message (or interpolated value) scrubbed; of a merging object, its own text fields (`stack`, `context`). */
function scrubbedArgument(argument: unknown): unknown {
  if (typeof argument === 'string') return scrubLogText(argument);
  if (argument === null || typeof argument !== 'object' || argument instanceof Error) return argument;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(argument)) {
    if (typeof value !== 'string') continue;
    const scrubbed = scrubLogText(value);
    if (scrubbed !== value) (copy ??= { ...argument })[key] = scrubbed;
  }
  return copy ?? argument;
}

function scrubbedError(serialized: ReturnType<typeof pino.stdSerializers.err>): ReturnType<typeof pino.stdSerializers.err> {
  return { ...serialized, message: scrubLogText(serialized.message), stack: scrubLogText(serialized.stack) };
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Where Nest narrates its start: a line per module, per controller and per
 * route (over a hundred for the service), and "starting", "started". What
 * they say helps to debug the wiring, not to run the service: they are
 * written at debug, and the service says in one line at info that it
 * listens, with what (apps/api's listenApiApp).
 */
const FRAMEWORK_START_CONTEXTS: ReadonlySet<string> = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's LoggerService over pino, adding the current request id to every line written during a request. */
export class JsonLogger implements LoggerService {
  constructor(private readonly pino: PinoLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && FRAMEWORK_START_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
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
