import { randomUUID } from 'node:crypto';
import { customerDocumentId } from '@ledger/ledger';
import { ReadModel } from '@ledger/projections';
import { redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { GrantedConsent, redecConsents } from './support/redec-consents';
import { redecConfiguration } from './support/redec-fixtures';
import { LedgerAnsweredCall, expectRightAnswer, ledgerAnsweredCalls } from './support/ledger-answered-calls';
import { deleteRedisKeysAtOnce } from './support/redis-keys';

/** Events no projection routes: a rebuild still reads each of them, which gives it a ledger long enough to be watched. */
const HISTORY_EVENTS = 300_000;

// Decision 0078: when Redis loses the read model, the service goes on answering what the ledger alone answers while the
// model is rebuilt, refuses (503 with Retry-After) only what needs the model, and loses nothing it acknowledged.
describe('the read model lost under load', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let apiKey: string;
  let consent: GrantedConsent;
  let configurationId: string;
  const auth = () => ({ Authorization: `Bearer ${apiKey}` });
  const appendHistory = async (events: number) => {
    const metadata = { correlationId: 'history', recordedAt: Date.now(), schemaVersion: 1, tenantId };
    for (let appended = 0; appended < events; appended += 1_000) {
      const batch = Array.from({ length: 1_000 }, () => ({ id: randomUUID(), type: 'HistoryRecorded', data: { note: 'x'.repeat(200) }, metadata }));
      await api.store.append(`history-${randomUUID()}`, batch, 'no_stream');
    }
  };

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    ({ tenantId, apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:identity-assert', 'consent:read', 'consent:runtime']));
    consent = await redecConsents(api, apiKey).grantSettled();
    const published = await api.http.post('/v1/configurations').set(auth()).send(redecConfiguration({ templateKey: `rebuild-${randomUUID()}` }));
    expect(published.status).toBe(201);
    configurationId = published.body.configurationId;
    await appendHistory(HISTORY_EVENTS);
    await waitUntil(async () => (await api.http.get('/health/ready')).body.status === 'ready', 60_000);
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('serves writes, authorize and GET consent from the ledger while the model is rebuilt, refuses only what reads the model, and loses nothing', async () => {
    const calls = ledgerAnsweredCalls(api, apiKey, consent, configurationId);
    const configurationBefore = await calls.configuration();
    expect(configurationBefore.status).toBe(200);
    const consentBefore = await calls.consent();
    const lookupBefore = await calls.lookup();
    expect(consentBefore.status).toBe(200);
    expect(lookupBefore.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([consent.redecConsentId]);

    type Kind = LedgerAnsweredCall;
    const kinds = Object.keys(calls) as Kind[];
    const answers: Array<{ kind: Kind; status: number; body: any; retryAfter?: string }> = [];
    const statuses = new Set<string>();
    const call = async (kind: Kind) => {
      const answer = await calls[kind]();
      answers.push({ kind, status: answer.status, body: answer.body, retryAfter: answer.headers['retry-after'] });
      return answer;
    };
    const health = async () => {
      const answer = await api.http.get('/health/ready');
      statuses.add(`${answer.status} ${JSON.stringify(answer.body)}`);
      return answer;
    };

    // Load: four callers of each kind at once, from before the model is lost until after it is rebuilt. The callers
    // share this process's event loop with the service, so they hold back while the proof round below runs: under
    // their full weight, one round of calls can take longer than a whole rebuild on a busy machine.
    let loadEnds = false;
    let loadHeld: Promise<void> | undefined;
    const load = Promise.all(
      kinds.flatMap((kind) =>
        Array.from({ length: 4 }, async () => {
          while (!loadEnds) {
            await loadHeld;
            await call(kind);
          }
        }),
      ),
    );
    // One call of each kind that provably ran while the model was being rebuilt: the service said so before the calls
    // were sent and again after every one was answered. A rebuild that outruns the calls proves nothing, so the ledger
    // is made longer (the rebuild reads all of it) and the model lost again: a second, separate loss.
    let provedDuringRebuild: Array<{ kind: Kind; status: number }> = [];
    for (let loss = 1; loss <= 4 && provedDuringRebuild.length === 0; loss += 1) {
      if (loss > 1) await appendHistory(HISTORY_EVENTS);
      // Deleted under load: calls in flight see the model vanish.
      expect(await deleteRedisKeysAtOnce(environment.prefix)).toBeGreaterThan(0);
      let releaseLoad = () => {};
      loadHeld = new Promise<void>((resolve) => (releaseLoad = resolve));
      await waitUntil(async () => (await health()).body.status === 'degraded', 30_000);
      const round = await Promise.all(kinds.map(async (kind) => ({ kind, status: (await call(kind)).status })));
      const after = await health();
      loadHeld = undefined;
      releaseLoad();
      if (after.body.status === 'degraded') {
        expect(after.status).toBe(200);
        expect(after.body.checks.projections).toBe('rebuilding');
        provedDuringRebuild = round;
      }
      await waitUntil(async () => (await health()).body.status === 'ready', 90_000);
    }
    loadEnds = true;
    await load;
    // On failure, what the service said of itself and what it logged above info.
    expect({ provedDuringRebuild: provedDuringRebuild.map((r) => r.kind), statuses: [...statuses], log: api.logs.filter((line) => Number(line.level) >= 40).map((line) => line.msg) }).toMatchObject({ provedDuringRebuild: kinds });
    // What reads only the model was refused while it was rebuilt (each answer is checked below: never an empty model's).
    expect(answers.some((a) => a.kind === 'lookup' && a.status === 503)).toBe(true);

    const before = { configuration: configurationBefore.body, consent: consentBefore.body, lookup: lookupBefore.body };
    for (const answer of answers) expectRightAnswer(answer, before, 'read_model_rebuilding');

    // Nothing acknowledged is lost: every decision is in the ledger, and every customer in the rebuilt model.
    for (const answer of answers.filter((a) => a.kind === 'authorize')) {
      const recorded = await api.store.readStream(redecStreams.access(tenantId, answer.body.decision.redecAccessId));
      expect(recorded.map((e) => e.type)).toEqual(['AccessDecided']);
    }
    for (const answer of answers.filter((a) => a.kind === 'capture')) {
      expect((await api.http.get(`/v1/redec/consents/${answer.body.redecConsentId}`).set(auth())).status).toBe(200);
    }
    const readModel = api.app.get(ReadModel);
    for (const answer of answers.filter((a) => a.kind === 'resolve')) {
      expect(await readModel.getDocument('customers', customerDocumentId(tenantId, answer.body.customerId))).toMatchObject({ customerId: answer.body.customerId });
    }
    expect((await calls.lookup()).body).toEqual(lookupBefore.body);
    expect((await calls.consent()).body).toEqual(consentBefore.body);
  }, 300_000);
});
