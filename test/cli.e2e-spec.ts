import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore } from '@ledger/event-store';
import { rutCheckDigit } from '@ledger/ledger';
import { PROJECTIONS } from '../apps/api/src/projections';
import { commands } from '../apps/cli/src/commands';
import { loadConfig } from '@ledger/platform';
import { ApiApp, startApiApp } from './support/api-app';
import { EMBEDDED_STORE, TestEnvironment, testEnvironment, withRedisAt } from './support/environment';
import { CliResult, expectExitZero, runCli } from './support/processes';

// README.md, "Operator CLI": every command prints exactly one JSON document
// on stdout and exits 0, or exits non-zero with one JSON error document.
// Run as a separate process against the same data directory and Redis prefix
// as a service that is running meanwhile (in this process).
describe('operator CLI', () => {
  // Each CLI run is a new Node process (~2 s alone); the margin is for a loaded 2-core machine.
  const SLOW = 120_000;
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantCreated: CliResult;
  let tenantId: string;

  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const cli = (...args: string[]) => runCli(args, environment.env);
  const rut = (body: string) => ({ system: 'cl-sii', type: 'rut', value: `${body}-${rutCheckDigit(body)}` });
  const resolve = (apiKey: string, userReference: string, body = '12121212') =>
    api.http.post('/v1/customers/resolve').set('Authorization', `Bearer ${apiKey}`).send({ userReference, identifiers: [rut(body)] });

  /** Exactly one JSON document on stdout: the whole of it parses (nothing before or after), and no stack trace is in it. */
  function expectOneJsonDocument(result: CliResult) {
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    expect(typeof result.json).toBe('object');
    expect(result.json).not.toBeNull();
    expect(result.stdout).not.toMatch(/\n\s+at |\.ts:\d+/);
  }

  function expectSuccess(result: CliResult) {
    expectExitZero(result);
    expectOneJsonDocument(result);
  }

  function expectFailure(result: CliResult) {
    expect(result.status).not.toBe(0);
    expect(result.status).not.toBeNull(); // exited, not killed
    expectOneJsonDocument(result);
    expect(result.json).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
  }

  async function headPosition(): Promise<number> {
    const store = createEventStore(loadConfig(environment.env, () => undefined));
    try {
      return await store.headPosition();
    } finally {
      await store.close();
    }
  }

  /** Polls `probe` every 20 ms for at most `ms`; returns how long it took, or throws. */
  async function within(ms: number, probe: () => Promise<boolean>): Promise<number> {
    const started = Date.now();
    for (;;) {
      if (await probe()) return Date.now() - started;
      if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  beforeAll(async () => {
    environment = testEnvironment();
    [api, tenantCreated] = await Promise.all([startApiApp(environment), runCli(['tenant', 'create', '--name', 'Banco del Operador'], environment.env)]);
    tenantId = tenantCreated.json?.tenantId;
  }, SLOW);
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('`tenant create --name` prints {"tenantId"} and exits 0', () => {
    expectSuccess(tenantCreated);
    expect(tenantCreated.json).toEqual({ tenantId: expect.stringMatching(UUID) });
  });

  it('`console user create` and `console user reset` print {"userId", "initialPassword"}, and that password signs the person in to the running service', async () => {
    const created = await cli('console', 'user', 'create', '--tenant', tenantId, '--email', 'Oficial@Banco.example', '--role', 'auditor');
    expectSuccess(created);
    expect(created.json).toEqual({ userId: expect.stringMatching(UUID), initialPassword: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) });
    expect(created.stderr).not.toContain(created.json.initialPassword);
    const signInWith = (password: string) =>
      api.http
        .post('/console/sign-in')
        .set({ origin: new URL(loadConfig(environment.env, () => undefined).publicUrl).origin, 'sec-fetch-site': 'same-origin' })
        .type('form')
        .send({ email: 'oficial@banco.example', password });
    const signIn = await signInWith(created.json.initialPassword);
    expect([signIn.status, signIn.headers.location]).toEqual([303, '/console/sign-in/new-password']);

    // An operator's reset: a new initial password, and the old one no longer signs in.
    const reset = await cli('console', 'user', 'reset', '--email', 'oficial@banco.example');
    expectSuccess(reset);
    expect(reset.json).toEqual({ userId: created.json.userId, initialPassword: expect.stringMatching(/^[A-Za-z0-9_-]{20}$/) });
    expect((await signInWith(created.json.initialPassword)).status).toBe(401);
    expect((await signInWith(reset.json.initialPassword)).status).toBe(303);
    expectFailure(await cli('console', 'user', 'reset', '--email', 'nadie@banco.example'));

    // One user per email, whatever its case; a role the console does not know is refused before anything is opened.
    expectFailure(await cli('console', 'user', 'create', '--tenant', tenantId, '--email', 'oficial@banco.example', '--role', 'viewer'));
    const unknownRole = await cli('console', 'user', 'create', '--tenant', tenantId, '--email', 'otro@banco.example', '--role', 'admin');
    expectFailure(unknownRole);
    expect(unknownRole.json.error.message).toContain('viewer or auditor or operator');
  }, SLOW);

  it('`key issue`, `key revoke` and `projections status` print their documents and exit 0', async () => {
    const [issued, readOnly] = await Promise.all([
      cli('key', 'issue', '--tenant', tenantId, '--scopes', 'consent:write,consent:read'),
      cli('key', 'issue', '--tenant', tenantId, '--scopes', 'consent:read'),
    ]);
    expectSuccess(issued);
    expect(issued.json).toEqual({ keyId: expect.stringMatching(/^[0-9a-f]{24}$/), apiKey: expect.any(String), scopes: ['consent:write', 'consent:read'] });
    expect(issued.json.apiKey).toContain(issued.json.keyId);
    // The key is shown only on stdout, never in the progress or warnings.
    expect(issued.stderr).not.toContain(issued.json.apiKey);
    expectSuccess(readOnly);
    expect(readOnly.json.scopes).toEqual(['consent:read']);

    // The scopes printed are the scopes the service grants.
    const created = await resolve(issued.json.apiKey, 'cli-status');
    expect(created.status).toBe(201);
    const denied = await resolve(readOnly.json.apiKey, 'cli-status');
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('INSUFFICIENT_SCOPE');

    const revoked = await cli('key', 'revoke', '--key', readOnly.json.keyId);
    expectSuccess(revoked);
    expect(revoked.json).toEqual({ keyId: readOnly.json.keyId, revoked: true });

    // Revoking twice is harmless (docs/decisions/0004-api-keys.md) and writes nothing, so the status
    // beside it sees a store whose head is the revocation, which the running service has absorbed
    // (it polls the store every 150 ms; the CLI takes seconds to start).
    const head = await headPosition();
    const [status, again] = await Promise.all([cli('projections', 'status'), cli('key', 'revoke', '--key', readOnly.json.keyId)]);
    expectSuccess(again);
    expect(again.json).toEqual({ keyId: readOnly.json.keyId, revoked: true });
    expectSuccess(status);
    expect(Object.keys(status.json)).toEqual(['projections']);
    expect(status.json.projections).toEqual(
      PROJECTIONS.map((p) =>
        expect.objectContaining({ name: p.name, version: p.version, checkpoint: expect.any(Number), lag: expect.any(Number) }),
      ),
    );
    const customers = status.json.projections.find((p: { name: string }) => p.name === 'customers');
    expect(customers).toMatchObject({ checkpoint: head, lag: 0 });
    expect(await headPosition()).toBe(head);
  }, SLOW);

  it('usage and domain errors exit non-zero with one JSON error document, and record nothing', async () => {
    const before = await headPosition();
    const [unknownCommand, missingName, missingScopes, unknownTenant, unknownScope, unknownKey] = await Promise.all([
      cli('tenant', 'destroy', '--name', 'X'),
      cli('tenant', 'create'),
      cli('key', 'issue', '--tenant', tenantId),
      cli('key', 'issue', '--tenant', '00000000-0000-4000-8000-000000000000', '--scopes', 'consent:write'),
      cli('key', 'issue', '--tenant', tenantId, '--scopes', 'consent:write,consent:everything'),
      cli('key', 'revoke', '--key', 'abcdefabcdefabcdefabcdef'),
    ]);
    for (const result of [unknownCommand, missingName, missingScopes, unknownTenant, unknownScope, unknownKey]) {
      expectFailure(result);
    }
    // The codes of docs/reference/errors.md, "Catalogue", where they apply: an unknown id is NOT_FOUND, a bad value VALIDATION_ERROR.
    expect(unknownTenant.json.error.code).toBe('NOT_FOUND');
    expect(unknownKey.json.error.code).toBe('NOT_FOUND');
    expect(unknownScope.json.error.code).toBe('VALIDATION_ERROR');
    expect(missingName.json.error.message).toMatch(/--name/);
    expect(missingScopes.json.error.message).toMatch(/--scopes/);
    expect(unknownCommand.json.error.message).toMatch(/tenant destroy/);
    expect(await headPosition()).toBe(before);
  }, SLOW);

  it('`--help`, `<command> --help` and `--version` print on stdout and exit 0; a usage mistake exits 2 before any ledger is opened or created', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ledger-cli-usage-'));
    try {
      const at = (...args: string[]) => runCli(args, { ...environment.env, ...EMBEDDED_STORE, LEDGER_DATA_DIR: root });
      const [help, commandHelp, version, noName, badTenant, repeated] = await Promise.all([
        at('--help'),
        at('tenant', 'create', '--help'),
        at('--version'),
        at('tenant', 'create'),
        at('key', 'list', '--tenant', 'acme'),
        at('tenant', 'create', '--name', 'A', '--name', 'B'),
      ]);
      expect([help.status, help.stdout]).toEqual([0, expect.stringMatching(/^Usage: ledger <command>[^]*\n  tenant [^]*\n  audit /)]);
      expect([commandHelp.status, commandHelp.stdout]).toEqual([0, expect.stringMatching(/^Usage: ledger tenant create \[options\][^]*--name <NAME>/)]);
      expect([version.status, version.stdout]).toEqual([0, `${(await import('../package.json')).version}\n`]);
      for (const mistake of [noName, badTenant, repeated]) {
        expectFailure(mistake);
        expect([mistake.status, mistake.json.error.code]).toEqual([2, 'USAGE']);
        expect(mistake.stderr).not.toMatch(/\n\s+at /);
      }
      expect(repeated.json.error.message).toMatch(/--name.*more than once/);
      // Refused before the store is opened: a missing ledger would otherwise be LEDGER_NOT_FOUND, and `tenant create` would create one.
      expect(existsSync(join(root, 'ledger.sqlite'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, SLOW);

  it('`tenant list` and `key list --tenant` show ids, scopes, when issued and revoked, and never a secret', async () => {
    const issued = await cli('key', 'issue', '--tenant', tenantId, '--scopes', 'consent:read,consent:audit');
    expectSuccess(issued);
    expectSuccess(await cli('key', 'revoke', '--key', issued.json.keyId));
    const [tenants, keys, unknownTenant] = await Promise.all([
      cli('tenant', 'list'),
      cli('key', 'list', '--tenant', tenantId),
      cli('key', 'list', '--tenant', '00000000-0000-4000-8000-000000000000'),
    ]);
    expectSuccess(tenants);
    expect(tenants.json.tenants).toContainEqual({ tenantId, name: 'Banco del Operador', createdAt: expect.any(Number), institutionCode: null, weeklyReports: false, dailyRightsReport: false, scheduledErasure: false, presentation: null });
    expectSuccess(keys);
    expect(keys.json.keys).toContainEqual({ keyId: issued.json.keyId, scopes: ['consent:read', 'consent:audit'], issuedAt: expect.any(Number), revokedAt: expect.any(Number) });
    for (const key of keys.json.keys) expect(Object.keys(key)).toEqual(['keyId', 'scopes', 'issuedAt', 'revokedAt']);
    // The secret is everything after `lk_<keyId>_`; it may hold `_` itself, so a split would keep only its tail (once a single letter).
    expect(keys.stdout).not.toContain(issued.json.apiKey.slice(`lk_${issued.json.keyId}_`.length));
    expect(unknownTenant.json.error.code).toBe('NOT_FOUND');
  }, SLOW);

  it('with Redis or the store unreachable, a command exits 1 with a JSON error and says which in one line on stderr, without a stack trace', async () => {
    const [unreachable, noDatabase] = await Promise.all([
      runCli(['projections', 'status'], withRedisAt(environment.env, 'redis://127.0.0.1:1')),
      runCli(['tenant', 'list'], { ...environment.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/ledger' }),
    ]);
    expectFailure(noDatabase);
    expect(noDatabase.status).toBe(1);
    expect(noDatabase.stderr.split('\n').filter((line) => /unreachable/.test(line))).toEqual([expect.stringMatching(/^ledger: the event store's database is unreachable \(.*ECONNREFUSED.*\); check DATABASE_URL/)]);
    expect(noDatabase.stderr).not.toMatch(/\n\s+at /);
    expectFailure(unreachable);
    expect(unreachable.status).toBe(1);
    expect(unreachable.json.error.message).toMatch(/Redis is unreachable/);
    expect(unreachable.stderr.split('\n').filter((line) => /redis/i.test(line))).toEqual([expect.stringMatching(/^ledger: Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \(.*ECONNREFUSED/)]);
    expect(unreachable.stderr).not.toMatch(/\n\s+at /);
  }, SLOW);

  it('a key issued with the CLI works against the running service within 1 s of the CLI exiting; revoked, it stops within 1 s', async () => {
    const issued = await cli('key', 'issue', '--tenant', tenantId, '--scopes', 'consent:write');
    expectSuccess(issued);
    const usableAfter = await within(1_000, async () => [200, 201].includes((await resolve(issued.json.apiKey, 'cli-propagation', '14141414')).status));
    expect(usableAfter).toBeLessThanOrEqual(1_000);
    const working = await resolve(issued.json.apiKey, 'cli-propagation', '14141414');
    expect(working.status).toBe(200);

    const revoked = await cli('key', 'revoke', '--key', issued.json.keyId);
    expectSuccess(revoked);
    let last: { status: number; body: any } | undefined;
    const rejectedAfter = await within(1_000, async () => {
      last = await resolve(issued.json.apiKey, 'cli-propagation', '14141414');
      return last.status === 401;
    });
    expect(rejectedAfter).toBeLessThanOrEqual(1_000);
    expect(last!.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    // And it stays revoked.
    expect((await resolve(issued.json.apiKey, 'cli-propagation', '14141414')).status).toBe(401);
  }, SLOW);

  it(
    'every command but `tenant create`, pointed at a missing or empty LEDGER_DATA_DIR, exits 1 with LEDGER_NOT_FOUND and creates nothing there, not even a key; only `tenant create` starts a ledger',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'ledger-cli-elsewhere-'));
      try {
        const some = '00000000-0000-4000-8000-000000000000';
        // Read-only ones first, then those that would write facts into a ledger that exists.
        const commandLines = [
          ['tenant', 'list'],
          ['key', 'list', '--tenant', some],
          ['projections', 'status'],
          ['queues', 'status'],
          ['retention', 'status', '--tenant', some],
          ['retention', 'erase', '--tenant', some, '--dry-run'],
          ['export', 'consents', '--tenant', some],
          ['audit', 'replay', '--tenant', some, '--consent', some],
          ['audit', 'verify'],
          ['log', 'verifier-key'],
          ['tenant', 'configure', '--tenant', some, '--weekly-reports', 'on'],
          ['key', 'issue', '--tenant', some, '--scopes', 'consent:read'],
          ['key', 'revoke', '--key', '0'.repeat(24)],
          ['keys', 'rotate'],
          ['projections', 'rebuild'],
          ['webhooks', 'redeliver', '--tenant', some, '--endpoint', some],
          ['retention', 'erase', '--tenant', some],
          ['log', 'checkpoint'],
          ['console', 'user', 'create', '--tenant', some, '--email', 'oficial@banco.example', '--role', 'viewer'],
          ['console', 'user', 'reset', '--email', 'oficial@banco.example'],
        ];
        // A command is named by its words before its options (`key list`, `console user create`).
        const named = (name: string) => commandLines.some((line) => `${line.join(' ')} `.startsWith(`${name} `));
        const opening = Object.entries(commands).filter(([, command]) => command.opensLedger !== false && command.createsLedger !== true);
        expect(opening.map(([name]) => name).filter((name) => !named(name))).toEqual([]);

        const missing = join(root, 'dat');
        const empty = join(root, 'empty');
        mkdirSync(empty);
        // No key in the environment either: outside production, a key neither set nor on file used to be generated into the data dir.
        const at = (dataDir: string, args: string[]) => runCli(args, { ...environment.env, ...EMBEDDED_STORE, LEDGER_MASTER_KEY: '', LEDGER_LOG_SIGNING_KEY: '', LEDGER_DATA_DIR: dataDir });
        const runs = commandLines.flatMap((args) => [missing, empty].map((dataDir) => ({ args, dataDir })));
        // Two at a time: each is a Node process of its own.
        for (let next = 0; next < runs.length; next += 2) {
          const batch = runs.slice(next, next + 2);
          const results = await Promise.all(batch.map(({ args, dataDir }) => at(dataDir, args)));
          results.forEach((result, i) => {
            const run = `${batch[i].args.join(' ')} at ${batch[i].dataDir}`;
            expectFailure(result);
            expect({ run, status: result.status, code: result.json.error.code }).toEqual({ run, status: 1, code: 'LEDGER_NOT_FOUND' });
            expect(result.json.error.message).toMatch(/no ledger at .*ledger\.sqlite/);
          });
        }
        expect([existsSync(missing), readdirSync(empty)]).toEqual([false, []]);

        const fresh = join(root, 'fresh');
        expectSuccess(await at(fresh, ['tenant', 'create', '--name', 'Banco Nuevo']));
        expect(readdirSync(fresh)).toEqual(expect.arrayContaining(['ledger.sqlite', 'master.key', 'log-signing.key']));
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
    SLOW * 2,
  );

  it('`audit verify` on a ledger without a single event exits 1 with EMPTY_LEDGER rather than calling it intact', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ledger-cli-empty-'));
    try {
      await createEventStore({ dataDir, eventStoreConnectionString: undefined, databaseUrl: undefined }).close();
      const verified = await runCli(['audit', 'verify'], { ...environment.env, ...EMBEDDED_STORE, LEDGER_DATA_DIR: dataDir });
      expectFailure(verified);
      expect(verified.status).toBe(1);
      expect(verified.json.error).toEqual({ code: 'EMPTY_LEDGER', message: expect.stringMatching(/holds no events.*LEDGER_DATA_DIR/) });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, SLOW);
});
