import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, runCli, spawnApi } from './support/processes';
import { redecConsents } from './support/redec-consents';

// docs/reference/regulatory-representation.md (status, retention floor),
// docs/reference/states.md (`expired`), docs/reference/limits.md (initial
// window and minimum retention floor), docs/reference/accesses.md,
// `LEDGER_CLOCK_OFFSET_MS` and docs/decisions/0015: the service run as its own
// process, as `npm start` runs it, then restarted on the same data directory
// and Redis prefix with its clock shifted past the consent's initial window.
// Nothing but the clock changes between the two runs, so the consent expiring
// and the new request being denied can only come from the clock.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The local day in Santiago, computed with Intl here rather than with the library under test. */
const santiagoDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: '2-digit', day: '2-digit' });
const localDay = (epochMs: number) => santiagoDay.format(epochMs);

/** docs/decisions/0015, computed independently: the same instant 5 calendar years later in UTC, 29 February becoming 28 February. */
function fiveCalendarYearsAfter(epochMs: number): number {
  const d = new Date(epochMs);
  const year = d.getUTCFullYear() + 5;
  const daysInMonth = new Date(Date.UTC(year, d.getUTCMonth() + 1, 0)).getUTCDate();
  return Date.UTC(year, d.getUTCMonth(), Math.min(d.getUTCDate(), daysInMonth), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

describe('REDEC initial window expiry across a restart with the clock shifted', () => {
  let environment: TestEnvironment;
  const processes: ApiProcess[] = [];

  /** Stops the service the way an operator does (SIGTERM); it exits 0 after its shutdown hooks. */
  async function stop(api: ApiProcess): Promise<number | null> {
    api.child.kill('SIGTERM');
    return api.exited;
  }

  beforeAll(() => {
    environment = testEnvironment();
  });
  afterAll(async () => {
    for (const api of processes) {
      if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
      await api.exited;
    }
    await environment?.dispose();
  });

  it('after a restart with LEDGER_CLOCK_OFFSET_MS past initialAccessValidUntil the consent is expired, a new access is denied, an earlier one replays', async () => {
    // Minted with the operator CLI against the data directory, before any service runs.
    const tenant = await runCli(['tenant', 'create', '--name', 'Banco del Plazo'], environment.env);
    expect(tenant.status).toBe(0);
    const key = await runCli(
      ['key', 'issue', '--tenant', tenant.json.tenantId, '--scopes', 'consent:admin,consent:write,consent:read,consent:runtime,consent:identity-assert'],
      environment.env,
    );
    expect(key.status).toBe(0);
    const auth = { Authorization: `Bearer ${key.json.apiKey as string}` };

    const first = await spawnApi(environment.env);
    processes.push(first);
    let http = request(first.baseUrl);
    // The helper drives the service only through `http`, so a separate process serves as well as an in-process app.
    const consent = await redecConsents({ http } as ApiApp, key.json.apiKey).grant();
    // The window ends at the last millisecond of a Santiago local day, some weeks ahead.
    expect(localDay(consent.initialAccessValidUntil)).not.toBe(localDay(consent.initialAccessValidUntil + 1));
    expect(localDay(consent.initialAccessValidUntil - 1)).toBe(localDay(consent.initialAccessValidUntil));
    expect(consent.initialAccessValidUntil - consent.grantedAt).toBeGreaterThan(15 * DAY);

    const before = await http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth);
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ status: 'granted', initialAccessValidUntil: consent.initialAccessValidUntil, retentionUntil: null, retentionBasis: null });

    const accessRequest = {
      authorizationBasis: 'consent',
      consentAuthorizationMode: 'initial_window',
      redecConsentId: consent.redecConsentId,
      dataCategoryCode: 'redec.consolidated_debt_record',
      scopeId: 'redec-debt',
      objectiveCode: '02',
      reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `solicitud-${randomUUID()}`, assertedAt: Date.now() - 1_000 },
      sourceSystem: 'originacion',
      sourceReference: `acceso-${randomUUID()}`,
    };
    const authorized = await http.post('/v1/redec/accesses/authorize').set(auth).send(accessRequest);
    expect(authorized.status).toBe(201);
    expect(authorized.body).toEqual({ decision: expect.objectContaining({ status: 'authorized', redecConsentId: consent.redecConsentId }), replayed: false });
    expect(authorized.body.decision).not.toHaveProperty('denyReasonCode');

    expect(await stop(first)).toBe(0);

    // One hour past the window as the restarted service sees it.
    const offsetMs = consent.initialAccessValidUntil - Date.now() + HOUR;
    const second = await spawnApi({ ...environment.env, LEDGER_CLOCK_OFFSET_MS: String(offsetMs) });
    processes.push(second);
    http = request(second.baseUrl);

    // Status and retention are derived at read time: nothing had to run for the expiry to show.
    const after = await http.get(`/v1/redec/consents/${consent.redecConsentId}`).set(auth);
    expect(after.status).toBe(200);
    const retentionUntil = fiveCalendarYearsAfter(consent.initialAccessValidUntil);
    expect(after.body).toMatchObject({ status: 'expired', retentionBasis: 'loss_of_validity', retentionUntil, revocation: null });
    expect(retentionUntil - consent.initialAccessValidUntil).toBeGreaterThanOrEqual(5 * 365 * DAY);

    // A new request is decided on the shifted clock and denied, as a decision (201), not an error.
    const denied = await http
      .post('/v1/redec/accesses/authorize')
      .set(auth)
      .send({ ...accessRequest, sourceReference: `acceso-${randomUUID()}` });
    expect(denied.status).toBe(201);
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    expect(denied.body).toEqual({
      decision: expect.objectContaining({ status: 'denied', denyReasonCode: 'redec_initial_window_expired', redecConsentId: consent.redecConsentId }),
      replayed: false,
    });
    expect(denied.body.decision.decidedAt).toBeGreaterThan(consent.initialAccessValidUntil);
    expect(denied.body.decision.redecAccessId).not.toBe(authorized.body.decision.redecAccessId);

    // The request decided before the expiry keeps its recorded decision.
    const replayed = await http.post('/v1/redec/accesses/authorize').set(auth).send(accessRequest);
    expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 200, body: { decision: authorized.body.decision, replayed: true } });
  }, 180_000); // two service starts and two CLI runs, each a new Node process (~10-15 s in all); the margin is for a loaded 2-core machine
});
