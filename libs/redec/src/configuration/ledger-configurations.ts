import { EventStore, readAllPages } from '@ledger/event-store';
import { ConfigurationDocument, configurationDocumentId, configurationsProjection } from './configurations.projection';

/**
 * The published configuration versions as the ledger holds them, for when
 * the read model cannot answer (decision 0078: a bank must be able to open
 * an interaction while the model is rebuilt). The first lookup reads every
 * ConfigurationPublished fact (the store filters them out of the ledger);
 * a lookup of a version not yet seen reads only the facts after the last one
 * read. A version never changes, so what was read stays true.
 */
export class LedgerConfigurations {
  private readonly versions = new Map<string, ConfigurationDocument>();
  private readTo = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly store: Pick<EventStore, 'readAll'>) {}

  /** The configuration version, or null when the tenant has none with this id (as readConfiguration). */
  async find(tenantId: string, configurationId: string): Promise<ConfigurationDocument | null> {
    const id = configurationDocumentId(tenantId, configurationId);
    // A read already under way may have passed the version asked for before it was published: a second one begins
    // after this lookup did, so it reads every version published before the lookup.
    for (let reads = 0; !this.versions.has(id) && reads < 2; reads += 1) await this.readNewVersions();
    return this.versions.get(id) ?? null;
  }

  private readNewVersions(): Promise<void> {
    return (this.reading ??= this.read().finally(() => (this.reading = undefined)));
  }

  private async read(): Promise<void> {
    for await (const page of readAllPages(this.store, { pageSize: 1_000, after: this.readTo, eventTypes: ['ConfigurationPublished'] })) {
      for (const event of page) {
        const version = configurationsProjection.evolve(null, event);
        if (version) this.versions.set(configurationDocumentId(version.tenantId, version.configurationId), version);
        this.readTo = event.position;
      }
    }
  }
}
