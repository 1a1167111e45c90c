import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { createRedis, currentContext, isRedisCluster, rateLimited, RedisLocation, settlesWithin, unitPrefix } from '@ledger/platform';
import type { AuthenticationBudgets } from '../auth/authentication.hook';
import { RequestBudgets } from './request-budgets';

export interface RateLimitSettings {
  /** Requests a minute for each API key, and for each client address on routes without one. */
  perMinute: number;
  redis: RedisLocation;
  /** The instance's Redis prefix: counters live under `<prefix>:rate-limit:`. */
  redisPrefix: string;
}

const WINDOW_MS = 60_000;

/** A flush Redis has not answered within this is given up; the next one reports the same counts again, which Redis may already hold. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** How long start-up waits for the counting connection, so that the first requests are counted; a Redis that is down does not hold it. */
const REDIS_READY_WAIT_MS = 2_000;

/**
 * Sign-in attempts a minute from one client address (@SignIn()): a person
 * needs two or three, and a bank's staff behind one address a few dozen at
 * the start of a day; each checks a password at about a tenth of a second of
 * a core, so an address cannot keep more than one busy.
 */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 60;

/** How often this instance tells Redis its counts and learns the other instances'. */
const FLUSH_INTERVAL_MS = 100;

/** The rate limits of one instance, installed by createHttpApp around authentication. */
export interface RateLimits {
  /** The `onRequest` hook that spends each request's budget, installed after authentication. */
  spendRequestBudgets: onRequestHookHandler;
  /** What authentication asks before verifying a key and tells when it refuses one. */
  authenticationBudgets: AuthenticationBudgets;
}

/**
 * Limits each API key, and each client address on routes without a key
 * (public routes, unknown paths), to `perMinute` requests in a fixed
 * one-minute window. Over it: 429 TOO_MANY_REQUESTS with `Retry-After`,
 * answered in `onRequest` after authentication and before the body is read.
 *
 * A request refused 401 spends its client address's budget of failed
 * authentications, `perMinute` too: once it is spent, a request with a key
 * from that address is refused 429 before its key is verified, so guessing
 * keys cannot make the service read the store more than `perMinute` times a
 * minute per address (docs/security.md, "Work bounded before
 * authentication"). A budget of its own, so that an address's public
 * requests (health probes) never refuse its valid keys.
 *
 * Every instance of the service spends the same budget: each counts its
 * requests in memory (RequestBudgets) and every FLUSH_INTERVAL_MS sets its
 * count in Redis beside the other instances', learning their sum; a request
 * waits for no Redis command (docs/decisions/0037-request-path-caches.md).
 *
 * While Redis cannot be reached, requests go through unlimited and the log
 * says so (fails open): recording consents does not depend on Redis anywhere
 * else (docs/decisions/0026-bounded-work.md). Counting uses a connection of
 * its own that fails at once instead of queueing.
 */
export async function rateLimits(app: NestFastifyApplication, settings: RateLimitSettings): Promise<RateLimits> {
  const fastify = app.getHttpAdapter().getInstance();
  const redis = createRedis(settings.redis, `${settings.redisPrefix}:rate-limit`, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  // A failed count is reported by the outage log below, once, rather than on every reconnection attempt.
  redis.on('error', () => undefined);
  const budgets = new RequestBudgets(settings.perMinute, WINDOW_MS);
  // A hash per budget and window, a field per instance (and generation): each instance sets its own count there.
  // One unit (decision 0091): a flush's pipeline spans every budget counted, which a cluster needs in one slot.
  const counters = `${unitPrefix(isRedisCluster(redis), settings.redisPrefix, 'rate-limit')}:rate-limit`;
  const counterOf = (budget: string, window: number) => `${counters}:${budget}:${window}:by-instance`;
  const instance = randomUUID();

  let flushing: Promise<void> | undefined;
  const flush = () => (flushing ??= addUp().finally(() => (flushing = undefined)));
  async function addUp(): Promise<void> {
    const report = budgets.report(Date.now());
    if (report.counts.size === 0) return;
    const field = `${instance}:${report.generation}`;
    try {
      const pipeline = redis.pipeline();
      for (const [budget, count] of report.counts) {
        const counter = counterOf(budget, report.window);
        pipeline.hset(counter, field, count).pexpire(counter, 2 * WINDOW_MS).hvals(counter);
      }
      const replies = (await pipeline.exec()) ?? [];
      const totals = new Map<string, number>();
      [...report.counts.keys()].forEach((budget, index) => {
        const [error, counts] = replies[3 * index + 2] ?? [new Error('no reply')];
        if (error) throw error;
        totals.set(budget, (counts as string[]).reduce((sum, count) => sum + Number(count), 0));
      });
      budgets.settle(report, totals);
    } catch {
      // Reported again, whole, with the next flush; an unreachable Redis is reported by the requests themselves.
    }
  }
  const flushes = setInterval(() => void flush(), FLUSH_INTERVAL_MS);
  flushes.unref();
  fastify.addHook('onClose', async () => {
    clearInterval(flushes);
    // The last counts, unless Redis is out of reach: shutdown does not wait for it.
    await settlesWithin(flush(), REDIS_COMMAND_TIMEOUT_MS);
    redis.disconnect();
  });
  await Promise.race([once(redis, 'ready'), delay(REDIS_READY_WAIT_MS, undefined, { ref: false })]).catch(() => undefined);

  const outage = new OutageLog();
  /** Whether budgets are counted now; while Redis cannot add them up, none is (fails open). */
  const counting = () => {
    if (redis.status !== 'ready') {
      budgets.forget();
      outage.failed(`the connection is ${redis.status}`);
      return false;
    }
    outage.counted();
    return true;
  };
  const refuse = (reply: FastifyReply, retryAfterSeconds: number, what: string, limit = settings.perMinute) => {
    void reply.header('retry-after', String(retryAfterSeconds));
    return rateLimited(`More than ${Math.min(limit, settings.perMinute)} ${what}; retry after the number of seconds in Retry-After.`);
  };
  const failuresOf = (request: FastifyRequest) => `failed-authentication:${addressOf(request)}`;
  return {
    // A callback hook, not an async one: the request path makes no promise for a decision taken in memory.
    spendRequestBudgets: (request, reply, done) => {
      if (!counting()) return done();
      const verdict = budgets.spend(budgetOf(request), Date.now());
      if (verdict.allowed) return done();
      done(refuse(reply, verdict.retryAfterSeconds, `requests a minute ${currentContext()?.principal ? 'with this API key' : 'from this address'}`));
    },
    // The outage is logged, and the budgets forgotten, by spendRequestBudgets, which every request that is not refused 401 reaches.
    authenticationBudgets: {
      refuseWhenSpent(request, reply) {
        if (redis.status !== 'ready') return undefined;
        const verdict = budgets.check(failuresOf(request), Date.now());
        return verdict.allowed ? undefined : refuse(reply, verdict.retryAfterSeconds, 'failed authentications a minute from this address');
      },
      count(request) {
        if (redis.status === 'ready') budgets.spend(failuresOf(request), Date.now());
      },
      spendSignIn(request, reply) {
        if (!counting()) return undefined;
        const verdict = budgets.spend(`sign-in:${addressOf(request)}`, Date.now(), Math.min(SIGN_IN_ATTEMPTS_PER_MINUTE, settings.perMinute));
        return verdict.allowed ? undefined : refuse(reply, verdict.retryAfterSeconds, 'sign-in attempts a minute from this address', SIGN_IN_ATTEMPTS_PER_MINUTE);
      },
    },
  };
}

/** Whose budget a request spends: its API key's once authenticated, else its address's. */
function budgetOf(request: FastifyRequest): string {
  const principal = currentContext()?.principal;
  return principal ? `key:${principal.keyId}` : `address:${addressOf(request)}`;
}

/** A client's address as budgets count it: an IPv6 client's /64. */
function addressOf(request: FastifyRequest): string {
  return normalizeIP(request.ip);
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
