import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { createRedis, currentContext, rateLimited } from '@ledger/platform';
import { RequestBudgets } from './request-budgets';

export interface RateLimitSettings {
  /** Requests a minute for each API key, and for each client address on routes without one. */
  perMinute: number;
  redisUrl: string;
  /** The instance's Redis prefix: counters live under `<prefix>:rate-limit:`. */
  redisPrefix: string;
}

const WINDOW_MS = 60_000;

/** A flush Redis has not answered within this is given up and its counts sent again with the next one. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** How long start-up waits for the counting connection, so that the first requests are counted; a Redis that is down does not hold it. */
const REDIS_READY_WAIT_MS = 2_000;

/** How often this instance adds its counts to Redis's and learns the other instances'. */
const FLUSH_INTERVAL_MS = 100;

/**
 * Limits each API key, and each client address on routes without a key
 * (public routes, unknown paths), to `perMinute` requests in a fixed
 * one-minute window. Over it: 429 TOO_MANY_REQUESTS with `Retry-After`,
 * answered in `onRequest` after authentication and before the body is read.
 *
 * Every instance of the service spends the same budget: each counts its
 * requests in memory (RequestBudgets) and adds them to a counter in Redis
 * every FLUSH_INTERVAL_MS, learning the total; a request waits for no Redis
 * command (docs/decisions/0037-request-path-caches.md).
 *
 * While Redis cannot be reached, requests go through unlimited and the log
 * says so (fails open): recording consents does not depend on Redis anywhere
 * else (docs/decisions/0026-bounded-work.md). Counting uses a connection of
 * its own that fails at once instead of queueing.
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
  const budgets = new RequestBudgets(settings.perMinute, WINDOW_MS);
  const counterOf = (budget: string, window: number) => `${settings.redisPrefix}:rate-limit:${budget}:${window}`;

  let flushing: Promise<void> | undefined;
  const flush = () => (flushing ??= addUp().finally(() => (flushing = undefined)));
  async function addUp(): Promise<void> {
    const { window, increments } = budgets.takePending(Date.now());
    if (increments.size === 0) return;
    try {
      const pipeline = redis.pipeline();
      for (const [budget, count] of increments) pipeline.incrby(counterOf(budget, window), count).pexpire(counterOf(budget, window), 2 * WINDOW_MS);
      const replies = (await pipeline.exec()) ?? [];
      const totals = new Map<string, number>();
      [...increments.keys()].forEach((budget, index) => {
        const [error, total] = replies[2 * index] ?? [new Error('no reply')];
        if (error) throw error;
        totals.set(budget, Number(total));
      });
      budgets.settle(window, totals);
    } catch {
      // Sent again with the next flush; an unreachable Redis is reported by the requests themselves.
      budgets.restore(window, increments);
    }
  }
  const flushes = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  flushes.unref();
  fastify.addHook('onClose', async () => {
    clearInterval(flushes);
    await flush();
    redis.disconnect();
  });
  await Promise.race([once(redis, 'ready'), delay(REDIS_READY_WAIT_MS, undefined, { ref: false })]).catch(() => undefined);

  const outage = new OutageLog();
  // A callback hook, not an async one: the request path makes no promise for a decision taken in memory.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (redis.status !== 'ready') {
      budgets.forget();
      outage.failed(`the connection is ${redis.status}`);
      return done();
    }
    outage.counted();
    const verdict = budgets.spend(budgetOf(request), Date.now());
    if (verdict.allowed) return done();
    void reply.header('retry-after', String(verdict.retryAfterSeconds));
    done(
      rateLimited(
        `More than ${settings.perMinute} requests a minute ${currentContext()?.principal ? 'with this API key' : 'from this address'}; retry after the number of seconds in Retry-After.`,
      ),
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

  failed(reason: string): void {
    const now = Date.now();
    this.unlimited += 1;
    this.since ??= now;
    if (now - this.lastWarned < WINDOW_MS) return;
    this.lastWarned = now;
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
