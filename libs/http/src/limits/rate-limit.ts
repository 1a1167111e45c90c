import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { createRedis, currentContext, rateLimited } from '@ledger/platform';

export interface RateLimitSettings {
  /** Requests a minute for each API key, and for each client address on routes without one. */
  perMinute: number;
  redisUrl: string;
  /** The instance's Redis prefix: counters live under `<prefix>:rate-limit:`. */
  redisPrefix: string;
}

const WINDOW_MS = 60_000;

/** A Redis that answers slower than this is treated as down: requests go on unlimited rather than wait. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** How long start-up waits for the counting connection, so that the first requests are counted; a Redis that is down does not hold it. */
const REDIS_READY_WAIT_MS = 2_000;

/**
 * Limits each API key, and each client address on routes without a key
 * (public routes, unknown paths), to `perMinute` requests in a fixed
 * one-minute window counted in Redis, so that every instance of the service
 * counts against the same budget. Over it: 429 TOO_MANY_REQUESTS with
 * `Retry-After`, answered in `onRequest` after authentication and before the
 * body is read.
 *
 * When Redis cannot count, requests go through unlimited and the log says
 * so (fails open): recording consents does not depend on Redis anywhere else
 * (docs/decisions/0026-bounded-work.md). Counting uses a connection of its
 * own that fails at once instead of queueing, so an outage never holds a
 * request.
 */
export async function limitRequestRates(app: NestFastifyApplication, settings: RateLimitSettings): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const redis = createRedis(settings.redisUrl, `${settings.redisPrefix}:rate-limit`, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  // A failed count is reported by the outage log below, once, rather than on every reconnection attempt.
  redis.on('error', () => undefined);
  fastify.addHook('onClose', async () => {
    redis.disconnect();
  });
  await Promise.race([once(redis, 'ready'), delay(REDIS_READY_WAIT_MS, undefined, { ref: false })]).catch(() => undefined);

  await app.register(fastifyRateLimit, {
    global: false,
    redis,
    nameSpace: `${settings.redisPrefix}:rate-limit:`,
    max: settings.perMinute,
    timeWindow: WINDOW_MS,
    keyGenerator: budgetOf,
  });
  const count = fastify.createRateLimit();
  const outage = new OutageLog();

  fastify.addHook('onRequest', async (request, reply) => {
    let verdict: Awaited<ReturnType<typeof count>>;
    try {
      verdict = await count(request);
    } catch (error) {
      outage.failed(error);
      return;
    }
    outage.counted();
    if (verdict.isAllowed || !verdict.isExceeded) return;
    void reply.header('retry-after', String(verdict.ttlInSeconds));
    throw rateLimited(
      `More than ${verdict.max} requests a minute ${currentContext()?.principal ? 'with this API key' : 'from this address'}; retry after the number of seconds in Retry-After.`,
    );
  });
}

/** Whose budget a request spends: its API key's once authenticated, else its address's (an IPv6 client's /64). */
function budgetOf(request: FastifyRequest): string {
  const principal = currentContext()?.principal;
  return principal ? `key:${principal.keyId}` : `address:${normalizeIP(request.ip)}`;
}

/** Says when requests start going through unlimited, every minute while it lasts, and when counting is back. */
class OutageLog {
  private readonly logger = new Logger('rate-limit');
  private since: number | undefined;
  private lastWarned = 0;
  private unlimited = 0;

  failed(error: unknown): void {
    const now = Date.now();
    this.unlimited += 1;
    this.since ??= now;
    if (now - this.lastWarned < WINDOW_MS) return;
    this.lastWarned = now;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`rate limits are not enforced: Redis cannot count requests (${reason}); ${this.unlimited} request(s) let through unlimited so far`);
  }

  counted(): void {
    if (this.since === undefined) return;
    this.logger.warn(`rate limits are enforced again after ${Date.now() - this.since} ms; ${this.unlimited} request(s) went through unlimited`);
    this.since = undefined;
    this.lastWarned = 0;
    this.unlimited = 0;
  }
}
