import { Redis } from 'ioredis';
import { CONSENT_CODE_RESULTS, DENY_REASON_CODES } from '@ledger/redec';
import { ApiApp, startApiApp, waitUntil } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { servedRoutes } from './support/routes';

describe('operability', () => {
  let environment: TestEnvironment;
  let api: ApiApp;

  beforeAll(async () => {
    environment = testEnvironment({ LOG_LEVEL: 'info' });
    api = await startApiApp(environment);
  });
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('answers /health/live and /health/ready without a key', async () => {
    expect((await api.http.get('/health/live')).body).toEqual({ status: 'live' });
    const ready = await api.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { eventStore: 'up', redis: 'up', projections: 'up' } });
  });

  it('describes every /v1 operation in OpenAPI 3.1 at /openapi.json', async () => {
    const response = await api.http.get('/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(document.openapi).toBe('3.1.0');
    const v1 = servedRoutes(api).filter((r) => r.path.startsWith('/v1/'));
    expect(v1.length).toBeGreaterThan(0);
    for (const { method, path } of v1) {
      expect({ path, method, documented: Boolean(document.paths[path]?.[method]) }).toEqual({ path, method, documented: true });
      expect(document.paths[path][method].responses.default).toBeDefined();
    }
    expect(Object.keys(document.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
  });

  it('documents every field of the REDEC lifecycle operations and every deny reason code', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; enum?: string[]; allOf?: Schema[]; anyOf?: Schema[] };
    type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean }>; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
    const document = (await api.http.get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
    /** A schema with its $ref and allOf resolved, so inherited properties count; a nullable one (`anyOf` with null) as its non-null part. */
    const resolve = (schema: Schema): Schema => {
      if (schema.$ref) return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
      if (schema.anyOf) return resolve(schema.anyOf.find((part) => (part as { type?: string }).type !== 'null')!);
      if (schema.allOf) return { properties: Object.assign({}, ...schema.allOf.map((part) => resolve(part).properties ?? {}), schema.properties ?? {}) };
      return schema;
    };
    const fields = (schema: Schema) => Object.keys(resolve(schema).properties ?? {});
    const property = (schema: Schema, name: string) => resolve(resolve(schema).properties![name]);
    const operation = (method: string, path: string) => document.paths[path][method];
    const requestOf = (method: string, path: string) => resolve(operation(method, path).requestBody!.content['application/json'].schema);
    const responseOf = (method: string, path: string, status: string) => resolve(operation(method, path).responses[status].content!['application/json'].schema);

    const authorize = '/v1/redec/accesses/authorize';
    const authorizeRequest = requestOf('post', authorize);
    expect(fields(authorizeRequest)).toEqual(expect.arrayContaining(['authorizationBasis', 'consentAuthorizationMode', 'redecConsentId', 'dataCategoryCode', 'scopeId', 'objectiveCode', 'reportingObligation', 'sourceSystem', 'sourceReference', 'accessPurpose']));
    expect(fields(property(authorizeRequest, 'reportingObligation')).sort()).toEqual(['assertedAt', 'sourceReference', 'sourceSystem', 'status']);
    for (const status of ['200', '201']) {
      const answer = responseOf('post', authorize, status);
      expect(fields(answer).sort()).toEqual(['decision', 'replayed']);
      const decision = property(answer, 'decision');
      expect(fields(decision)).toEqual(expect.arrayContaining(['redecAccessId', 'status', 'denyReasonCode', 'redecConsentId', 'decidedAt', 'expiresAt']));
      expect([...property(decision, 'denyReasonCode').enum!].sort()).toEqual([...DENY_REASON_CODES].sort());
    }
    const outcome = property(requestOf('post', '/v1/redec/accesses/{redecAccessId}/confirm'), 'outcome');
    expect(fields(outcome).sort()).toEqual(['accessedAt', 'kind']);
    expect(property(outcome, 'kind').enum).toEqual(['accessed', 'failed', 'cancelled']);

    expect(fields(requestOf('post', '/v1/redec/consents/{redecConsentId}/revoke')).sort()).toEqual(['channel', 'identityAssurance', 'occurredAt', 'sourceType']);
    const extensions = '/v1/redec/consents/{redecConsentId}/credit-extensions';
    expect(fields(requestOf('post', extensions)).sort()).toEqual(['creditGrantedAt', 'creditOperationReference', 'customerTenantId', 'objectiveCode', 'sourceReference', 'sourceSystem']);
    const end = requestOf('post', `${extensions}/{creditExtensionId}/end`);
    expect(fields(end).sort()).toEqual(['endReason', 'occurredAt', 'supersededByObligationReference']);
    expect(property(end, 'endReason').enum).toEqual(['obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation']);
    const extensionRecord = ['creditExtensionId', 'objectiveCode', 'creditOperationReference', 'creditGrantedAt', 'extendedAt', 'status', 'endReason', 'endedAt'];
    expect(fields(responseOf('post', extensions, '201'))).toEqual(expect.arrayContaining(extensionRecord));
    const representation = responseOf('get', '/v1/redec/consents/{redecConsentId}', '200');
    expect(fields(property(representation, 'creditExtensions').items!)).toEqual(expect.arrayContaining(extensionRecord));
    expect(fields(property(representation, 'revocation')).sort()).toEqual(['channel', 'correctedAt', 'effective', 'effectiveAt', 'revokedAt']);
    expect(property(representation, 'retentionBasis').enum!.filter((basis) => basis !== null)).toEqual(['revocation', 'loss_of_validity', 'obligation_extinguished', 'acceleration_executed', 'superseded_by_new_obligation']);

    const evidence = '/v1/redec/consents/{redecConsentId}/notification-evidence';
    // consentActionId and internalConsentCode appear too, documented as never to be sent.
    expect(fields(requestOf('post', evidence))).toEqual(
      expect.arrayContaining(['contentReference', 'contentSha256', 'notificationChannel', 'notificationReason', 'recipientHash', 'sentAt', 'sourceReference', 'sourceSystem', 'status']),
    );
    expect(fields(responseOf('post', evidence, '201'))).toEqual(expect.arrayContaining(['consentActionId', 'internalConsentCode']));

    expect(fields(requestOf('post', '/v1/redec/reportable-obligations/bindings')).sort()).toEqual(['kind', 'obligationGrantedAt', 'obligationReference', 'redecConsentId', 'sourceSystem']);

    // Every refusal of the lifecycle is declared on its operation by status and code (issue 12's codes among them).
    const problemCodes = (method: string, path: string, status: string) => {
      const schema = operation(method, path).responses[status]?.content?.['application/problem+json']?.schema;
      return schema ? property(schema, 'code').enum : undefined;
    };
    const extension = `${extensions}/{creditExtensionId}`;
    expect(problemCodes('post', extensions, '422')).toEqual(expect.arrayContaining(['redec_credit_granted_after_revocation', 'redec_superseding_obligation_does_not_inherit_consent']));
    expect(problemCodes('post', extensions, '409')).toEqual(expect.arrayContaining(['redec_credit_extension_already_ended']));
    expect(problemCodes('post', '/v1/redec/reportable-obligations/bindings', '422')).toEqual(
      expect.arrayContaining(['redec_consent_not_valid_at_obligation_grant', 'redec_superseding_obligation_does_not_inherit_consent']),
    );
    expect(problemCodes('post', '/v1/redec/accesses/{redecAccessId}/confirm', '409')).toEqual(expect.arrayContaining(['redec_authorization_expired']));
    // Beside the Idempotency-Key's own 409 (IDEMPOTENCY_KEY_IN_PROGRESS) and the one code of a command that kept losing to concurrent changes (decision 0055).
    expect(problemCodes('post', `${extension}/annul`, '409')).toEqual(['IDEMPOTENCY_KEY_IN_PROGRESS', 'redec_credit_extension_annulled', 'concurrent_change']);
    expect(problemCodes('post', `${extension}/end/annul`, '409')).toEqual([
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      'redec_credit_extension_not_ended',
      'redec_credit_extension_annulled',
      'concurrent_change',
    ]);
    expect(problemCodes('post', '/v1/redec/reportable-obligations/bindings/{bindingId}/annul', '409')).toEqual([
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      'redec_binding_already_annulled',
      'concurrent_change',
    ]);
    for (const annul of [`${extension}/annul`, `${extension}/end/annul`, '/v1/redec/reportable-obligations/bindings/{bindingId}/annul']) {
      expect(fields(requestOf('post', annul)).sort()).toEqual(['reason', 'sourceReference']);
    }
    // The operator lists: paged, with the items docs/reference/operator-lists.md names.
    const overdue = responseOf('get', '/v1/redec/notifications/overdue', '200');
    expect(fields(overdue).sort()).toEqual(['items', 'nextCursor']);
    expect(fields(property(overdue, 'items').items!)).toEqual(expect.arrayContaining(['redecConsentId', 'internalConsentCode', 'reason', 'actionAt', 'consentActionId']));
    const reconciliation = responseOf('get', '/v1/redec/reportable-obligations/reconciliation', '200');
    expect(fields(property(reconciliation, 'items').items!).sort()).toEqual(['obligationReference', 'redecConsentIds', 'result', 'sourceSystem']);
    expect(operation('get', '/v1/redec/notifications/overdue').parameters!.filter((p) => p.in === 'query').map((p) => [p.name, Boolean(p.required)]).sort()).toEqual([
      ['afterBankingDays', true],
      ['cursor', false],
      ['limit', false],
    ]);
    // The consent lookup (docs/reference/regulatory-representation.md) answers `{ consents }` and takes exactly its two parameters; the auditors' export is a paged list of its own.
    const queryOf = (path: string) => operation('get', path).parameters!.filter((p) => p.in === 'query').map((p) => [p.name, Boolean(p.required)]).sort();
    expect(queryOf('/v1/redec/consents')).toEqual([['creditOperationReference', false], ['internalConsentCode', false]]);
    expect(fields(responseOf('get', '/v1/redec/consents', '200'))).toEqual(['consents']);
    expect(queryOf('/v1/redec/consent-exports')).toEqual([['cursor', false], ['limit', false], ['updatedAfter', false]]);
    const exported = responseOf('get', '/v1/redec/consent-exports', '200');
    expect(fields(exported).sort()).toEqual(['items', 'nextCursor']);
    expect(fields(property(exported, 'items').items!)).toEqual(expect.arrayContaining([...fields(representation), 'updatedAt']));
    const lookup = '/v1/redec/reportable-obligations/consent-code';
    expect(operation('get', lookup).parameters!.filter((p) => p.in === 'query').map((p) => [p.name, p.required])).toEqual(
      expect.arrayContaining([['sourceSystem', true], ['obligationReference', true]]),
    );
    const code = responseOf('get', lookup, '200');
    expect(fields(code)).toEqual(expect.arrayContaining(['result', 'consentCode']));
    expect([...property(code, 'result').enum!].sort()).toEqual([...CONSENT_CODE_RESULTS].sort());
  });

  it('documents the embed sessions, the compliance response and both kinds of a customer\'s consents', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; enum?: string[]; oneOf?: Schema[]; anyOf?: Schema[] };
    type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean }>; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
    const document = (await api.http.get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
    const resolve = (schema: Schema): Schema => {
      if (schema.$ref) return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
      if (schema.anyOf) return resolve(schema.anyOf.find((part) => (part as { type?: string }).type !== 'null')!);
      return schema;
    };
    const fields = (schema: Schema) => Object.keys(resolve(schema).properties ?? {});
    const operation = (method: string, path: string) => document.paths[path][method];
    const responseOf = (method: string, path: string, status: string) => resolve(operation(method, path).responses[status].content!['application/json'].schema);

    const sessions = operation('post', '/v1/embed/sessions');
    expect(fields(sessions.requestBody!.content['application/json'].schema)).toEqual(
      expect.arrayContaining(['configurationId', 'userReference', 'customerId', 'identifiers', 'returnUrl', 'dynamicReference']),
    );
    expect(fields(responseOf('post', '/v1/embed/sessions', '201'))).toEqual(expect.arrayContaining(['sessionId', 'customerId', 'url', 'expiresAt']));
    expect(fields(responseOf('get', '/v1/embed/sessions/{sessionId}', '200'))).toEqual(expect.arrayContaining(['status', 'decidedAt', 'consent', 'dynamicReference']));

    const complianceOperation = '/v1/customers/{customerId}/consent-compliance';
    expect(operation('get', complianceOperation).parameters!.filter((p) => p.in === 'query').map((p) => [p.name, p.required])).toEqual([['templateKey', true]]);
    const compliance = responseOf('get', complianceOperation, '200');
    expect(fields(compliance).sort()).toEqual(['acceptedVersion', 'evaluatedVersion', 'pendingRequirements', 'pendingVersionChanges', 'status', 'templateKey']);
    expect(resolve(compliance.properties!.status).enum).toEqual(['complies', 'partially_compliant', 'non_compliant']);

    const consents = responseOf('get', '/v1/customers/{customerId}/consents', '200').properties!.consents.items!;
    const kinds = consents.oneOf!.map((variant) => resolve(variant));
    expect(kinds.map((kind) => resolve(kind.properties!.kind).enum)).toEqual([['redec'], ['general']]);
    for (const kind of kinds) expect(Object.keys(kind.properties!)).toEqual(expect.arrayContaining(['templateKey', 'configurationVersion', 'status', 'grantedAt']));
  });

  it('documents the Multi-Consent decision, its items and their REDEC grant, and the embed sessions of several configurations', async () => {
    type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; enum?: string[]; allOf?: Schema[]; anyOf?: Schema[]; required?: string[]; maxItems?: number };
    type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean }>; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
    const document = (await api.http.get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
    const resolve = (schema: Schema): Schema => {
      if (schema.$ref) return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
      if (schema.anyOf) return resolve(schema.anyOf.find((part) => (part as { type?: string }).type !== 'null')!);
      if (schema.allOf) return { ...schema, properties: Object.assign({}, ...schema.allOf.map((part) => resolve(part).properties ?? {}), schema.properties ?? {}) };
      return schema;
    };
    const fields = (schema: Schema) => Object.keys(resolve(schema).properties ?? {}).sort();
    const property = (schema: Schema, name: string) => resolve(resolve(schema).properties![name]);

    const record = document.paths['/v1/consent-decisions'].post;
    expect(record.parameters!.filter((p) => p.in === 'header').map((p) => [p.name, p.required])).toEqual([['Idempotency-Key', true]]);
    const request = resolve(record.requestBody!.content['application/json'].schema);
    expect(fields(request)).toEqual(['customerId', 'dataSubjectName', 'identifiers', 'items', 'occurredAt', 'sourceReference', 'sourceSystem', 'userReference']);
    expect(property(request, 'items').maxItems).toBe(20);
    const item = resolve(property(request, 'items').items!);
    expect(fields(item)).toEqual(['configurationId', 'decision', 'redec']);
    expect(property(item, 'decision').enum).toEqual(['accepted', 'declined']);
    expect(fields(property(item, 'redec'))).toEqual(['evidence', 'executive', 'internalConsentCode', 'objectiveCodes', 'reportableObligation', 'representation', 'scopeIds']);
    expect(fields(property(property(item, 'redec'), 'representation'))).toEqual(['assertedAt', 'authorityBasis', 'authorityReference', 'identifierRutInput', 'type']);

    const answer = resolve(record.responses['201'].content!['application/json'].schema);
    expect(fields(answer)).toEqual(expect.arrayContaining(['decisionId', 'customerId', 'items']));
    expect(fields(property(answer, 'items').items!)).toEqual(['configurationId', 'consentId', 'decision', 'internalConsentCode', 'redecConsentId']);
    const read = document.paths['/v1/consent-decisions/{decisionId}'].get;
    expect(resolve(read.responses['200'].content!['application/json'].schema)).toEqual(answer);

    const sessions = document.paths['/v1/embed/sessions'];
    expect(fields(sessions.post.requestBody!.content['application/json'].schema)).toEqual(expect.arrayContaining(['configurationId', 'configurationIds']));
    const status = resolve(document.paths['/v1/embed/sessions/{sessionId}'].get.responses['200'].content!['application/json'].schema);
    expect(property(status, 'status').enum).toEqual(['open', 'accepted', 'declined', 'partially_accepted', 'expired']);
    expect(fields(property(status, 'items').items!)).toEqual(['configurationId', 'consent', 'decision']);
    expect(fields(status)).toEqual(expect.arrayContaining(['decisionId', 'items']));
  });

  it('logs JSON lines that carry the request id, echoed in x-request-id', async () => {
    const response = await api.http.get('/health/live').set('x-request-id', 'trace-abc-123');
    expect(response.headers['x-request-id']).toBe('trace-abc-123');
    await waitUntil(() => api.logs.some((l) => l.requestId === 'trace-abc-123' && l.msg === 'request completed'), 2_000);
    const lines = api.logs.filter((l) => l.requestId === 'trace-abc-123');
    expect(lines).toEqual([expect.objectContaining({ msg: 'request completed', req: { method: 'GET', route: '/health/live' }, res: { statusCode: 200 } })]);

    const generated = await api.http.get('/health/live').set('x-request-id', 'not a safe id <script>');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports not ready while Redis cannot be reached', async () => {
    // A second app pointed at a port where no Redis listens: the store is up, Redis is not.
    // Workers run elsewhere here: a worker's shutdown waits its bounded drain (30 s) while Redis is away.
    const unreachable = testEnvironment({ REDIS_URL: 'redis://127.0.0.1:1', LEDGER_WORKERS: 'external' });
    const { createApiApp } = await import('../apps/api/src/create-api-app');
    const { loadConfig } = await import('@ledger/platform');
    const app = await createApiApp(loadConfig(unreachable.env, () => undefined), { write: () => true } as unknown as NodeJS.WritableStream);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    try {
      const { default: request } = await import('supertest');
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks).toMatchObject({ eventStore: 'up', redis: 'down' });
    } finally {
      await app.close();
      await unreachable.dispose();
    }
  });

  it('keeps every Redis key under the instance prefix', async () => {
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const keys = await redis.keys(`${environment.prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
