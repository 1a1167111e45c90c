import request from 'supertest';
import { TestApp, startTestApp, tempDir } from './testing/test-app';
import { DEFAULT_BODY_LIMIT_BYTES } from './limits/body-limit';

const WRITER = { Authorization: 'Bearer key-writer' };
const validResolve = { userReference: 'u-1', identifiers: [{ kind: 'rut', value: '12345678-5' }] };

describe('HTTP platform: errors, validation, authentication, request ids', () => {
  const temp = tempDir();
  let test: TestApp;
  const http = () => request(test.app.getHttpServer());

  beforeAll(async () => {
    test = await startTestApp(`${temp.dir}/store.sqlite`);
  });
  afterAll(async () => {
    await test.close();
    temp.remove();
  });

  function expectProblem(response: request.Response, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: 'about:blank', status, code });
    expect(typeof response.body.title).toBe('string');
    expect(typeof response.body.detail).toBe('string');
    expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  }

  describe('problem+json', () => {
    it('malformed JSON is 400 VALIDATION_ERROR malformed_json, without quoting the body', async () => {
      const response = await http().post('/resolve').set(WRITER).set('content-type', 'application/json').send('{"userReference": secret-value');
      expectProblem(response, 400, 'VALIDATION_ERROR');
      expect(response.body.reason).toBe('malformed_json');
      expect(response.text).not.toContain('secret-value');
    });

    it('an empty JSON body is 400, never 500', async () => {
      const response = await http().post('/resolve').set(WRITER).set('content-type', 'application/json').send('');
      expectProblem(response, 400, 'VALIDATION_ERROR');
    });

    it('reports every offending field with its full path and a stable reason, never the value', async () => {
      const response = await http()
        .post('/resolve')
        .set(WRITER)
        .send({
          userReference: 42,
          identifiers: [{ kind: 'rut', value: '11111111-1', verification: { method: 'telepathy', extra: true } }, { kind: 'rut' }],
          count: 1.5,
          unexpected: 'secret-extra',
        });
      expectProblem(response, 400, 'VALIDATION_ERROR');
      expect(response.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'userReference', reason: 'must_be_string' },
          { field: 'identifiers[0].verification.method', reason: 'invalid_value' },
          { field: 'identifiers[0].verification.extra', reason: 'unknown_property' },
          { field: 'identifiers[1].value', reason: 'required' },
          { field: 'count', reason: 'must_be_integer' },
          { field: 'unexpected', reason: 'unknown_property' },
        ]),
      );
      expect(response.body.errors).toHaveLength(6);
      expect(response.text).not.toMatch(/secret-extra|telepathy|11111111/);
    });

    it.each([
      ['null', 'null'],
      ['an array', '[1,2]'],
      ['a string', '"text"'],
      ['a number', '7'],
    ])('a body that is %s is 400 body_must_be_object', async (_name, body) => {
      const response = await http().post('/resolve').set(WRITER).set('content-type', 'application/json').send(body);
      expectProblem(response, 400, 'VALIDATION_ERROR');
      expect(response.body.reason).toBe('body_must_be_object');
    });

    it('a missing body reports the required fields', async () => {
      const response = await http().post('/resolve').set(WRITER);
      expectProblem(response, 400, 'VALIDATION_ERROR');
      expect(response.body.errors).toEqual([
        { field: 'userReference', reason: 'required' },
        { field: 'identifiers', reason: 'required' },
      ]);
    });

    it('a nested value of the wrong type is must_be_object, not a crash', async () => {
      const response = await http()
        .post('/resolve')
        .set(WRITER)
        .send({ userReference: 'u', identifiers: ['not-an-object'] });
      expectProblem(response, 400, 'VALIDATION_ERROR');
      expect(response.body.errors).toEqual([{ field: 'identifiers[0]', reason: 'must_be_object' }]);
    });

    it('accepts a valid body', async () => {
      const response = await http().post('/resolve').set(WRITER).send(validResolve);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ userReference: 'u-1', identifiers: 1 });
    });

    it('an unknown route is 404 NOT_FOUND without echoing the path', async () => {
      const response = await http().get('/v1/customers/secret-path-value');
      expectProblem(response, 404, 'NOT_FOUND');
      expect(response.text).not.toContain('secret-path-value');
    });

    it('a body over the limit is 413 PAYLOAD_TOO_LARGE', async () => {
      const huge = JSON.stringify({ userReference: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) });
      const response = await http().post('/resolve').set(WRITER).set('content-type', 'application/json').send(huge);
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const response = await http().post('/resolve').set(WRITER).set('content-type', 'application/xml').send('<a/>');
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('an unexpected error is 500 INTERNAL_ERROR with a generic detail; the stack goes to the log', async () => {
      const response = await http().get('/boom');
      expectProblem(response, 500, 'INTERNAL_ERROR');
      expect(response.text).not.toContain('internal detail');
      const logged = test.logs.find((line) => String(line.msg).includes('internal detail that must stay in the logs'));
      expect(logged).toMatchObject({ level: 50, requestId: response.headers['x-request-id'] });
      expect(String(logged?.stack)).toMatch(/\n\s+at /);
    });
  });

  describe('authentication and scopes', () => {
    it('a public route needs no key', async () => {
      await http().get('/health').expect(200, { ok: true });
    });

    it.each([
      ['missing', undefined],
      ['not a bearer token', 'Basic a2V5'],
      ['unknown', 'Bearer no-such-key'],
    ])('a %s key is 401 UNAUTHENTICATED', async (_name, authorization) => {
      const call = http().get('/whoami');
      const response = await (authorization ? call.set('Authorization', authorization) : call);
      expectProblem(response, 401, 'UNAUTHENTICATED');
      expect(response.text).not.toContain('no-such-key');
    });

    it('a key lacking the scope is 403 INSUFFICIENT_SCOPE', async () => {
      expectProblem(await http().get('/admin').set(WRITER), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await http().post('/resolve').set('Authorization', 'Bearer key-reader').send(validResolve), 403, 'INSUFFICIENT_SCOPE');
    });

    it('a key lacking the scope is refused before the body is read', async () => {
      const call = http().post('/resolve').set('Authorization', 'Bearer key-reader').set('Content-Type', 'application/json');
      expectProblem(await call.send('{"not": json'), 403, 'INSUFFICIENT_SCOPE');
    });

    it('a route with neither @Public nor @RequireScopes is refused (fail closed)', async () => {
      expectProblem(await http().get('/unclassified').set(WRITER), 403, 'INSUFFICIENT_SCOPE');
      expectProblem(await http().get('/unclassified'), 401, 'UNAUTHENTICATED');
    });

    it('hands the principal to the handler', async () => {
      await http().get('/whoami').set('Authorization', 'Bearer key-reader').expect(200, { tenantId: 'tenant-a', keyId: 'kid-reader' });
    });
  });

  describe('request ids and logs', () => {
    it('echoes a sane incoming x-request-id and stamps it on every line of the request, the one line per answered request included', async () => {
      const response = await http().get('/whoami').set('Authorization', 'Bearer key-reader').set('x-request-id', 'req-abc.123');
      expect(response.headers['x-request-id']).toBe('req-abc.123');
      const lines = test.logs.filter((line) => line.requestId === 'req-abc.123');
      expect(lines.map((line) => line.msg)).toEqual(['who am i', 'request completed']);
      expect(lines.find((line) => line.msg === 'who am i')).toMatchObject({ context: 'test-controller', level: 30 });
      expect(lines.find((line) => line.msg === 'request completed')).toMatchObject({
        req: { method: 'GET', route: '/whoami' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      });
    });

    it('replaces an unsafe x-request-id with a uuid', async () => {
      const response = await http().get('/health').set('x-request-id', 'bad id\twith spaces');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('never logs the Authorization header or the body', async () => {
      await http().post('/resolve').set('Authorization', 'Bearer key-writer').send({ ...validResolve, userReference: 'body-marker' });
      const all = JSON.stringify(test.logs);
      expect(all).not.toContain('key-writer');
      expect(all).not.toContain('body-marker');
    });
  });
});
