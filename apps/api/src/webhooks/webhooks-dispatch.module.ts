import { Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { PROJECTIONS_REDIS } from '@ledger/projections';
import { EventDispatcher, InjectQueue } from '@ledger/queues';
import { webhookJobsFor } from '@ledger/webhooks';
import { DeliveryMetricsModule } from '../metrics/delivery-metrics.module';
import { DeliverWebhookProcessor } from './deliver-webhook.processor';
import { webhookDeliveriesQueue } from './webhook-deliveries.queue';

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ imports: [DeliveryMetricsModule], providers: [DeliverWebhookProcessor], exports: [DeliverWebhookProcessor] })
export class WebhookDeliveryWorkerModule {}

/** Follows the store from its own checkpoint and asks for one delivery per fact and subscribed endpoint; runs in the API process. */
@Injectable()
class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly dispatcher: EventDispatcher;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(PROJECTIONS_REDIS) redis: Redis,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
    @InjectQueue(webhookDeliveriesQueue.name) queue: Queue,
  ) {
    this.dispatcher = new EventDispatcher({
      store,
      redis,
      prefix: config.redisPrefix,
      name: webhookDeliveriesQueue.name,
      queue,
      jobsFor: (event) => webhookJobsFor(store, event),
    });
  }

  onApplicationBootstrap(): void {
    this.dispatcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}

@Module({ imports: [WebhookDeliveryWorkerModule], providers: [WebhookDispatcher] })
export class WebhooksDispatchModule {}
