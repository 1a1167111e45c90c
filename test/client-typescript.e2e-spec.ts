import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExportConsentsOptions, ExportedConsent, ProblemError, createLedgerClient, exportConsents } from '@consent-ledger/client';
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
});
