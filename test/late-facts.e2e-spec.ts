import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { EventStore, PostgresEventStore, RecordedEvent } from '@ledger/event-store';
import { createTestDatabase, readEveryEvent } from '@ledger/event-store/testing';
import { createTenant, issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { addYears, redecStreams } from '@ledger/redec';
import { startApiApp } from './support/api-app';
import { EMBEDDED_STORE, testEnvironment } from './support/environment';
import { expectProblem } from './support/expectations';
import { ensureBuilt, spawnApi, stopProcesses } from './support/processes';
import { GrantedConsent, redecConsents } from './support/redec-consents';

// The issue: "the ledger decides by when things happened, never by the order
// the bank reported them, and records no decision on a stale consent"
// (docs/decisions/0054-facts-in-the-order-they-happened.md). Its four
// examples through the HTTP stack createApiApp builds, on the embedded SQLite
// store (one API in this process) and on PostgreSQL (two API processes run
// from the build as `npm start` runs it, on one database), in the same run.
// Examples 1-3 report two facts in either order and both at once, and expect
// the same answers; example 4 races authorizations against a revocation and
// reads what the ledger recorded.

const DAY = 86_400_000;
const MINUTE = 60_000;
/** The obligation source system of the configuration redecConsents publishes. */
const SOURCE_SYSTEM = 'core-loans';
const SCOPES: Scope[] = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'];
/** The certificate worker appends to consent streams on its own schedule; the facts read here are the requests' only. */
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };
/** A built service's start, or six races, on a loaded 2-core machine. */
const SLOW = 120_000;

type Http = ReturnType<typeof request>;
type Response = { status: number; headers: Record<string, string>; body: any };

/** One ledger under test: the APIs that serve it, a tenant's key, and its store read directly for the facts it recorded. */
interface Ledger {
  apis: Http[];
  tenantId: string;
  apiKey: string;
  store: EventStore;
  close(): Promise<void>;
}

async function onSqlite(): Promise<Ledger> {
  const environment = testEnvironment(EMBEDDED_STORE);
  const api = await startApiApp(environment, NO_BACKGROUND_WRITES);
  const { tenantId, apiKey } = await api.tenantKey(SCOPES);
  return {
    apis: [api.http],
    tenantId,
    apiKey,
    store: api.store,
    close: async () => {
      await api.close();
      await environment.dispose();
    },
  };
}

async function onPostgres(): Promise<Ledger> {
  ensureBuilt();
  const database = await createTestDatabase();
  const environment = testEnvironment({ DATABASE_URL: database.url, ...NO_BACKGROUND_WRITES });
  const store = new PostgresEventStore(database.url);
  const release = async () => {
    await store.close();
    await environment.dispose();
    await database.drop();
  };
  // Minted in the store before the APIs start, as `ledger tenant create` and `ledger key issue` would: both read it on their first catch-up.
  const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
  const { tenantId } = await createTenant(store, 'Banco de Prueba', operator);
  const { apiKey } = await issueApiKey(store, { tenantId, scopes: SCOPES }, operator);
  const started = await Promise.allSettled([spawnApi(environment.env, SLOW, { built: true }), spawnApi(environment.env, SLOW, { built: true })]);
  const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stopProcesses(processes);
    await release();
    throw failed.reason;
  }
  return {
    apis: processes.map((api) => request(api.baseUrl)),
    tenantId,
    apiKey,
    store,
    close: async () => {
      await stopProcesses(processes);
      await release();
    },
  };
}

describe.each([
  ['SQLite, one API in this process', onSqlite],
  ['PostgreSQL, two API processes', onPostgres],
])('facts in the order they happened, on %s', (_store, start) => {
  let ledger: Ledger;
  let consents: ReturnType<typeof redecConsents>;

  beforeAll(async () => {
    ledger = await start();
    consents = redecConsents({ http: ledger.apis[0] }, ledger.apiKey);
  }, SLOW);
  afterAll(async () => {
    await ledger?.close();
  });

  /** The API a request goes to: with two, requests sent at once go to different processes. */
  const api = (via: number) => ledger.apis[via % ledger.apis.length];
  const auth = () => ({ Authorization: `Bearer ${ledger.apiKey}` });
  const post = async (path: string, body: object, { via = 0, idempotent = true } = {}): Promise<Response> => {
    const call = api(via).post(path).set(auth());
    return (idempotent ? call.set('Idempotency-Key', randomUUID()) : call).send(body);
  };
  const get = async (path: string, query: Record<string, string> = {}, via = 0) => {
    const response = await api(via).get(path).query(query).set(auth());
    expect(response.status).toBe(200);
    return response.body;
  };

  const grantedDaysAgo = (days: number) => consents.grant({ occurredAt: Date.now() - days * DAY });
  const revoke = (consent: GrantedConsent, occurredAt: number, via = 0) =>
    post(`/v1/redec/consents/${consent.redecConsentId}/revoke`, { channel: 'digital', occurredAt, sourceType: 'direct', identityAssurance: 'client_authenticated' }, { via });
  const registerCredit = (consent: GrantedConsent, creditOperationReference: string, creditGrantedAt: number, via = 0) =>
    post(
      `/v1/redec/consents/${consent.redecConsentId}/credit-extensions`,
      { customerTenantId: consent.customerId, objectiveCode: '02', creditOperationReference, creditGrantedAt, sourceSystem: SOURCE_SYSTEM, sourceReference: `credito-${randomUUID()}` },
      { via },
    );
  const bind = (consent: GrantedConsent, obligationReference: string, obligationGrantedAt: number, via = 0) =>
    post('/v1/redec/reportable-obligations/bindings', { sourceSystem: SOURCE_SYSTEM, obligationReference, kind: 'consent', redecConsentId: consent.redecConsentId, obligationGrantedAt }, { via });
  const authorize = (consent: GrantedConsent, mode: Record<string, unknown>, via = 0) =>
    post(
      '/v1/redec/accesses/authorize',
      {
        authorizationBasis: 'consent',
        redecConsentId: consent.redecConsentId,
        dataCategoryCode: 'redec.consolidated_debt_record',
        scopeId: 'redec-debt',
        objectiveCode: '02',
        reportingObligation: { status: 'none', sourceSystem: SOURCE_SYSTEM, sourceReference: `solicitud-${randomUUID()}`, assertedAt: Date.now() - 1_000 },
        sourceSystem: 'originacion',
        sourceReference: `acceso-${randomUUID()}`,
        ...mode,
      },
      { via, idempotent: false },
    );
  const manageObligation = (consent: GrantedConsent, obligationReference: string) =>
    authorize(consent, {
      consentAuthorizationMode: 'credit_lifecycle_extension',
      accessPurpose: 'manage_existing_obligation',
      reportingObligation: { status: 'granted', sourceSystem: SOURCE_SYSTEM, sourceReference: obligationReference, assertedAt: Date.now() - 1_000 },
    });

  /** The obligation's entries on the reconciliation list, paged through to its end. */
  async function toReconcile(obligationReference: string) {
    const found: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Array<{ obligationReference: string }>; nextCursor: string | null } = await get('/v1/redec/reportable-obligations/reconciliation', cursor ? { cursor } : {});
      found.push(...page.items.filter((item) => item.obligationReference === obligationReference));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return found;
  }

  /**
   * What a bank and an auditor observe of a consent and one obligation: the
   * read, a new manage_existing_obligation decision for the obligation, the
   * consent-code lookup. Not the instants at which the service learned each
   * fact, which follow arrival by nature (decision 0054, rule 6).
   */
  async function answers(consent: GrantedConsent, obligationReference: string) {
    const read = await get(`/v1/redec/consents/${consent.redecConsentId}`);
    const decided = await manageObligation(consent, obligationReference);
    expect(decided.status).toBe(201);
    const lookup = await get('/v1/redec/reportable-obligations/consent-code', { sourceSystem: SOURCE_SYSTEM, obligationReference });
    return {
      status: read.status,
      revocation: read.revocation && { revokedAt: read.revocation.revokedAt, effective: read.revocation.effective, effectiveAt: read.revocation.effectiveAt },
      retentionUntil: read.retentionUntil,
      retentionBasis: read.retentionBasis,
      keptAliveBy: read.creditExtensions.filter((e: { effective: boolean }) => e.effective).map((e: { creditOperationReference: string; status: string; endedAt: number | null }) => [e.creditOperationReference, e.status, e.endedAt]),
      decision: { status: decided.body.decision.status, denyReasonCode: decided.body.decision.denyReasonCode ?? null },
      lookup: { result: lookup.result, consentCode: lookup.consentCode },
    };
  }

  type Order = 'in this order' | 'in the other order' | 'at once';
  const ORDERS: Order[] = ['in this order', 'in the other order', 'at once'];
  /**
   * Reports two facts: the one named first, then the other, the other first,
   * or both at once (in flight together, at different API processes where
   * there are two). The answers come back in the order the facts are named.
   */
  async function report(order: Order, first: (via: number) => Promise<Response>, second: (via: number) => Promise<Response>): Promise<[Response, Response]> {
    if (order === 'at once') return Promise.all([first(0), second(1)]);
    if (order === 'in this order') {
      const a = await first(0);
      return [a, await second(0)];
    }
    const b = await second(0);
    return [await first(0), b];
  }

  /** The fact reported first is recorded; the other order refuses it with `code` (at once, either may come first). */
  const recordedOrRefused = (order: Order, answer: Response, code: string): boolean => {
    const recorded = order === 'in this order' || (order === 'at once' && answer.status === 201);
    if (recorded) expect(answer.status).toBe(201);
    else expectProblem(answer, 422, code);
    return recorded;
  };
  /** What a consent revoked at `revokedAt` answers, whatever was reported before: nothing kept alive, no access, no code. */
  const revokedFrom = (revokedAt: number) => ({
    status: 'revoked',
    revocation: { revokedAt, effective: true, effectiveAt: revokedAt },
    retentionUntil: addYears(revokedAt, 5),
    retentionBasis: 'revocation',
    keptAliveBy: [],
    decision: { status: 'denied', denyReasonCode: 'redec_consent_revoked' },
    lookup: { result: 'unresolved', consentCode: null },
  });

  describe('issue example 1: a credit granted after the revocation', () => {
    it.each(ORDERS)(
      'the credit, then a revocation back-dated before it, %s: the revocation is effective from its occurredAt, the credit keeps nothing alive, no access, no code',
      async (order) => {
        const now = Date.now();
        const consent = await grantedDaysAgo(5);
        const obligation = `op-${randomUUID()}`;
        const revokedAt = now - 3 * DAY;
        const [extension, revocation] = await report(
          order,
          (via) => registerCredit(consent, obligation, now - DAY, via),
          (via) => revoke(consent, revokedAt, via),
        );

        expect(revocation.status).toBe(201);
        expect(revocation.body).toMatchObject({ revokedAt, effective: true, consentStatus: 'revoked' });
        // Reported after the revocation, the credit is refused; reported before it, it stays a fact that enables nothing.
        const recorded = recordedOrRefused(order, extension, 'redec_credit_granted_after_revocation');
        const read = await get(`/v1/redec/consents/${consent.redecConsentId}`);
        expect(read.creditExtensions).toEqual(
          recorded ? [expect.objectContaining({ creditOperationReference: obligation, status: 'active', effective: false, ineffectiveReason: 'credit_granted_after_revocation' })] : [],
        );

        expect(await answers(consent, obligation)).toEqual(revokedFrom(revokedAt));
      },
    );
  });

  describe('issue example 2: a binding, and a revocation back-dated before the obligation was granted', () => {
    it.each(ORDERS)('the binding, then the revocation, %s: the obligation has no consent code, and a recorded binding is listed to reconcile', async (order) => {
      const now = Date.now();
      const consent = await grantedDaysAgo(5);
      const obligation = `op-${randomUUID()}`;
      const revokedAt = now - 2 * DAY;
      const [binding, revocation] = await report(
        order,
        (via) => bind(consent, obligation, now - 10 * MINUTE, via),
        (via) => revoke(consent, revokedAt, via),
      );

      expect(revocation.status).toBe(201);
      expect(revocation.body).toMatchObject({ revokedAt, effective: true, consentStatus: 'revoked' });
      const recorded = recordedOrRefused(order, binding, 'redec_consent_not_valid_at_obligation_grant');

      expect(await answers(consent, obligation)).toEqual(revokedFrom(revokedAt));
      // The list tells the bank to stop reporting a code it was given: a refused binding gave none, and the ledger does not know the obligation.
      expect(await toReconcile(obligation)).toEqual(
        recorded ? [{ sourceSystem: SOURCE_SYSTEM, obligationReference: obligation, result: 'unresolved', redecConsentIds: [consent.redecConsentId] }] : [],
      );
    });
  });

  describe('issue example 3: an obligation registered, and the end of another that names it as superseding it', () => {
    it.each(ORDERS)(
      'the new obligation, then the end naming it, %s: it does not inherit the consent, no access to manage it, no code, listed to reconcile',
      async (order) => {
        const now = Date.now();
        const consent = await grantedDaysAgo(5);
        const [superseded, superseding] = [`op-${randomUUID()}`, `op-${randomUUID()}`];
        const registered = await registerCredit(consent, superseded, now - 4 * DAY);
        expect(registered.status).toBe(201);
        const endedAt = now - 2 * DAY;
        const [extension, end] = await report(
          order,
          (via) => registerCredit(consent, superseding, now - 3 * DAY, via),
          (via) =>
            post(
              `/v1/redec/consents/${consent.redecConsentId}/credit-extensions/${registered.body.creditExtensionId}/end`,
              { endReason: 'superseded_by_new_obligation', supersededByObligationReference: superseding, occurredAt: endedAt },
              { via },
            ),
        );

        expect(end.status).toBe(200);
        expect(end.body).toMatchObject({ status: 'ended', endedAt, supersededByObligationReference: superseding, consentStatus: 'granted' });
        const recorded = recordedOrRefused(order, extension, 'redec_superseding_obligation_does_not_inherit_consent');
        const read = await get(`/v1/redec/consents/${consent.redecConsentId}`);
        expect(read.creditExtensions.map((e: Record<string, unknown>) => [e.creditOperationReference, e.status, e.effective, e.ineffectiveReason])).toEqual([
          [superseded, 'ended', true, null],
          ...(recorded ? [[superseding, 'active', false, 'superseding_obligation']] : []),
        ]);

        expect(await answers(consent, superseding)).toEqual({
          status: 'granted',
          revocation: null,
          retentionUntil: null,
          retentionBasis: null,
          keptAliveBy: [[superseded, 'ended', endedAt]],
          decision: { status: 'denied', denyReasonCode: 'redec_no_active_extension_for_obligation' },
          lookup: { result: 'unresolved', consentCode: null },
        });
        // Named as superseding, the obligation is known to the ledger in either order, and the bank must reconcile it.
        expect(await toReconcile(superseding)).toEqual([{ sourceSystem: SOURCE_SYSTEM, obligationReference: superseding, result: 'unresolved', redecConsentIds: [consent.redecConsentId] }]);
      },
    );
  });

  describe('issue example 4: no decision on a stale consent', () => {
    const CLIENTS = 6;
    const TRIALS = 6;
    /** Decisions answered before the revocation is sent, so that it lands among authorizations in flight. */
    const BEFORE_REVOCATION = 2 * CLIENTS;
    /** Requests each client sends once the revocation is answered, so that decisions are in flight while it is recorded. */
    const AFTER_REVOCATION = 3;

    interface Answered {
      redecAccessId: string;
      status: string;
      denyReasonCode: string | null;
      sentAfterRevocationAnswered: boolean;
    }

    /** Six clients authorize in a loop, each at an API of its own, while one revocation is sent to one of them. */
    async function race(consent: GrantedConsent, revokeVia: number): Promise<Answered[]> {
      const answered: Answered[] = [];
      let revocation: Promise<Response> | undefined;
      let revocationAnswered = false;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let after = 0; after < AFTER_REVOCATION; ) {
            const sentAfterRevocationAnswered = revocationAnswered;
            const response = await authorize(consent, { consentAuthorizationMode: 'initial_window' }, client);
            expect(response.status).toBe(201);
            const { redecAccessId, status, denyReasonCode } = response.body.decision;
            answered.push({ redecAccessId, status, denyReasonCode: denyReasonCode ?? null, sentAfterRevocationAnswered });
            if (sentAfterRevocationAnswered) after += 1;
            if (!revocation && answered.length >= BEFORE_REVOCATION) {
              // Answered or not, the clients stop a few requests later.
              revocation = revoke(consent, Date.now() - 1_000, revokeVia).finally(() => {
                revocationAnswered = true;
              });
            }
          }
        }),
      );
      const revoked = await revocation!;
      expect(revoked.status).toBe(201);
      expect(revoked.body).toMatchObject({ effective: true, consentStatus: 'revoked' });
      return answered;
    }

    it(
      'records no authorization after the revocation, and each one on the consent revision it was decided on, with authorizations racing a revocation',
      async () => {
        const trials: Array<{ consent: GrantedConsent; answered: Answered[] }> = [];
        for (let trial = 0; trial < TRIALS; trial += 1) {
          const consent = await consents.grant({ occurredAt: Date.now() - MINUTE });
          trials.push({ consent, answered: await race(consent, trial) });
        }

        const events = await readEveryEvent(ledger.store);
        const outcomes = trials.map(({ consent, answered }, trial) => {
          const own = events.filter((e) => e.streamId === redecStreams.consent(ledger.tenantId, consent.redecConsentId));
          const revocation = own.find((e) => e.type === 'RevocationRecorded')!;
          const decisions = events.filter((e): e is RecordedEvent<DecisionData> => e.type === 'AccessDecided' && (e.data as DecisionData).redecConsentId === consent.redecConsentId);
          /** The consent stream's revision just before `position`: the consent as it stood when a fact there was recorded. */
          const revisionAt = (position: number) => own.filter((e) => e.position < position).at(-1)?.revision ?? null;
          const authorized = decisions.filter((e) => e.data.status === 'authorized');
          return {
            trial,
            answeredAreRecorded: answered.map((a) => a.redecAccessId).sort().join() === decisions.map((e) => e.data.redecAccessId).sort().join(),
            authorizedBeforeRevocation: authorized.filter((e) => e.position < revocation.position).length,
            decidedAfterRevocation: decisions.filter((e) => e.position > revocation.position).length,
            authorizedAfterRevocation: authorized.filter((e) => e.position > revocation.position).length,
            decidedOnAnOlderRevision: authorized.filter((e) => e.data.consentRevision !== revisionAt(e.position)).length,
            sentAfterRevocationAnsweredNotRevoked: answered.filter((a) => a.sentAfterRevocationAnswered && a.denyReasonCode !== 'redec_consent_revoked').length,
          };
        });

        // Every answer is a fact, read back here exactly once.
        expect(outcomes.map(({ trial, answeredAreRecorded }) => ({ trial, answeredAreRecorded }))).toEqual(outcomes.map(({ trial }) => ({ trial, answeredAreRecorded: true })));
        // The rule. Positions follow commit order: no authorization is recorded after the revocation, and each one
        // names the consent revision it stood on when it was recorded, so none was decided on a consent the revocation had changed.
        expect(outcomes.map(({ trial, authorizedAfterRevocation, decidedOnAnOlderRevision }) => ({ trial, authorizedAfterRevocation, decidedOnAnOlderRevision }))).toEqual(
          outcomes.map(({ trial }) => ({ trial, authorizedAfterRevocation: 0, decidedOnAnOlderRevision: 0 })),
        );
        // Each trial raced: authorizations were recorded before the revocation, and decisions after it.
        for (const { authorizedBeforeRevocation, decidedAfterRevocation } of outcomes) {
          expect(authorizedBeforeRevocation).toBeGreaterThan(0);
          expect(decidedAfterRevocation).toBeGreaterThan(0);
        }
        // What a client sees: once the revocation is answered, every new request is denied as revoked.
        expect(outcomes.map(({ trial, sentAfterRevocationAnsweredNotRevoked }) => ({ trial, sentAfterRevocationAnsweredNotRevoked }))).toEqual(
          outcomes.map(({ trial }) => ({ trial, sentAfterRevocationAnsweredNotRevoked: 0 })),
        );
      },
      SLOW,
    );
  });
});

interface DecisionData {
  redecAccessId: string;
  redecConsentId: string;
  status: 'authorized' | 'denied';
  consentRevision: number | null;
}
