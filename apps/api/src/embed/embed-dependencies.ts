import { Provider } from '@nestjs/common';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EmbedDependencies } from '@ledger/embed';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { IdentifierProtection } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { BankingCalendar, ProfileCatalog, readConfiguration } from '@ledger/redec';
import { BANKING_CALENDAR } from '../redec/banking-calendar.provider';

export const EMBED_DEPENDENCIES = Symbol('EMBED_DEPENDENCIES');

/** What opening a session, deciding on it and recording its consent need: the interaction's and the grant's dependencies together. */
export const embedDependenciesProvider: Provider = {
  provide: EMBED_DEPENDENCIES,
  inject: [EVENT_STORE, IdentifierProtection, ProfileCatalog, BLOB_STORE, BANKING_CALENDAR, ReadModel],
  useFactory: (
    store: EventStore,
    protection: IdentifierProtection,
    profiles: ProfileCatalog,
    blobs: BlobStore,
    calendar: BankingCalendar,
    readModel: ReadModel,
  ): EmbedDependencies => ({
    store,
    protection,
    profiles,
    blobs,
    calendar,
    findConfiguration: (tenantId, configurationId) => readConfiguration(readModel, tenantId, configurationId),
  }),
};
