import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { AuditBundleHttpController } from './audit-bundle.http.controller';
import { AuditBundleHandler } from './audit-bundle.query';
import { LedgerLogHttpController } from './ledger-log.http.controller';
import { LedgerLogService } from './ledger-log.service';

/** The verifiable ledger (decision 0058): checkpoints, witnesses, proofs and audit bundles. */
@Module({
  imports: [MetricsModule],
  controllers: [LedgerLogHttpController, AuditBundleHttpController],
  providers: [LedgerLogService, AuditBundleHandler],
  exports: [LedgerLogService],
})
export class LedgerLogModule {}
