import { Module } from '@nestjs/common';
import { ConsentHistoryHttpController } from './consent-history.http.controller';
import { ConsentHistoryHandler } from './consent-history.query';

/** Auditors' reads over HTTP (scope consent:audit), for the API and the console. The CLI offers the same (`ledger audit replay`). */
@Module({ controllers: [ConsentHistoryHttpController], providers: [ConsentHistoryHandler] })
export class AuditModule {}
