import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { bankingCalendarProvider } from '../redec/banking-calendar.provider';
import { ConsentPageHttpController } from './consent-page.http.controller';
import { captureDependenciesProvider } from '../capture-dependencies';
import { DecideOnEmbedSessionHandler, EmbedSessionHandler, OpenEmbedSessionHandler, ReadConsentPageHandler } from './embed-session.commands';
import { EmbedSessionsHttpController } from './embed-sessions.http.controller';
import { pageProviders } from './page-forms';

/** Embedded capture: sessions opened by the integrator, and the consent page the data subject decides on. */
@Module({})
export class EmbedModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: EmbedModule,
      controllers: [EmbedSessionsHttpController, ConsentPageHttpController],
      providers: [
        ...pageProviders,
        bankingCalendarProvider(config),
        captureDependenciesProvider,
        ReadYourWrites,
        RequestCommands,
        OpenEmbedSessionHandler,
        EmbedSessionHandler,
        ReadConsentPageHandler,
        DecideOnEmbedSessionHandler,
      ],
    };
  }
}
