import type { ExceptionFilter, PipeTransform, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ModulesContainer } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import {
  CUSTOM_ROUTE_ARGS_METADATA,
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  REDIRECT_METADATA,
  RENDER_METADATA,
  RESPONSE_PASSTHROUGH_METADATA,
  ROUTE_ARGS_METADATA,
  RouteParamtypes,
  SSE_METADATA,
} from '@nestjs/common/internal';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { RouteHandlerRef } from '../route-config';

/** What a route's handler may be given, as Nest would extract it. */
type Extract = (request: FastifyRequest, reply: FastifyReply, context: ExecutionContextHost | undefined) => unknown;

interface Argument {
  extract: Extract;
  /** The pipes the value goes through (the global ones first), with what Nest tells them about it. */
  pipes: PipeTransform[];
  metadata: { type: 'body' | 'query' | 'param' | 'custom'; metatype: Type<unknown> | undefined; data: string | undefined };
}

interface Plan {
  /** The controller's method, as custom decorators see it in the execution context. */
  handler: (...args: unknown[]) => unknown;
  args: Argument[];
  /** A custom parameter decorator takes the execution context. */
  needsContext: boolean;
  status: number;
  headers: Array<{ name: string; value: string }>;
}

const PIPEABLE: Partial<Record<number, Argument['metadata']['type']>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'param',
};

const METADATA_ONLY_NEST_HONOURS = [GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, EXCEPTION_FILTERS_METADATA];
const RESPONSES_ONLY_NEST_SENDS = [SSE_METADATA, REDIRECT_METADATA, RENDER_METADATA];

/**
 * Runs each controller method straight from its Fastify route, instead of
 * through Nest's router execution context, whenever the method uses only
 * what this executor does the same way: the global pipe and exception filter
 * given here, parameter pipes given as instances, `@Body()`, `@Param()`,
 * `@Query()`, `@Headers()`, `@Req()`, `@Res({ passthrough: true })`, custom
 * parameter decorators, `@HttpCode()` and `@Header()`. A method with its own
 * guards, interceptors, pipes or filters, a handled `@Res()`, or an SSE,
 * redirect or template answer keeps Nest's route.
 *
 * Why: on every request Nest's execution context awaits its guards,
 * interceptors, each parameter's pipes and the response in separate async
 * steps, and on Node 20 each promise also pays AsyncLocalStorage's hook
 * (what that cost is in decision 0050). Here a request makes a promise only
 * where a pipe or the handler returns one.
 *
 * The route's config (route-config.ts) names the method it runs; the
 * answer goes through the adapter's own `reply()`, and a failure through the
 * same filter, so status, headers, bodies and problems are Nest's.
 */
export function serveRoutesDirectly(app: NestFastifyApplication, globalPipes: PipeTransform[], filter: ExceptionFilter): void {
  const adapter = app.getHttpAdapter();
  adapter.getInstance().addHook('onRoute', (route: RouteOptions) => {
    const handlerRef = route.config?.handlerRef;
    if (!handlerRef || !hasPlainParameters(route.url)) return;
    const plan = planFor(handlerRef, String(route.method), globalPipes);
    const instance = plan && staticInstanceOf(app, handlerRef.controller);
    if (!plan || !instance) return;
    const method = instance[handlerRef.method].bind(instance);

    const fail = (error: unknown, request: FastifyRequest, reply: FastifyReply): void => filter.catch(error, new ExecutionContextHost([request, reply, undefined]));
    const answer = (result: unknown, request: FastifyRequest, reply: FastifyReply): void => {
      try {
        adapter.reply(reply, result);
      } catch (error) {
        fail(error, request, reply);
      }
    };

    route.handler = function directRoute(request: FastifyRequest, reply: FastifyReply): void {
      // Nest 12 answers 404 for a route whose path parameter is empty (`/consents/`).
      const params = request.params as Record<string, string>;
      for (const name in params) if (params[name] === '' && name !== '*') return void reply.callNotFound();
      void reply.status(plan.status);
      for (const { name, value } of plan.headers) void reply.header(name, value);
      try {
        const context = plan.needsContext ? new ExecutionContextHost([request, reply, undefined], handlerRef.controller, plan.handler) : undefined;
        const args: unknown[] = [];
        let pending: Array<Promise<unknown>> | undefined;
        for (let i = 0; i < plan.args.length; i++) {
          const argument = plan.args[i];
          const value = argument.extract(request, reply, context);
          // Only what a pipe returned is settled: a Fastify reply is thenable too.
          if (argument.pipes.length === 0) {
            args[i] = value;
            continue;
          }
          const transformed = piped(argument, value);
          args[i] = transformed;
          if (isThenable(transformed)) (pending ??= []).push(transformed.then((settled) => (args[i] = settled)));
        }
        const result = pending ? Promise.all(pending).then(() => method(...args)) : method(...args);
        if (!isThenable(result)) return answer(result, request, reply);
        result.then((settled) => answer(settled, request, reply), (error: unknown) => fail(error, request, reply));
      } catch (error) {
        fail(error, request, reply);
      }
    };
  });
}

/**
 * Whether each path parameter is a whole segment with a name of its own:
 * Nest matches other paths (a name used twice, a parameter inside a
 * segment) again after Fastify, which only its route does.
 */
function hasPlainParameters(url: string): boolean {
  const names = url.split('/').filter((segment) => segment.includes(':'));
  return names.every((segment) => /^:[A-Za-z_]\w*$/.test(segment)) && new Set(names).size === names.length;
}

/**
 * The controller's one instance, as Nest's route would use it; none for a
 * controller built per request (its own scope or a dependency's), which
 * only Nest's route can build.
 */
function staticInstanceOf(app: NestFastifyApplication, controller: RouteHandlerRef['controller']): Record<string, (...args: unknown[]) => unknown> | undefined {
  for (const module of app.get(ModulesContainer).values()) {
    const wrapper = module.controllers.get(controller);
    if (wrapper) return wrapper.isDependencyTreeStatic() ? (wrapper.instance as Record<string, (...args: unknown[]) => unknown>) : undefined;
  }
  return undefined;
}

function planFor(handlerRef: RouteHandlerRef, httpMethod: string, globalPipes: PipeTransform[]): Plan | undefined {
  const { controller, method } = handlerRef;
  const handler = controller.prototype[method] as Plan['handler'];
  if (METADATA_ONLY_NEST_HONOURS.some((key) => Reflect.getMetadata(key, controller) || Reflect.getMetadata(key, handler))) return undefined;
  if (RESPONSES_ONLY_NEST_SENDS.some((key) => Reflect.getMetadata(key, handler) !== undefined)) return undefined;
  const declared = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number; data?: unknown; pipes?: unknown[]; factory?: (data: unknown, context: ExecutionContextHost) => unknown }>;
  const paramtypes = (Reflect.getMetadata('design:paramtypes', controller.prototype, method) ?? []) as Array<Type<unknown> | undefined>;
  const args: Argument[] = [];
  for (const [key, { index, data, pipes = [], factory }] of Object.entries(declared)) {
    if (!pipes.every((pipe) => typeof (pipe as PipeTransform)?.transform === 'function')) return undefined;
    // Nest's keys are `<paramtype>:<index>`, or the custom decorator's key.
    const custom = key.includes(CUSTOM_ROUTE_ARGS_METADATA);
    const paramtype = Number(key.split(':')[0]);
    // A handled @Res() sends the answer itself: Nest's route knows not to.
    if (!custom && paramtype === RouteParamtypes.RESPONSE && !Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, method)) return undefined;
    const extract = custom ? (_request: FastifyRequest, _reply: FastifyReply, context: ExecutionContextHost | undefined) => factory!(data, context!) : extractorFor(paramtype, data);
    if (!extract) return undefined;
    const type = custom ? 'custom' : PIPEABLE[paramtype];
    args[index] = {
      extract,
      pipes: type ? [...globalPipes, ...(pipes as PipeTransform[])] : [],
      metadata: { type: type ?? 'custom', metatype: paramtypes[index], data: typeof data === 'string' ? data : undefined },
    };
  }
  // A parameter without a decorator (a hole in `args`) gets undefined from Nest: left to it.
  if (args.includes(undefined as unknown as Argument)) return undefined;
  const httpCode = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  const headers = (Reflect.getMetadata(HEADERS_METADATA, handler) ?? []) as Array<{ name: string; value: unknown }>;
  if (!headers.every(({ value }) => typeof value === 'string')) return undefined;
  return { handler, args, needsContext: Object.keys(declared).some((key) => key.includes(CUSTOM_ROUTE_ARGS_METADATA)), status: httpCode ?? (httpMethod === 'POST' ? 201 : 200), headers: headers as Plan['headers'] };
}

function extractorFor(type: number, data: unknown): Extract | undefined {
  const name = typeof data === 'string' ? data : undefined;
  switch (type) {
    case RouteParamtypes.BODY:
      return name ? undefined : (request) => request.body;
    case RouteParamtypes.PARAM:
      return name ? (request) => (request.params as Record<string, string>)[name] : (request) => request.params;
    case RouteParamtypes.QUERY:
      return name ? (request) => (request.query as Record<string, unknown>)[name] : (request) => request.query;
    case RouteParamtypes.HEADERS:
      return name ? (request) => request.headers[name.toLowerCase()] : (request) => request.headers;
    case RouteParamtypes.REQUEST:
      return (request) => request;
    case RouteParamtypes.RESPONSE:
      return (_request, reply) => reply;
    default:
      return undefined;
  }
}

/** The value after the argument's pipes, in order; a promise only once a pipe returns one. */
function piped(argument: Argument, value: unknown): unknown {
  let result = value;
  for (let i = 0; i < argument.pipes.length; i++) {
    const pipe = argument.pipes[i];
    result = isThenable(result) ? result.then((settled) => pipe.transform(settled, argument.metadata)) : pipe.transform(result, argument.metadata);
  }
  return result;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | null)?.then === 'function';
}
