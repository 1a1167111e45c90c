import { Module } from '@nestjs/common';
import { eventDispatcherProvider } from '../../event-dispatcher.provider';
import { certificateJobsFor, consentCertificatesQueue } from './consent-certificates.queue';
import { RenderCertificateProcessor } from './render-certificate.processor';

/** The processor, for every process that runs the queue's workers (the API by default, apps/worker). */
@Module({ providers: [RenderCertificateProcessor], exports: [RenderCertificateProcessor] })
export class ConsentCertificatesWorkerModule {}

/** Follows the store and asks for a render per electronic grant; runs in the API process. */
@Module({
  imports: [ConsentCertificatesWorkerModule],
  providers: [eventDispatcherProvider(consentCertificatesQueue.name, () => certificateJobsFor)],
})
export class ConsentCertificatesModule {}
