import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { AuditBundle, auditBundle, cosignedNote } from '@ledger/ledger-log';
import { notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { consentFacts, readConsentReferences } from '@ledger/redec';
import { LedgerLogService } from './ledger-log.service';

/** A consent's audit bundle (scope consent:audit), for the API and for the console's verification. */
export class AuditBundleQuery {
  constructor(
    readonly tenantId: string,
    readonly redecConsentId: string,
  ) {}
}

@QueryHandler(AuditBundleQuery)
export class AuditBundleHandler implements IQueryHandler<AuditBundleQuery, AuditBundle> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModel: ReadModel,
    private readonly ledgerLog: LedgerLogService,
  ) {}

  async execute({ tenantId, redecConsentId }: AuditBundleQuery): Promise<AuditBundle> {
    const references = await readConsentReferences(this.readModel, tenantId, redecConsentId);
    const facts = await consentFacts(this.store, tenantId, redecConsentId, references);
    if (facts === null) throw notFound('consent');
    const log = this.ledgerLog.log;
    // The leaves are read before the checkpoint is chosen, so it includes every one of them.
    const leaves = await log.leavesOf(facts.map((fact) => fact.id));
    const checkpoint = await this.ledgerLog.checkpointIncluding(Math.max(-1, ...leaves.map((leaf) => leaf.leafIndex)));
    return auditBundle(log, {
      redecConsentId,
      checkpoint: { size: checkpoint.size, note: await cosignedNote(log, checkpoint) },
      verifierKey: this.ledgerLog.identity.verifierKey,
      facts,
    });
  }
}
