import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@ledger/event-store';
import { CommandContext, toNewEvent } from '@ledger/ledger';
import { grant, grantedAt } from '../consent/testing/consent-fixtures';
import { ProfileCatalog } from '../profiles/profile-catalog';
import { redecStreams } from '../streams';
import { annulBinding, bindObligation } from './bind-obligation';
import { BindObligationRequest } from './bind.decider';

// Integration: the real SQLite store, for what the pure decider cannot show:
// the consent folded from its stream, appends at the revision read, and a
// lost reply answered from the recorded fact.
describe('bindObligation against the SQLite store', () => {
  let dir: string;
  let store: SqliteEventStore;
  const tenantId = randomUUID();
  const NOW = grantedAt + 2 * 86_400_000;
  const profiles = new ProfileCatalog();
  const context = (overrides: Partial<CommandContext> = {}): CommandContext & { tenantId: string } => ({
    tenantId,
    actor: 'key-1',
    correlationId: randomUUID(),
    now: NOW,
    ...overrides,
  });
  const toConsent: BindObligationRequest = { sourceSystem: 'core-loans', obligationReference: 'op-1', kind: 'consent', redecConsentId: 'con-1', obligationGrantedAt: grantedAt + 86_400_000 };
  const obligationStream = (request = toConsent, tenant = tenantId) => redecStreams.obligation(tenant, request.sourceSystem, request.obligationReference);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bind-obligation-'));
    store = new SqliteEventStore(join(dir, 'ledger.sqlite'));
    await store.append(redecStreams.consent(tenantId, 'con-1'), [toNewEvent(grant, context())], 'no_stream');
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("binds to the consent folded from the store, with its internal code, in the obligation's stream", async () => {
    const { binding, position } = await bindObligation({ store, profiles }, toConsent, context());
    expect(binding).toMatchObject({ ...toConsent, internalConsentCode: grant.data.internalConsentCode, boundAt: NOW });
    const [fact] = await store.readStream(obligationStream());
    expect(fact).toMatchObject({ id: binding.bindingId, type: 'ObligationBound', data: binding, position });
  });

  it('answers an identical binding from another request with the first one, recording nothing', async () => {
    const first = await bindObligation({ store, profiles }, toConsent, context({ idempotencyKey: 'k-1', requestHash: 'h-1' }));
    const again = await bindObligation({ store, profiles }, toConsent, context({ idempotencyKey: 'k-2', requestHash: 'h-1' }));
    expect(again).toEqual({ binding: first.binding, position: null });
    expect(await store.readStream(obligationStream())).toHaveLength(1);
  });

  it('records one binding for concurrent identical requests and answers it to all', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => bindObligation({ store, profiles }, toConsent, context())));
    expect(new Set(results.map((r) => r.binding.bindingId)).size).toBe(1);
    expect(results.filter((r) => r.position !== null)).toHaveLength(1);
    expect(await store.readStream(obligationStream())).toHaveLength(1);
  });

  it('keeps concurrent different bindings of one obligation, each once', async () => {
    const legacy: BindObligationRequest = { ...toConsent, kind: 'legacy_pre_redec', redecConsentId: undefined };
    await Promise.all([bindObligation({ store, profiles }, toConsent, context()), bindObligation({ store, profiles }, legacy, context())]);
    expect((await store.readStream(obligationStream())).map((e) => (e.data as { kind: string }).kind).sort()).toEqual(['consent', 'legacy_pre_redec']);
  });

  it('answers a retry whose binding was recorded but whose reply was lost from the recorded fact, as recorded', async () => {
    const retried = context({ idempotencyKey: 'k-1', requestHash: 'h-1' });
    const first = await bindObligation({ store, profiles }, toConsent, retried);
    expect(await bindObligation({ store, profiles }, toConsent, { ...retried, now: NOW + 1000 })).toEqual(first);
    expect(await store.readStream(obligationStream())).toHaveLength(1);
  });

  it("does not find a consent of another tenant", async () => {
    await expect(bindObligation({ store, profiles }, toConsent, context({ tenantId: randomUUID() }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records nothing for a refused binding', async () => {
    await expect(bindObligation({ store, profiles }, { ...toConsent, sourceSystem: 'cards' }, context())).rejects.toMatchObject({ code: 'redec_obligation_source_system_mismatch' });
    expect(await store.readStream(obligationStream({ ...toConsent, sourceSystem: 'cards' }))).toEqual([]);
  });

  it("annuls a binding in the obligation's stream, found through the lookup given, once", async () => {
    const { binding } = await bindObligation({ store, profiles }, toConsent, context());
    const obligationOf = async (tenant: string, bindingId: string) => (tenant === tenantId && bindingId === binding.bindingId ? toConsent : null);
    const annulment = { reason: 'wrong consent', sourceReference: 'ticket-1' };
    const { annulment: recorded, position } = await annulBinding({ store, obligationOf }, binding.bindingId, annulment, context());
    expect(recorded).toMatchObject({ bindingId: binding.bindingId, ...annulment, annulledAt: NOW });
    expect((await store.readStream(obligationStream())).map((e) => [e.type, e.position])).toEqual([
      ['ObligationBound', expect.any(Number)],
      ['ObligationBindingAnnulled', position],
    ]);
    await expect(annulBinding({ store, obligationOf }, binding.bindingId, annulment, context())).rejects.toMatchObject({ code: 'redec_binding_already_annulled' });
    await expect(annulBinding({ store, obligationOf }, 'b-unknown', annulment, context())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
