import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { BLOB_STORE, BlobStore, CONSENT_CERTIFICATE_MEDIA_TYPE, renderConsentCertificate } from '@ledger/artifacts';
import { EVENT_STORE, EventStore, RecordedEvent } from '@ledger/event-store';
import { SCHEMA_VERSION, streams } from '@ledger/ledger';
import { CLOCK, Clock, IdentifierProtection } from '@ledger/platform';
import { JobProcessor } from '@ledger/queues';
import { loadConsentDecision } from '@ledger/consents';
import { ArtifactStored, InteractionCreated, ConsentEvent, ConsentState, certificateBankAt, certificateFactsOf, evolveConsent, redecStreams } from '@ledger/redec';

export interface RenderCertificateJob {
  tenantId: string;
  redecConsentId: string;
}

/**
 * Renders an electronic grant's consent certificate, stores it, then records
 * `ArtifactStored`. Safe to repeat (jobs run at least once): the bytes are
 * the same for the same facts, the blob store is content-addressed, and the
 * fact's id is derived from the consent, so a second append is recognised
 * as a retry; a consent whose artifact is already stored is left alone.
 */
@Injectable()
export class RenderCertificateProcessor implements JobProcessor<RenderCertificateJob, void> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly protection: IdentifierProtection,
  ) {}

  /**
   * The name the bank gave the data subject at capture: on the interaction
   * it opened, or, for a Multi-Consent decision sent to the API (which opens
   * none), on the decision, which its grants name as their cause.
   */
  private async dataSubjectNameOf(tenantId: string, interactionId: string, grantEvent: RecordedEvent): Promise<string | null> {
    const [created] = await this.store.readStream(redecStreams.interaction(tenantId, interactionId), { maxCount: 1 });
    const { causationId } = grantEvent.metadata;
    const ciphertext = created
      ? (created.data as InteractionCreated['data']).dataSubjectNameCiphertext
      : causationId !== undefined
        ? (await loadConsentDecision(this.store, tenantId, causationId))?.dataSubjectNameCiphertext
        : null;
    return ciphertext ? this.protection.decrypt(tenantId, ciphertext) : null;
  }

  async process(job: Job<RenderCertificateJob, void>): Promise<void> {
    const { tenantId, redecConsentId } = job.data;
    const stream = redecStreams.consent(tenantId, redecConsentId);
    const recorded = await this.store.readStream(stream);
    const consent = recorded.reduce<ConsentState | null>((state, e) => evolveConsent(state, e as unknown as ConsentEvent, tenantId), null);
    if (!consent || consent.artifact.status === 'ready' || consent.artifact.origin !== 'generated_pdf') return;

    const grantEvent = recorded[0] as RecordedEvent;
    const bank = certificateBankAt(await this.store.readStream(streams.tenant(tenantId)), grantEvent.position);
    const dataSubjectName = await this.dataSubjectNameOf(tenantId, consent.grant.interactionId, grantEvent);
    const { contentSha256, size } = await this.blobs.put(tenantId, renderConsentCertificate(certificateFactsOf(consent.grant, bank, dataSubjectName)), consent.grant.customerId);
    const stored: ArtifactStored = {
      type: 'ArtifactStored',
      data: { redecConsentId, contentSha256, size, mediaType: CONSENT_CERTIFICATE_MEDIA_TYPE, storedAt: this.clock.now() },
    };
    await this.store.append(
      stream,
      [
        {
          id: artifactStoredEventId(grantEvent.id),
          type: stored.type,
          data: stored.data,
          metadata: {
            tenantId,
            actor: 'worker:consent-certificates',
            correlationId: grantEvent.metadata.correlationId,
            causationId: grantEvent.id,
            recordedAt: this.clock.now(),
            schemaVersion: SCHEMA_VERSION,
          },
        },
      ],
      'any',
    );
  }
}

/** One ArtifactStored per grant: a retried job appends the same id, which the store recognises. */
function artifactStoredEventId(grantEventId: string): string {
  const hex = createHash('sha256').update(`artifact-stored\u0000${grantEventId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
