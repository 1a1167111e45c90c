import { Provider } from '@nestjs/common';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import { EmbedDependencies } from '@ledger/embed';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { IdentifierProtection } from '@ledger/platform';
import { BankingCalendar, ProfileCatalog } from '@ledger/redec';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable } from '@ledger/ledger';
import { PublishedConfigurations } from './configurations/published-configurations';
import { BANKING_CALENDAR } from './redec/banking-calendar.provider';

export const CAPTURE_DEPENDENCIES = Symbol('CAPTURE_DEPENDENCIES');

/**
 * What capturing consent needs: the interaction's dependencies (configurations,
 * profiles, customer resolution) and the grant's (blobs, calendar), for embed
 * sessions and Multi-Consent decisions alike.
 */
export const captureDependenciesProvider: Provider = {
  provide: CAPTURE_DEPENDENCIES,
  inject: [EVENT_STORE, IdentifierProtection, CUSTOMER_KEY_TABLE, ProfileCatalog, BLOB_STORE, BANKING_CALENDAR, PublishedConfigurations],
  useFactory: (
    store: EventStore,
    protection: IdentifierProtection,
    blindIndex: CustomerKeyTable,
    profiles: ProfileCatalog,
    blobs: BlobStore,
    calendar: BankingCalendar,
    configurations: PublishedConfigurations,
  ): EmbedDependencies => ({
    store,
    protection,
    blindIndex,
    profiles,
    blobs,
    calendar,
    findConfiguration: (tenantId, configurationId) => configurations.find(tenantId, configurationId),
  }),
};
