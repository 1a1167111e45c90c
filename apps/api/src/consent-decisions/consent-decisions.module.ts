import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { captureDependenciesProvider } from '../capture-dependencies';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { bankingCalendarProvider } from '../redec/banking-calendar.provider';
import { GetConsentDecisionHandler } from './get/get-consent-decision.query';
import { GetConsentDecisionHttpController } from './get/get-consent-decision.http.controller';
import { RecordConsentDecisionHandler } from './record/record-consent-decision.command';
import { RecordConsentDecisionHttpController } from './record/record-consent-decision.http.controller';

/** Multi-Consent decisions: several configurations decided at once, all or none. */
@Module({})
export class ConsentDecisionsModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: ConsentDecisionsModule,
      controllers: [RecordConsentDecisionHttpController, GetConsentDecisionHttpController],
      providers: [bankingCalendarProvider(config), captureDependenciesProvider, ReadYourWrites, RequestCommands, RecordConsentDecisionHandler, GetConsentDecisionHandler],
    };
  }
}
