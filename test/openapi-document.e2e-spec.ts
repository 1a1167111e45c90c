import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scopes } from '@ledger/platform';
import { WEBHOOK_EVENT_TYPES } from '@ledger/webhooks';
import { breakingChanges } from '../apps/api/src/openapi/compatibility';
import { OPERATION_EXAMPLES } from '../apps/api/src/openapi/examples';
import { IDEMPOTENT_ROUTE, IdempotentOptions } from '../libs/http/src/idempotency/idempotent-route';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { Document, Operation, mismatches } from './support/openapi-schema';
import { servedRoutes } from './support/routes';

const COMMITTED = join(__dirname, '..', 'openapi', 'openapi.json');
const PUBLIC_URL = 'https://consent.bank.example/ledger';

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));
const idempotencyKeyOf = (operation: Operation) => operation.parameters?.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
const codesOf = (operation: Operation, status: string) =>
  (operation.responses[status]?.content?.['application/problem+json']?.schema.allOf?.[1]?.properties?.code?.enum as string[] | undefined) ?? [];

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

  it('names every scope a key can carry, and describes the bearer as an opaque key', () => {
    const description = (served as unknown as { info: { description: string } }).info.description;
    for (const scope of Object.values(Scopes)) expect(description).toContain(`\`${scope}\``);
    const bearer = (served as unknown as { components: { securitySchemes: Record<string, Record<string, string>> } }).components.securitySchemes.bearer;
    expect(bearer).toEqual({ type: 'http', scheme: 'bearer', description: expect.stringContaining('opaque') });
  });

  it('declares the Idempotent-Replayed header on every answer of an operation that honours Idempotency-Key, Cache-Control on every answer of one that carries evidence (test/no-store.e2e-spec.ts), and neither on any other', () => {
    const carryingEvidence = new Set(['getRedecConsentEvidence', 'downloadRedecConsentArtifact', 'getRedecConsentHistory', 'getRedecConsentAuditBundle', 'exportRedecConsents', 'downloadReportContent', 'getRightsRequestSubjectReport']);
    for (const { method, path, operation } of operations(served)) {
      const headers = Object.values(operation.responses).map((response) => Object.keys((response as { headers?: object }).headers ?? {}));
      const expected = [...(idempotencyKeyOf(operation) ? ['Idempotent-Replayed'] : []), ...(carryingEvidence.has((operation as { operationId?: string }).operationId ?? '') ? ['Cache-Control'] : [])];
      expect({ method, path, headers }).toEqual({ method, path, headers: headers.map(() => expected) });
    }
  });

  it('gives every operation an operation id a generated client can name a method after: camelCase, unique, set beside its route', () => {
    const ids = operations(served).map(({ operation }) => (operation as { operationId?: string }).operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z]*$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes what it sends to a webhook endpoint: every event type one can subscribe to, signed, with its body', () => {
    expect(Object.keys(served.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, { post }] of Object.entries(served.webhooks)) {
      expect((post.parameters ?? []).map((p) => `${p.in} ${p.name}`)).toEqual(['header webhook-id', 'header webhook-timestamp', 'header webhook-signature']);
      expect(post.requestBody?.content['application/json'].schema.properties?.type.enum).toEqual([type]);
    }
  });

  it('catalogues every error code an operation can answer, with its statuses, and nothing else', () => {
    const expected = new Map<string, Set<string>>();
    for (const { operation } of operations(served)) {
      for (const status of Object.keys(operation.responses)) {
        for (const code of codesOf(operation, status)) expected.set(code, (expected.get(code) ?? new Set()).add(status));
      }
    }
    const description = (served as unknown as { info: { description: string } }).info.description;
    const rows = description
      .slice(description.indexOf('## Error codes'))
      .split('\n')
      .map((line) => /^\| `([^`]+)` \| ([\d, ]+) \|/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null);
    expect(new Map(rows.map(([, code, statuses]) => [code, statuses.split(', ').sort()]))).toEqual(
      new Map([...expected].map(([code, statuses]) => [code, [...statuses].sort()])),
    );
    expect(rows.length).toBeGreaterThan(40);
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

  it("carries the walk-throughs' examples, each valid against its schema", () => {
    const examples = operations(served).flatMap(({ method, path, operation }) => {
      const at = `${method.toUpperCase()} ${path}`;
      const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
      return [
        ...(operation.parameters ?? []).filter((p) => p.example !== undefined).map((p) => ({ at: `${at} ${p.name}`, value: p.example, schema: p.schema ?? {} })),
        ...Object.values(operation.requestBody?.content ?? {}).filter((m) => m.example !== undefined).map((m) => ({ at: `${at} request`, value: m.example, schema: m.schema })),
        ...Object.values(success?.content ?? {}).filter((m) => m.example !== undefined).map((m) => ({ at: `${at} answer`, value: m.example, schema: m.schema })),
      ];
    });
    expect(examples.length).toBeGreaterThan(100);
    expect(examples.flatMap(({ at, value, schema }) => mismatches(value, schema, at, served))).toEqual([]);
  });

  it('has an example of every parameter, every JSON body and every JSON answer of every operation, and none for an operation that does not exist', () => {
    const keys = operations(served).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(Object.keys(OPERATION_EXAMPLES).filter((key) => !keys.includes(key))).toEqual([]);
    const missing = operations(served).flatMap(({ method, path, operation }) => {
      const at = `${method.toUpperCase()} ${path}`;
      const success = Object.entries(operation.responses).find(([status]) => /^2/.test(status))?.[1];
      return [
        ...(operation.parameters ?? []).filter((p) => p.in !== 'header' && p.required && p.example === undefined).map((p) => `${at} ${p.name}`),
        ...(operation.requestBody?.content['application/json'] && operation.requestBody.content['application/json'].example === undefined ? [`${at} request`] : []),
        ...(success?.content?.['application/json'] && success.content['application/json'].example === undefined ? [`${at} answer`] : []),
      ];
    });
    expect(missing).toEqual([]);
  });
});
