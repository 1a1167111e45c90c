import { EventStore } from '@ledger/event-store';
import { redecStreams } from '../streams';
import { ConfigurationDocument, configurationDocumentId, configurationsProjection } from './configurations.projection';

/**
 * The published configuration versions as the ledger holds them, for when
 * the read model cannot answer (decision 0078: a bank must be able to open
 * an interaction while the model is rebuilt). A lookup of a version not yet
 * seen reads the tenant's configuration template streams, which the store
 * lists from its index of streams (decision 0092): a few streams per
 * tenant, whatever the ledger's size. A version never changes, so what was
 * read stays true.
 */
export class LedgerConfigurations {
  private readonly versions = new Map<string, ConfigurationDocument>();

  constructor(private readonly store: Pick<EventStore, 'streamIds' | 'readStream'>) {}

  /** The configuration version, or null when the tenant has none with this id (as readConfiguration). */
  async find(tenantId: string, configurationId: string): Promise<ConfigurationDocument | null> {
    const id = configurationDocumentId(tenantId, configurationId);
    // Read after the lookup began, so every version published before it is found.
    if (!this.versions.has(id)) await this.readVersionsOf(tenantId);
    return this.versions.get(id) ?? null;
  }

  private async readVersionsOf(tenantId: string): Promise<void> {
    for (const streamId of await this.store.streamIds(redecStreams.configurationTemplates(tenantId))) {
      for (const event of await this.store.readStream(streamId)) {
        const version = configurationsProjection.evolve(null, event);
        if (version) this.versions.set(configurationDocumentId(version.tenantId, version.configurationId), version);
      }
    }
  }
}
