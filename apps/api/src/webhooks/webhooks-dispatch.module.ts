import { Module } from '@nestjs/common';
import { webhookJobsFor } from '@ledger/webhooks';
import { eventDispatcherProvider } from '../event-dispatcher.provider';
import { DeliveryMetricsModule } from '../metrics/delivery-metrics.module';
import { DeliverWebhookProcessor } from './deliver-webhook.processor';
import { webhookDeliveriesQueue } from './webhook-deliveries.queue';

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ imports: [DeliveryMetricsModule], providers: [DeliverWebhookProcessor], exports: [DeliverWebhookProcessor] })
export class WebhookDeliveryWorkerModule {}

/** One delivery per fact and subscribed endpoint, asked for by a dispatcher with its own checkpoint; runs in the API process. */
@Module({
  imports: [WebhookDeliveryWorkerModule],
  providers: [eventDispatcherProvider(webhookDeliveriesQueue.name, (store) => (event) => webhookJobsFor(store, event))],
})
export class WebhooksDispatchModule {}
