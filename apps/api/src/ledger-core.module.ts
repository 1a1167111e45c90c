import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { BLOB_STORE, BlobStore, createBlobStore } from '@ledger/artifacts';
import { EVENT_STORE, EventStore, LogBuildProgress, createEventStore } from '@ledger/event-store';
import { API_KEY_VERIFIER, ApiKeyVerifier } from '@ledger/http';
import { CUSTOMER_KEY_TABLE, CustomerKeyTable, CustomerKeyring, ReportKeyring, TenantKeyring, VerifiedApiKeys, openCustomerKeyTable } from '@ledger/ledger';
import { BlobProtection, CLOCK, Clock, IdentifierProtection, LEDGER_CONFIG, LedgerConfig, masterKeys, systemClock } from '@ledger/platform';
import { stopTracing, traceEventStore } from '@ledger/tracing';

/** Closes the stores last, after the HTTP server, the projections and the jobs have stopped using them. */
@Injectable()
class StoresLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(CUSTOMER_KEY_TABLE) private readonly keyTable: CustomerKeyTable,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.blobs.close();
    await this.store.close();
    await this.keyTable.close();
  }
}

/** Sends the spans still batched once everything else has stopped: a process that exits takes unsent spans with it. */
@Injectable()
class TracingLifecycle implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await stopTracing();
  }
}

/**
 * What every module of the service may inject: the configuration, the clock,
 * the event store (SQLite by default, PostgreSQL or EventStoreDB when configured), the
 * tenants' data keys (unwrapped by the master key at start, which fails when
 * the master key does not fit the ledger), the customers' data keys in the
 * key table (decision 0035), the identifier protection and the
 * encrypted blob store of evidence and artifacts under those keys (in
 * PostgreSQL beside the events, else on the file system), and the
 * API key verifier the authentication guard calls.
 */
@Module({})
export class LedgerCoreModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: LedgerCoreModule,
      global: true,
      providers: [
        { provide: LEDGER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: systemClock(config.clockOffsetMs) },
        {
          provide: EVENT_STORE,
          useFactory: () => {
            const logger = new Logger('LedgerLog');
            const onLogBuild = ({ entered, remaining }: LogBuildProgress) => logger.log(`entered ${entered} events written before the tree into it, ${remaining} to go`);
            return traceEventStore(createEventStore(config, { onLogBuild }));
          },
        },
        {
          provide: TenantKeyring,
          inject: [EVENT_STORE, CLOCK],
          useFactory: (store: EventStore, clock: Clock) => TenantKeyring.open(store, masterKeys(config.masterKey, config.previousMasterKeys), clock),
        },
        { provide: CUSTOMER_KEY_TABLE, useFactory: () => openCustomerKeyTable(config) },
        {
          provide: CustomerKeyring,
          inject: [TenantKeyring, CUSTOMER_KEY_TABLE, CLOCK],
          useFactory: (keys: TenantKeyring, table: CustomerKeyTable, clock: Clock) => new CustomerKeyring(keys, table, clock),
        },
        {
          provide: ReportKeyring,
          inject: [TenantKeyring, CUSTOMER_KEY_TABLE, CLOCK],
          useFactory: (keys: TenantKeyring, table: CustomerKeyTable, clock: Clock) => new ReportKeyring(keys, table, clock),
        },
        {
          provide: IdentifierProtection,
          inject: [TenantKeyring, CustomerKeyring],
          useFactory: (keys: TenantKeyring, customerKeys: CustomerKeyring) => new IdentifierProtection(keys, customerKeys),
        },
        {
          provide: BLOB_STORE,
          inject: [TenantKeyring, CustomerKeyring],
          useFactory: (keys: TenantKeyring, customerKeys: CustomerKeyring) => createBlobStore(config, new BlobProtection(keys, customerKeys)),
        },
        {
          provide: API_KEY_VERIFIER,
          inject: [EVENT_STORE],
          useFactory: (store: EventStore): ApiKeyVerifier => new VerifiedApiKeys(store),
        },
        StoresLifecycle,
        TracingLifecycle,
      ],
      exports: [LEDGER_CONFIG, CLOCK, EVENT_STORE, CUSTOMER_KEY_TABLE, ReportKeyring, IdentifierProtection, BLOB_STORE, API_KEY_VERIFIER],
    };
  }
}
