import { Module } from '@nestjs/common';
import { pageProviders } from '../embed/page-forms';
import { LedgerLogModule } from '../ledger-log/ledger-log.module';
import { ConsoleConsentsHttpController } from './console-consents.http.controller';
import { ConsoleHomeHttpController } from './console-home.http.controller';
import { ConsoleListsHttpController } from './console-lists.http.controller';
import { ConsolePageFilter } from './console-page.filter';
import { ConsoleSessions } from './console-sessions';
import { ConsoleSignInHttpController } from './console-sign-in.http.controller';

/** The console for the bank's compliance staff, served at /console (decision 0093). */
@Module({
  imports: [LedgerLogModule],
  controllers: [ConsoleSignInHttpController, ConsoleHomeHttpController, ConsoleConsentsHttpController, ConsoleListsHttpController],
  providers: [...pageProviders, ConsoleSessions, ConsolePageFilter],
})
export class ConsoleModule {}
