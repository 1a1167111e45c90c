import { Module } from '@nestjs/common';
import { ConsentHistoryHttpController } from './consent-history.http.controller';

/** Auditors' reads over HTTP (scope consent:audit). The CLI offers the same (`ledger audit replay`). */
@Module({ controllers: [ConsentHistoryHttpController] })
export class AuditModule {}
