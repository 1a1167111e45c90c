import { Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { LEDGER_CONFIG, LedgerConfig } from '@ledger/platform';
import { PROJECTIONS_REDIS } from '@ledger/projections';
import { EventDispatcher, InjectQueue } from '@ledger/queues';
import { certificateJobsFor, consentCertificatesQueue } from './consent-certificates.queue';
import { RenderCertificateProcessor } from './render-certificate.processor';

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ providers: [RenderCertificateProcessor], exports: [RenderCertificateProcessor] })
export class ConsentCertificatesWorkerModule {}

/** Follows the store and asks for a render per electronic grant; runs in the API process. */
@Injectable()
class CertificateDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly dispatcher: EventDispatcher;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(PROJECTIONS_REDIS) redis: Redis,
    @Inject(LEDGER_CONFIG) config: LedgerConfig,
    @InjectQueue(consentCertificatesQueue.name) queue: Queue,
  ) {
    this.dispatcher = new EventDispatcher({ store, redis, prefix: config.redisPrefix, name: consentCertificatesQueue.name, queue, jobsFor: certificateJobsFor });
  }

  onApplicationBootstrap(): void {
    this.dispatcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}

@Module({ imports: [ConsentCertificatesWorkerModule], providers: [CertificateDispatcher] })
export class ConsentCertificatesModule {}
