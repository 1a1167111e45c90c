import { randomUUID } from 'node:crypto';
import { issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectProblem, expectValidationError } from './support/expectations';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// Issue 12, docs/reference/operator-lists.md: the notices a bank still owes and
// the obligations it must reconcile, through the real HTTP stack, SQLite
// store and Redis, each list paged with a cursor.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
const DAY = 86_400_000;
const SCOPES: Scope[] = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'];

type Page = { status: number; body: { items: Array<Record<string, unknown>>; nextCursor: string | null } };

describe('operator lists', () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  const auth = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });
  const post = (apiKey: string, path: string, body: unknown) => api.http.post(path).set({ ...auth(apiKey), 'Idempotency-Key': randomUUID() }).send(body as object);
  /** Every item of a list, page by page (`limit` per page), and the pages' sizes. */
  async function everyPage(apiKey: string, path: string, query: Record<string, unknown>, limit: number) {
    const items: Array<Record<string, unknown>> = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = (await api.http
        .get(path)
        .query({ ...query, limit, ...(cursor ? { cursor } : {}) })
        .set(auth(apiKey))) as Page;
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      sizes.push(page.body.items.length);
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    return { items, sizes };
  }
  /** A fresh tenant, so that its lists hold only what the test made. */
  async function tenant() {
    const { tenantId, apiKey } = await api.tenantKey(SCOPES);
    const readOnly = (await issueApiKey(api.store, { tenantId, scopes: ['consent:runtime'] }, { actor: 'cli:test', correlationId: 'test', now: Date.now() })).apiKey;
    return { apiKey, readOnly, consents: redecConsents(api, apiKey) };
  }

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  describe('GET /v1/redec/notifications/overdue', () => {
    const OVERDUE = '/v1/redec/notifications/overdue';
    const evidence = (apiKey: string, consent: GrantedConsent, notificationReason: 'grant' | 'revoke', status: 'sent' | 'delivered' | 'bounced', sentAt: number) =>
      post(apiKey, `/v1/redec/consents/${consent.redecConsentId}/notification-evidence`, {
        notificationReason,
        notificationChannel: 'email',
        recipientHash: 'a'.repeat(64),
        status,
        sentAt,
        sourceSystem: 'notificador',
        sourceReference: `aviso-${randomUUID()}`,
        contentSha256: 'b'.repeat(64),
      });
    const revoke = (apiKey: string, consent: GrantedConsent, occurredAt: number) =>
      post(apiKey, `/v1/redec/consents/${consent.redecConsentId}/revoke`, { channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' });

    it('lists each grant and each revocation in effect without notification evidence, oldest first, once overdue', async () => {
      const { apiKey, consents } = await tenant();
      // Six calendar days back hold at least two banking days, whatever the holidays.
      const sixDaysAgo = Date.now() - 6 * DAY;
      const notified = await consents.grant({ occurredAt: sixDaysAgo });
      expect((await evidence(apiKey, notified, 'grant', 'sent', Date.now())).status).toBe(201);
      const bounced = await consents.grant({ occurredAt: sixDaysAgo + 1_000 });
      expect((await evidence(apiKey, bounced, 'grant', 'bounced', Date.now())).status).toBe(201);
      const silent = await consents.grant({ occurredAt: sixDaysAgo + 2_000 });
      const revoked = await consents.grant({ occurredAt: sixDaysAgo + 3_000 });
      expect((await revoke(apiKey, revoked, sixDaysAgo + 4_000)).status).toBe(201);
      const recent = await consents.grant();

      const { items } = await everyPage(apiKey, OVERDUE, { afterBankingDays: 1 }, 50);
      expect(items).toEqual([
        { redecConsentId: silent.redecConsentId, internalConsentCode: silent.internalConsentCode, reason: 'grant', actionAt: silent.grantedAt, consentActionId: silent.consentActionId, dueAt: expect.any(Number) },
        { redecConsentId: revoked.redecConsentId, internalConsentCode: revoked.internalConsentCode, reason: 'grant', actionAt: revoked.grantedAt, consentActionId: revoked.consentActionId, dueAt: expect.any(Number) },
        expect.objectContaining({ redecConsentId: revoked.redecConsentId, reason: 'revoke', actionAt: sixDaysAgo + 4_000 }),
      ]);
      for (const item of items) expect(item.dueAt as number).toBeLessThan(Date.now());
      expect(items.map((i) => i.redecConsentId)).not.toContain(recent.redecConsentId);
      // Not yet overdue after more banking days than have passed.
      expect((await api.http.get(OVERDUE).query({ afterBankingDays: 20 }).set(auth(apiKey))).body).toEqual({ items: [], nextCursor: null });

      // The notice of the revocation answers it: only the grants stay.
      const revocationAction = items[2].consentActionId;
      expect((await evidence(apiKey, revoked, 'revoke', 'sent', Date.now())).body).toMatchObject({ consentActionId: revocationAction });
      expect((await everyPage(apiKey, OVERDUE, { afterBankingDays: 1 }, 50)).items.map((i) => i.reason)).toEqual(['grant', 'grant']);
    });

    it('owes the notice of a kept revocation only once it takes effect, counted from then', async () => {
      const { apiKey, consents } = await tenant();
      const grantedAt = Date.now() - 6 * DAY;
      const consent = await consents.grant({ occurredAt: grantedAt });
      expect((await evidence(apiKey, consent, 'grant', 'sent', Date.now())).status).toBe(201);
      const extension = await post(apiKey, `/v1/redec/consents/${consent.redecConsentId}/credit-extensions`, {
        customerTenantId: consent.customerId,
        objectiveCode: '02',
        creditOperationReference: `op-${randomUUID()}`,
        creditGrantedAt: grantedAt + 1_000,
        sourceSystem: 'core-loans',
      });
      expect((await revoke(apiKey, consent, grantedAt + 2_000)).body).toMatchObject({ effective: false });
      expect((await everyPage(apiKey, OVERDUE, { afterBankingDays: 0 }, 50)).items).toEqual([]);
      const ended = await post(apiKey, `/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${extension.body.creditExtensionId}/end`, {
        endReason: 'obligation_extinguished',
        occurredAt: grantedAt + 3_000,
      });
      expect(ended.body).toMatchObject({ consentStatus: 'revoked', revocation: { effectiveAt: grantedAt + 3_000 } });
      expect((await everyPage(apiKey, OVERDUE, { afterBankingDays: 1 }, 50)).items).toEqual([expect.objectContaining({ reason: 'revoke', actionAt: grantedAt + 3_000 })]);
    });

    it('pages with a cursor: every item once, in order', async () => {
      const { apiKey, consents } = await tenant();
      const start = Date.now() - 6 * DAY;
      const granted = [];
      for (let i = 0; i < 5; i += 1) granted.push(await consents.grant({ occurredAt: start + i * 1_000 }));
      const { items, sizes } = await everyPage(apiKey, OVERDUE, { afterBankingDays: 1 }, 2);
      expect(sizes).toEqual([2, 2, 1]);
      expect(items.map((i) => i.redecConsentId)).toEqual(granted.map((c) => c.redecConsentId));
    });

    it('refuses a missing or out-of-range afterBankingDays, a bad limit and a cursor it did not hand out; needs consent:read; shows nothing of another tenant', async () => {
      const { apiKey, readOnly, consents } = await tenant();
      const list = (query: Record<string, unknown>, key = apiKey) => api.http.get(OVERDUE).query(query).set(auth(key));
      expectValidationError(await list({}), [{ field: 'afterBankingDays', reason: 'required' }]);
      expectValidationError(await list({ afterBankingDays: -1 }), [{ field: 'afterBankingDays', reason: expect.any(String) }]);
      expectValidationError(await list({ afterBankingDays: 'two' }), [{ field: 'afterBankingDays', reason: 'must_be_integer' }]);
      expectValidationError(await list({ afterBankingDays: 1, limit: 0 }), [{ field: 'limit', reason: expect.any(String) }]);
      expectValidationError(await list({ afterBankingDays: 1, cursor: 'bm90LWEtY3Vyc29y' }), [{ field: 'cursor', reason: 'invalid_cursor' }]);
      expectProblem(await list({ afterBankingDays: 1 }, readOnly), 403, 'INSUFFICIENT_SCOPE');
      await consents.grant({ occurredAt: Date.now() - 6 * DAY });
      const other = await tenant();
      expect((await list({ afterBankingDays: 1 }, other.apiKey)).body).toEqual({ items: [], nextCursor: null });
    });
  });

  describe('GET /v1/redec/reportable-obligations/reconciliation', () => {
    const RECONCILIATION = '/v1/redec/reportable-obligations/reconciliation';
    const bind = (apiKey: string, obligationReference: string, kind: string, redecConsentId?: string) =>
      post(apiKey, '/v1/redec/reportable-obligations/bindings', { sourceSystem: 'core-loans', obligationReference, kind, obligationGrantedAt: Date.now(), ...(redecConsentId ? { redecConsentId } : {}) });
    const annul = (apiKey: string, bindingId: string) => post(apiKey, `/v1/redec/reportable-obligations/bindings/${bindingId}/annul`, { reason: 'mistake', sourceReference: 'ticket-1' });

    it('lists the obligations the ledger knows whose lookup is unresolved or ambiguous, and drops each once resolved', async () => {
      const { apiKey, consents } = await tenant();
      const [a, b] = [await consents.grant(), await consents.grant()];
      const [ambiguous, annulled, resolved, refinanced] = ['amb', 'ann', 'res', 'ref'].map((p) => `${p}-${randomUUID()}`);
      await bind(apiKey, ambiguous, 'legacy_pre_redec');
      await bind(apiKey, ambiguous, 'consent', a.redecConsentId);
      const onlyBinding = await bind(apiKey, annulled, 'no_applicable_consent');
      await annul(apiKey, onlyBinding.body.bindingId);
      await bind(apiKey, resolved, 'consent', b.redecConsentId);
      // An obligation refinanced into `refinanced` does not carry consent a's code over.
      const extension = await post(apiKey, `/v1/redec/consents/${a.redecConsentId}/credit-extensions`, {
        customerTenantId: a.customerId,
        objectiveCode: '02',
        creditOperationReference: `loan-${randomUUID()}`,
        creditGrantedAt: a.grantedAt + 1_000,
        sourceSystem: 'core-loans',
      });
      await post(apiKey, `/v1/redec/consents/${a.redecConsentId}/credit-extensions/${extension.body.creditExtensionId}/end`, {
        endReason: 'superseded_by_new_obligation',
        supersededByObligationReference: refinanced,
      });

      const listed = async () => {
        const { items } = await everyPage(apiKey, RECONCILIATION, {}, 50);
        return Object.fromEntries(items.map((i) => [i.obligationReference, i]));
      };
      expect(await listed()).toEqual({
        [ambiguous]: { sourceSystem: 'core-loans', obligationReference: ambiguous, result: 'ambiguous', redecConsentIds: [a.redecConsentId] },
        [annulled]: { sourceSystem: 'core-loans', obligationReference: annulled, result: 'unresolved', redecConsentIds: [] },
        [refinanced]: { sourceSystem: 'core-loans', obligationReference: refinanced, result: 'unresolved', redecConsentIds: [a.redecConsentId] },
      });

      // Reconciled: the wrong binding annulled, the lost one bound again, the new obligation bound to a consent of its own.
      const wrong = (await api.store.readAll()).find((e) => e.type === 'ObligationBound' && (e.data as { obligationReference: string; kind: string }).obligationReference === ambiguous && (e.data as { kind: string }).kind === 'legacy_pre_redec');
      await annul(apiKey, (wrong!.data as { bindingId: string }).bindingId);
      await bind(apiKey, annulled, 'no_applicable_consent');
      expect((await bind(apiKey, refinanced, 'consent', b.redecConsentId)).status).toBe(201);
      expect(await listed()).toEqual({});
    });

    it('pages with a cursor, needs consent:read, and shows nothing of another tenant', async () => {
      const { apiKey, readOnly } = await tenant();
      for (let i = 0; i < 3; i += 1) {
        const reference = `x-${randomUUID()}`;
        await bind(apiKey, reference, 'legacy_pre_redec');
        await bind(apiKey, reference, 'no_applicable_consent');
      }
      const { items, sizes } = await everyPage(apiKey, RECONCILIATION, {}, 2);
      expect(sizes).toEqual([2, 1]);
      expect(new Set(items.map((i) => i.obligationReference)).size).toBe(3);
      expectProblem(await api.http.get(RECONCILIATION).set(auth(readOnly)), 403, 'INSUFFICIENT_SCOPE');
      expectValidationError(await api.http.get(RECONCILIATION).query({ cursor: 'bm90LWEtY3Vyc29y' }).set(auth(apiKey)), [{ field: 'cursor', reason: 'invalid_cursor' }]);
      const other = await tenant();
      expect((await api.http.get(RECONCILIATION).set(auth(other.apiKey))).body).toEqual({ items: [], nextCursor: null });
    });
  });
});
