import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { countingReads } from '@ledger/event-store/testing';
import { CommandContext, ValueProtection, toNewEvent } from '@ledger/ledger';
import { grant, grantedAt } from '../consent/testing/consent-fixtures';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { AccessAggregates, authorizeAccess, redecAccessIdFor } from './access';
import { AccessRequestInput } from './access.decider';
import { accessRequest } from './testing/access-fixtures';

// These requests name no mandatary: nothing is protected.
const noProtection: ValueProtection = new Proxy({} as ValueProtection, {
  get: () => () => Promise.reject(new Error('no value is protected for these requests')),
});

// Integration: the real SQLite store, for what the pure decider cannot show: what authorize reads, and what it answers from memory.
describe('authorizeAccess against the SQLite store', () => {
  let dir: string;
  let service: SqliteEventStore;
  const tenantId = randomUUID();
  const profiles = new ProfileCatalog();
  const context = (): CommandContext & { tenantId: string } => ({ tenantId, actor: 'key-1', correlationId: randomUUID(), now: grantedAt + 60_000 });
  // As the bank sends it; the fixture names no mandatary.
  const request: AccessRequestInput = { ...accessRequest(), mandatary: undefined };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authorize-'));
    service = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    await service.append(redecStreams.consent(tenantId, 'con-1'), [toNewEvent(grant, context())], 'no_stream');
  });
  afterEach(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a repeat of a decision it has folded from memory, reading nothing, and still refuses another body under the same reference', async () => {
    const store = countingReads(service);
    const aggregates = new AccessAggregates();
    const deps = { store, profiles, protection: noProtection, aggregates };
    const first = await authorizeAccess(deps, request, context());
    expect(first).toMatchObject({ replayed: false, decision: { status: 'authorized' } });
    // The first repeat folds the recorded decision; every later one is answered from it.
    expect(await authorizeAccess(deps, request, context())).toEqual({ decision: first.decision, replayed: true, position: null });
    const readsBefore = store.reads;
    expect(await authorizeAccess(deps, request, context())).toEqual({ decision: first.decision, replayed: true, position: null });
    await expect(authorizeAccess(deps, { ...request, scopeId: 'another-scope' }, context())).rejects.toMatchObject({ code: 'redec_access_request_conflict' });
    expect(store.reads).toBe(readsBefore);
    expect(await service.readStream(redecStreams.access(tenantId, redecAccessIdFor(tenantId, request.sourceSystem, request.sourceReference)))).toHaveLength(1);
  });

  it("takes the decision again when a block of the data subject is approved while it is being taken, and denies it (decision 0068)", async () => {
    const blocks = redecStreams.processingBlocks(tenantId, grant.data.customerId);
    const approval = { type: 'RightsRequestResolved', data: { rightsRequestId: 'rr-1', resolvedAt: grantedAt, outcome: 'approved', response: { channel: 'sms', sentAt: grantedAt, contentSha256: 'a'.repeat(64) }, complaintDeadline: null, recordedAt: grantedAt } };
    let approved = false;
    // The block is recorded just after authorize has read the subject's blocks, and before it appends its decision.
    const store = new Proxy(service, {
      get: (target, name) =>
        name !== 'readStream'
          ? Reflect.get(target, name, target)
          : async (streamId: string, options?: object) => {
              const read = await target.readStream(streamId, options);
              if (streamId === blocks && !approved) {
                approved = true;
                await target.append(blocks, [toNewEvent(approval, context())], 'no_stream');
              }
              return read;
            },
    });
    const decided = await authorizeAccess({ store, profiles, protection: noProtection, aggregates: new AccessAggregates() }, request, context());
    expect(approved).toBe(true);
    expect(decided.decision).toMatchObject({ status: 'denied', denyReasonCode: 'data_subject_processing_blocked' });
    expect(await service.readStream(redecStreams.access(tenantId, redecAccessIdFor(tenantId, request.sourceSystem, request.sourceReference)))).toHaveLength(1);
  });

  it("denies the next decision once another process approved a block after this one had folded the subject's blocks", async () => {
    const aggregates = new AccessAggregates();
    const deps = { store: service, profiles, protection: noProtection, aggregates };
    expect((await authorizeAccess(deps, request, context())).decision.status).toBe('authorized');
    const other = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    try {
      const approval = { type: 'RightsRequestResolved', data: { rightsRequestId: 'rr-2', resolvedAt: grantedAt, outcome: 'approved', response: { channel: 'sms', sentAt: grantedAt, contentSha256: 'a'.repeat(64) }, complaintDeadline: null, recordedAt: grantedAt } };
      await other.append(redecStreams.processingBlocks(tenantId, grant.data.customerId), [toNewEvent(approval, context())], 'no_stream');
    } finally {
      await other.close();
    }
    const next = await authorizeAccess(deps, { ...request, sourceReference: 'another-access' }, context());
    expect(next.decision).toMatchObject({ status: 'denied', denyReasonCode: 'data_subject_processing_blocked' });
  });

  it('answers a repeat decided by another process from the store, the same decision', async () => {
    const other = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    try {
      const first = await authorizeAccess({ store: other, profiles, protection: noProtection, aggregates: new AccessAggregates() }, request, context());
      const again = await authorizeAccess({ store: service, profiles, protection: noProtection, aggregates: new AccessAggregates() }, request, context());
      expect(again).toEqual({ decision: first.decision, replayed: true, position: null });
    } finally {
      await other.close();
    }
  });
});
