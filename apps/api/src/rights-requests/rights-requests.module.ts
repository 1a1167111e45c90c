import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { captureDependenciesProvider } from '../capture-dependencies';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { bankingCalendarProvider } from '../redec/banking-calendar.provider';
import { GetRightsRequestHandler, ReceiveRightsRequestHandler, RectifyRightsRequestHandler, TransitionRightsRequestHandler } from './rights-request.commands';
import { RightsRequestsHttpController } from './rights-requests.http.controller';
import { SubjectReports } from './subject-reports';

/** Data subjects' requests under Ley 21.719 and REDEC disputes, with their legal clocks (decision 0067). */
@Module({})
export class RightsRequestsModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: RightsRequestsModule,
      controllers: [RightsRequestsHttpController],
      providers: [bankingCalendarProvider(config), captureDependenciesProvider, ReadYourWrites, RequestCommands, SubjectReports, ReceiveRightsRequestHandler, TransitionRightsRequestHandler, RectifyRightsRequestHandler, GetRightsRequestHandler],
    };
  }
}
