import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { Public } from '@ledger/http';
import { PROJECTIONS_REDIS, ProjectionRunner } from '@ledger/projections';
import { pingRedis, type RedisClient } from '@ledger/platform';

const CHECK_TIMEOUT_MS = 1_000;

/**
 * docs/operations.md, "Health and metrics": live while the process runs;
 * ready once the store, Redis and the projections are up; degraded (still
 * 200) while the read model is rebuilt after a loss.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTIONS_REDIS) private readonly redis: RedisClient,
    private readonly projections: ProjectionRunner,
  ) {}

  @Get('live')
  @Public()
  live(): { status: 'live' } {
    return { status: 'live' };
  }

  @Get('ready')
  @Public()
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const [store, redis] = await Promise.all([
      check(() => this.store.headPosition()),
      check(() => pingRedis(this.redis)),
    ]);
    const projections = this.projections.progress.isRebuilding() ? 'rebuilding' : this.projections.isReady() ? 'up' : 'catching_up';
    const checks = { eventStore: store, redis, projections };
    // Rebuilding after a loss, the service still serves what the ledger alone answers (decision 0078): taking it out of a
    // load balancer would only turn a partial outage into a whole one, on every instance at once.
    const status = store !== 'up' || redis !== 'up' || projections === 'catching_up' ? 'not_ready' : projections === 'rebuilding' ? 'degraded' : 'ready';
    reply.status(status === 'not_ready' ? 503 : 200);
    return { status, checks };
  }
}

async function check(probe: () => Promise<unknown>): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => (timer = setTimeout(() => resolve('down'), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([probe().then(() => 'up' as const, () => 'down' as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
