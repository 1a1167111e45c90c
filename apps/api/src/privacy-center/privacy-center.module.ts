import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { captureDependenciesProvider } from '../capture-dependencies';
import { pageProviders } from '../embed/page-forms';
import { ReadYourWrites } from '../read-your-writes';
import { bankingCalendarProvider } from '../redec/banking-calendar.provider';
import { RequestCommands } from '../request-commands';
import { SubjectReports } from '../rights-requests/subject-reports';
import {
  EndPrivacyCenterSessionByBankHandler,
  EndPrivacyCenterSessionHandler,
  FileOnPrivacyCenterHandler,
  OpenPrivacyCenterSessionHandler,
  PrivacyCenterRecordsHandler,
  ReadPrivacyCenterSessionHandler,
  RevokeOnPrivacyCenterHandler,
} from './privacy-center.commands';
import { PrivacyCenterPageHttpController } from './privacy-center-page.http.controller';
import { PrivacyCenterSessionsHttpController } from './privacy-center-sessions.http.controller';

/** The privacy center: sessions opened by the bank, and the page where the data subject sees and acts on what the ledger holds about them. */
@Module({})
export class PrivacyCenterModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: PrivacyCenterModule,
      controllers: [PrivacyCenterSessionsHttpController, PrivacyCenterPageHttpController],
      providers: [
        ...pageProviders,
        bankingCalendarProvider(config),
        captureDependenciesProvider,
        ReadYourWrites,
        RequestCommands,
        SubjectReports,
        OpenPrivacyCenterSessionHandler,
        ReadPrivacyCenterSessionHandler,
        PrivacyCenterRecordsHandler,
        RevokeOnPrivacyCenterHandler,
        FileOnPrivacyCenterHandler,
        EndPrivacyCenterSessionHandler,
        EndPrivacyCenterSessionByBankHandler,
      ],
    };
  }
}
