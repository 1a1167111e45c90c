import { Module } from '@nestjs/common';
import { DeliveryMetricsModule } from './delivery-metrics.module';
import { MetricsCollector } from './metrics.collector';
import { MetricsController } from './metrics.controller';

/**
 * GET /metrics, in the API process only (apps/worker has no HTTP port; its
 * figures reach Redis and are shown from here). QueueRuntime and
 * ProjectionRunner come from the global QueuesModule and ProjectionsModule.
 */
@Module({
  imports: [DeliveryMetricsModule],
  controllers: [MetricsController],
  providers: [MetricsCollector],
})
export class MetricsModule {}
