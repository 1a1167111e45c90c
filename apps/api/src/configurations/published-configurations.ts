import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { ReadModel, fromModelOrLedger } from '@ledger/projections';
import { ConfigurationDocument, LedgerConfigurations, readConfiguration } from '@ledger/redec';

/**
 * A published configuration version by id, for whatever opens a capture on
 * it (interactions, Multi-Consent decisions, embed sessions) and for `GET`
 * configuration: from the read model, or from the ledger while the model is
 * rebuilt after a loss (decision 0078).
 */
@Injectable()
export class PublishedConfigurations {
  private readonly fromLedger: LedgerConfigurations;

  constructor(
    private readonly readModel: ReadModel,
    @Inject(EVENT_STORE) store: EventStore,
  ) {
    this.fromLedger = new LedgerConfigurations(store);
  }

  find(tenantId: string, configurationId: string): Promise<ConfigurationDocument | null> {
    return fromModelOrLedger(
      () => readConfiguration(this.readModel, tenantId, configurationId),
      () => this.fromLedger.find(tenantId, configurationId),
    );
  }
}
