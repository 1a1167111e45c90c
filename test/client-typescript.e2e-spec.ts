import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ExportConsentsOptions,
  ExportedConsent,
  ProblemError,
  contradictedAccesses,
  createLedgerClient,
  exportConsents,
  obligationsToReconcile,
  overdueNotifications,
  webhookDeliveries,
} from '@consent-ledger/client';
import { toNewEvent } from '@ledger/ledger';
import { NOTIFICATION_REQUIRED, webhookStreams } from '@ledger/webhooks';
import { captureConsent } from '../clients/typescript/examples/capture-walk-through';
import { ListeningApiApp, startListeningApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { redecConsents } from './support/redec-consents';

const ROOT = join(__dirname, '..');
const WALK_THROUGH = join(ROOT, 'clients', 'typescript', 'examples', 'capture-walk-through.ts');

// The typed client (clients/typescript, generated from openapi/openapi.json)
// against the service on a real port: docs/client-typescript.md's code, run.
describe('the TypeScript client against the running service', () => {
  let environment: TestEnvironment;
  let api: ListeningApiApp;
  let baseUrl: string;

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startListeningApiApp(environment, { LEDGER_WORKERS: 'external' });
    baseUrl = api.publicUrl;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('installs from the file npm pack makes, as docs/client-typescript.md says, and runs from there', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ledger-client-install-'));
    try {
      const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: join(ROOT, 'clients', 'typescript'), encoding: 'utf8' })) as Array<{ filename: string }>;
      writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'bank-backend', private: true }));
      execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${packed.filename}`], { cwd: scratch, stdio: 'pipe' });
      const exported = execFileSync('node', ['-e', "console.log(Object.keys(require('@consent-ledger/client')).sort().join(' '))"], { cwd: scratch, encoding: 'utf8' });
      expect(exported.trim().split(' ')).toEqual(expect.arrayContaining(['createLedgerClient', 'exportConsents', 'webhookDeliveries', 'ProblemError']));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 120_000);

  it('shows in docs/client-typescript.md exactly the walk-through this suite runs', () => {
    const blocks = [...readFileSync(join(ROOT, 'docs', 'client-typescript.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
    expect(blocks.join('\n')).toBe(readFileSync(WALK_THROUGH, 'utf8'));
  });

  it('publishes, opens an interaction, grants, revokes and reads the consent back', async () => {
    const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    const consent = await captureConsent(baseUrl, apiKey);
    expect(consent.status).toBe('revoked');
    expect(consent.internalConsentCode).toMatch(/^[0-9A-Z]{20}$/);
  });

  it('needs an Idempotency-Key where the service requires one: without it the call does not compile, and the service refuses it', async () => {
    const { apiKey } = await api.tenantKey(['consent:write']);
    const ledger = createLedgerClient({ baseUrl, apiKey });
    const revoked = await ledger.POST('/v1/redec/consents/{redecConsentId}/revoke', {
      // @ts-expect-error the generated types make the header required, as the route does
      params: { path: { redecConsentId: 'a-consent' } },
      body: { occurredAt: Date.now(), sourceType: 'direct', channel: 'digital', identityAssurance: 'client_authenticated' },
    });
    expect(revoked.response.status).toBe(400);
    expect(revoked.error?.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('pages the export to its end with exportConsents, from updatedAfter when given, and throws a refusal as a ProblemError', async () => {
    const { apiKey } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']);
    const granted: string[] = [];
    const consents = redecConsents(api, apiKey);
    for (let i = 0; i < 5; i += 1) granted.push((await consents.grant()).redecConsentId);
    const asked: URL[] = [];
    const ledger = createLedgerClient({
      baseUrl,
      apiKey,
      fetch: (request) => {
        asked.push(new URL(request.url));
        return fetch(request);
      },
    });
    const exported = async (options: ExportConsentsOptions) => {
      const all: ExportedConsent[] = [];
      for await (const consent of exportConsents(ledger, options)) all.push(consent);
      return all;
    };

    const all = await exported({ limit: 2 });
    expect(all.map((c) => c.redecConsentId).sort()).toEqual([...granted].sort());
    expect(asked.map((url) => [url.pathname, url.searchParams.has('cursor'), url.searchParams.get('limit')])).toEqual([
      ['/v1/redec/consent-exports', false, '2'],
      ['/v1/redec/consent-exports', true, '2'],
      ['/v1/redec/consent-exports', true, '2'],
    ]);
    expect((await exported({ updatedAfter: all[1].updatedAt, limit: 2 })).map((c) => c.redecConsentId)).toEqual(
      all.filter((c) => c.updatedAt > all[1].updatedAt).map((c) => c.redecConsentId),
    );
    expect(asked.slice(3).map((url) => url.searchParams.has('updatedAfter'))).toEqual([true, ...asked.slice(4).map(() => false)]);

    const { apiKey: writer } = await api.tenantKey(['consent:write']);
    const refused = await exportConsents(createLedgerClient({ baseUrl, apiKey: writer })).next().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused).toMatchObject({ status: 403, problem: { code: 'INSUFFICIENT_SCOPE' } });
  });

  it('has a helper for every other paged list, each following nextCursor from its own path to the end', async () => {
    const { apiKey, tenantId } = await api.tenantKey(['consent:admin', 'consent:read']);
    const asked: URL[] = [];
    const ledger = createLedgerClient({ baseUrl, apiKey, fetch: (request) => (asked.push(new URL(request.url)), fetch(request)) });
    const all = async <T>(items: AsyncIterable<T>) => {
      const seen: T[] = [];
      for await (const item of items) seen.push(item);
      return seen;
    };

    const registered = await ledger.POST('/v1/webhook-endpoints', { body: { url: 'https://hooks.bank.example/redec' } });
    const endpointId = registered.data!.endpointId;
    const attempts = [1, 2, 3, 4, 5].map((attempt) => ({
      endpointId,
      messageId: `evt_${String(attempt).repeat(32)}`,
      eventType: NOTIFICATION_REQUIRED,
      eventPosition: 1,
      attempt,
      attemptedAt: 1_800_000_000_000 + attempt,
      outcome: 'failed' as const,
      status: 503,
      latencyMs: 10,
      error: 'http_503',
      sinceRecordedMs: attempt,
    }));
    await api.store.append(
      webhookStreams.deliveries(tenantId, endpointId),
      attempts.map((data) => toNewEvent({ type: 'WebhookDeliveryAttempted', data }, { tenantId, actor: 'worker:webhooks', correlationId: 'test', now: Date.now() })),
      'no_stream',
    );
    asked.length = 0;
    expect((await all(webhookDeliveries(ledger, endpointId, { limit: 2 }))).map((d) => d.attempt)).toEqual([5, 4, 3, 2, 1]);
    expect(asked.map((url) => [url.pathname, url.searchParams.has('cursor')])).toEqual([
      [`/v1/webhook-endpoints/${endpointId}/deliveries`, false],
      [`/v1/webhook-endpoints/${endpointId}/deliveries`, true],
      [`/v1/webhook-endpoints/${endpointId}/deliveries`, true],
    ]);

    asked.length = 0;
    expect(await all(contradictedAccesses(ledger))).toEqual([]);
    expect(await all(overdueNotifications(ledger, { afterBankingDays: 3 }))).toEqual([]);
    expect(await all(obligationsToReconcile(ledger))).toEqual([]);
    expect(asked.map((url) => url.pathname)).toEqual(['/v1/redec/accesses/contradicted', '/v1/redec/notifications/overdue', '/v1/redec/reportable-obligations/reconciliation']);
    expect(asked[1].searchParams.get('afterBankingDays')).toBe('3');

    const { apiKey: writer } = await api.tenantKey(['consent:write']);
    await expect(all(contradictedAccesses(createLedgerClient({ baseUrl, apiKey: writer })))).rejects.toMatchObject({ status: 403, problem: { code: 'INSUFFICIENT_SCOPE' } });
  });
});
