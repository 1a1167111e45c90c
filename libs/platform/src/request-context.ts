import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is calling: resolved from the API key, the only source of the tenant. */
export interface Principal {
  tenantId: string;
  keyId: string;
  scopes: readonly string[];
}

/** The Idempotency-Key of the request being handled and the hash of that request. */
export interface IdempotencyContext {
  key: string;
  requestHash: string;
}

/**
 * What is known about the request being handled, reachable from any code it
 * runs without threading it through every call: command handlers copy it into
 * their events' metadata (actor = keyId, correlationId, idempotencyKey and
 * requestHash), loggers add the request id to every line.
 *
 * `principal` and `idempotency` are filled in as the request goes through the
 * authentication guard and the idempotency interceptor, hence mutable.
 */
export interface RequestContext {
  readonly requestId: string;
  /** Ties the facts of one operation together; for an HTTP request, its request id. */
  readonly correlationId: string;
  principal?: Principal;
  idempotency?: IdempotencyContext;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it starts, synchronously or not) with `context` as the current context. */
export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the request being handled, or undefined outside any request (start-up, a worker). */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** For code that only ever runs inside a request: its absence is a wiring bug, not a client error. */
export function requireContext(): RequestContext {
  const context = storage.getStore();
  if (!context) throw new Error('no request context: this code must run inside runWithContext()');
  return context;
}
