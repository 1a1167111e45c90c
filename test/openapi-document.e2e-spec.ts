import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scopes } from '@ledger/platform';
import { breakingChanges } from '../apps/api/src/openapi/compatibility';
import { IDEMPOTENT_ROUTE, IdempotentOptions } from '../libs/http/src/idempotency/idempotent.decorator';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { servedRoutes } from './support/routes';

const COMMITTED = join(__dirname, '..', 'openapi', 'openapi.json');
const PUBLIC_URL = 'https://consent.bank.example/ledger';

type Parameter = { name: string; in: string; required?: boolean };
type Operation = { parameters?: Parameter[]; tags?: string[]; responses: Record<string, { content?: Record<string, { schema: { allOf?: Array<{ properties?: { code?: { enum?: string[] } } }> } }> }> };
type Document = { info: { version: string }; servers: Array<{ url: string }>; tags: Array<{ name: string }>; paths: Record<string, Record<string, Operation>> };

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));
const idempotencyKeyOf = (operation: Operation) => operation.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
const codesOf = (operation: Operation, status: string) =>
  operation.responses[status]?.content?.['application/problem+json']?.schema.allOf?.[1]?.properties?.code?.enum ?? [];

describe('the OpenAPI document: served, committed, and true to the routes', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let served: Document;
  const committed = JSON.parse(readFileSync(COMMITTED, 'utf8')) as Document;

  beforeAll(async () => {
    environment = testEnvironment({ LEDGER_PUBLIC_URL: PUBLIC_URL });
    api = await startApiApp(environment);
    served = (await api.http.get('/openapi.json')).body as Document;
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('names LEDGER_PUBLIC_URL as its server', () => {
    expect(served.servers).toEqual([{ url: PUBLIC_URL }]);
  });

  it('is the committed openapi/openapi.json (regenerate with `npm run openapi` and review the diff)', () => {
    // The committed copy is written under the default configuration, whose server is http://127.0.0.1:3000.
    expect(committed.servers).toEqual([{ url: 'http://127.0.0.1:3000' }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });

  it('removes or retypes no field of the committed document within its major version', () => {
    if (served.info.version.split('.')[0] === committed.info.version.split('.')[0]) expect(breakingChanges(committed as never, served as never)).toEqual([]);
  });

  it('describes every tag it uses', () => {
    const used = new Set(operations(served).flatMap(({ operation }) => operation.tags ?? []));
    expect(served.tags.map((tag) => tag.name).sort()).toEqual([...used].sort());
  });

  it('declares Idempotency-Key exactly where a route honours it, required where the route requires it', async () => {
    const declared = operations(served).map(({ method, path, operation }) => ({ method, path, required: idempotencyKeyOf(operation)?.required ?? null }));
    const honoured = servedRoutes(api)
      .filter(({ path }) => path.startsWith('/v1/'))
      .map(({ method, path, handler }) => ({ method, path, required: (Reflect.getMetadata(IDEMPOTENT_ROUTE, handler) as IdempotentOptions | undefined)?.required ?? null }));
    const byRoute = (a: { method: string; path: string }, b: { method: string; path: string }) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`);
    expect(declared.sort(byRoute)).toEqual(honoured.sort(byRoute));
    expect(declared.filter((d) => d.required !== null).length).toBeGreaterThan(20);

    // And the route really refuses a request without the header exactly where the document says it is required.
    const { apiKey } = await api.tenantKey(Object.values(Scopes));
    for (const { method, path, required } of declared.filter((d) => d.method !== 'get')) {
      const response = await api.http[method as 'post'](path.replace(/\{[^}]+\}/g, randomUUID())).set('Authorization', `Bearer ${apiKey}`).send({});
      expect({ method, path, refusedWithoutKey: response.body.code === 'IDEMPOTENCY_KEY_REQUIRED' }).toEqual({ method, path, refusedWithoutKey: required === true });
    }
  });

  it('declares every error as problem+json with the codes the platform gives the route', () => {
    for (const { method, path, operation } of operations(served)) {
      const header = idempotencyKeyOf(operation);
      const expected: Array<[string, string]> = [
        ['401', 'UNAUTHENTICATED'],
        ['403', 'INSUFFICIENT_SCOPE'],
        ['429', 'TOO_MANY_REQUESTS'],
        ...(path.includes('{') ? ([['404', 'NOT_FOUND']] as Array<[string, string]>) : []),
        ...(header ? ([['409', 'IDEMPOTENCY_KEY_IN_PROGRESS'], ['422', 'IDEMPOTENCY_KEY_REUSED']] as Array<[string, string]>) : []),
        ...(header?.required ? ([['400', 'IDEMPOTENCY_KEY_REQUIRED']] as Array<[string, string]>) : []),
      ];
      for (const [status, code] of expected) expect({ method, path, status, codes: codesOf(operation, status) }).toEqual({ method, path, status, codes: expect.arrayContaining([code]) });
      for (const [status, response] of Object.entries(operation.responses).filter(([status]) => /^[45]/.test(status))) {
        expect({ method, path, status, types: Object.keys(response.content ?? {}) }).toEqual({ method, path, status, types: ['application/problem+json'] });
      }
    }
  });
});
