import { FuzzContext } from './fuzz-context';
import { FuzzRequest, generateRequest, percentEncode } from './generate';
import { operationsOf } from './operations';

const OWN_CONSENT = '11111111-1111-4111-8111-111111111111';
const OTHER_CONSENT = '22222222-2222-4222-8222-222222222222';

const operations = operationsOf({
  paths: {
    '/v1/consents/{redecConsentId}/revoke': {
      post: {
        parameters: [{ name: 'redecConsentId', in: 'path', schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['channel', 'occurredAt', 'sourceReference'],
                properties: {
                  channel: { type: 'string', enum: ['digital', 'phone'] },
                  occurredAt: { type: 'integer' },
                  sourceSystem: { type: 'string', maxLength: 20, description: 'An identity: control characters are refused.' },
                  sourceReference: { type: 'string', maxLength: 20, description: 'An identity: control characters are refused.' },
                  title: { type: 'string', description: 'Shown to the data subject: invisible characters are refused.' },
                  scopeId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
                },
              },
            },
          },
        },
        security: [{ bearer: [] }],
      },
    },
    '/v1/consents': { get: { parameters: [{ name: 'limit', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 200 } }], security: [{ bearer: [] }] } },
  },
});

const context: FuzzContext = {
  own: { tenantId: 'own', values: { redecConsentId: [OWN_CONSENT] } },
  other: { tenantId: 'other', values: { redecConsentId: [OTHER_CONSENT] } },
  keys: { all: 'key_all_0123456789', readOnly: 'key_read_0123456789', revoked: 'key_revoked_0123456789', other: 'key_other_0123456789' },
  examples: {},
  ruts: ['12345678-5'],
  webhookSecret: 'whsec_0123456789abcdef',
};

const NOW = 1_795_000_000_000;
const requests = (count: number, seed = 13): FuzzRequest[] => Array.from({ length: count }, (_, index) => generateRequest(operations, context, seed, index, NOW));

describe('generateRequest', () => {
  let many: FuzzRequest[];
  beforeAll(() => {
    many = requests(2_000);
  });

  it('generates the same request for the same seed and index, and others for another seed', () => {
    const strip = ({ body, ...rest }: FuzzRequest) => ({ ...rest, body: body?.toString('base64') });
    expect(requests(50).map(strip)).toEqual(requests(50).map(strip));
    expect(requests(50, 14).map(strip)).not.toEqual(requests(50).map(strip));
  });

  it('brings every operation round in turn', () => {
    const counts = requests(100).reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.operation]: (acc[r.operation] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 'POST /v1/consents/{redecConsentId}/revoke': 50, 'GET /v1/consents': 50 });
  });

  it('sends valid requests with the own tenant\'s ids and key, a fresh Idempotency-Key and a framed body', () => {
    const valid = many.filter((r) => r.strategy === 'valid' && r.method === 'POST');
    expect(valid.length).toBeGreaterThan(5);
    for (const request of valid) {
      expect(request.url).toBe(`/v1/consents/${OWN_CONSENT}/revoke`);
      expect(request.headers.Authorization).toBe(`Bearer ${context.keys.all}`);
      const body = JSON.parse(request.body!.toString('utf8'));
      expect(['digital', 'phone']).toContain(body.channel);
      expect(body.sourceReference.length).toBeLessThanOrEqual(20);
      if (body.scopeId !== undefined) expect(body.scopeId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);
      expect(request.headers['Content-Length']).toBe(String(request.body!.length));
    }
    expect(new Set(valid.map((r) => r.headers['Idempotency-Key'])).size).toBe(valid.length);
  });

  it('covers valid, boundary and hostile values, unknown fields, whole bodies, content types, keys and headers', () => {
    const strategies = new Set(many.map((r) => r.strategy.split(':')[0]));
    expect([...strategies].sort()).toEqual(['auth', 'body', 'boundary', 'content type', 'header', 'refusal', 'secret in URL', 'unknown field', 'valid', 'value']);
    const kinds = new Set(many.map((r) => r.strategy));
    for (const kind of ['value: deep nesting', "value: another tenant's id", 'value: lone high surrogate', 'body: deep nesting', 'body: not JSON', 'auth: revoked key', 'unknown field: __proto__ property']) {
      expect(kinds).toContain(kind);
    }
  });

  it("puts the other tenant's id where an id of this kind belongs", () => {
    const foreign = many.filter((r) => r.strategy === "value: another tenant's id" && r.target === 'path redecConsentId');
    expect(foreign.length).toBeGreaterThan(0);
    for (const request of foreign) expect(request.url).toBe(`/v1/consents/${OTHER_CONSENT}/revoke`);
  });

  it('sends what the API description promises to refuse, in the fields it promises it of, and expects that refusal', () => {
    const refusals = many.filter((r) => r.strategy.startsWith('refusal:'));
    expect(refusals.length).toBeGreaterThan(20);
    for (const request of refusals) {
      const body = JSON.parse(request.body!.toString('utf8'));
      expect(request.headers.Authorization).toBe(`Bearer ${context.keys.all}`);
      if (request.target === 'body title') {
        expect(body.title).toMatch(/^Banco[\s\S] Ejemplo$/u);
        expect(['bidi_control', 'invisible_character']).toContain(request.expected?.reason);
      } else {
        expect(request.target).toMatch(/^body source(System|Reference)/);
        expect(request.expected).toEqual({ status: 400, reason: 'control_character' });
      }
    }
    // The pair decision 0065 names: two identities of one object that a NUL join would make one.
    const pairs = refusals.filter((r) => r.target === 'body sourceSystem + body sourceReference').map((r) => JSON.parse(r.body!.toString('utf8')));
    expect(pairs.length).toBeGreaterThan(0);
    for (const body of pairs) expect(`${body.sourceSystem}\u0000${body.sourceReference}`).toBe('core\u0000x\u0000y');
  });

  it('expects every name every object has, sent as a property, refused: by validation, or by the JSON parser for the keys it will not build', () => {
    const unknown = many.filter((r) => r.strategy.startsWith('unknown field:'));
    const kinds = new Set(unknown.map((r) => r.strategy));
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__proto__']) expect(kinds).toContain(`unknown field: ${name} property`);
    for (const request of unknown) {
      const parserRefuses = request.method === 'POST' && /__proto__|constructor\.prototype/.test(request.strategy);
      expect({ strategy: request.strategy, expected: request.expected }).toEqual({ strategy: request.strategy, expected: { status: 400, reason: parserRefuses ? 'malformed_json' : 'unknown_property' } });
    }
    expect(unknown.filter((r) => r.method === 'GET').every((r) => r.target.startsWith('query '))).toBe(true);
  });

  it('puts an API key, the webhook secret or a RUT in a path segment, the query or an unmatched path, expecting 404 on the unmatched one', () => {
    const secrets = many.filter((r) => r.strategy.startsWith('secret in URL:'));
    expect(new Set(secrets.map((r) => r.strategy))).toEqual(new Set(['secret in URL: API key', 'secret in URL: webhook secret', 'secret in URL: RUT']));
    expect(new Set(secrets.map((r) => r.target))).toEqual(new Set(['path redecConsentId', 'query', 'unmatched path']));
    for (const request of secrets) {
      const url = decodeURIComponent(request.url);
      const sent = [context.keys.all, context.webhookSecret].some((secret) => url.includes(secret)) || /\d{1,2}\.?\d{3}\.?\d{3}-?[\dkK]/.test(url);
      expect({ url, sent }).toEqual({ url, sent: true });
      if (request.target === 'unmatched path') {
        expect(request.url).toMatch(/^\/v1\/unmatched\//);
        expect(request.expected).toEqual({ status: 404 });
      } else {
        expect(request.expected).toBeUndefined();
      }
    }
  });

  it('describes a body too large to print instead of spelling it out', () => {
    const deep = many.find((r) => r.strategy === 'body: deep nesting' && r.body!.length > 100_000)!;
    expect(deep.bodyDescription).toMatch(/nested \d+ deep/);
    expect(deep.bodyDescription!.length).toBeLessThan(100);
  });
});

describe('percentEncode', () => {
  it('encodes as encodeURIComponent does, and a lone surrogate as the bytes a careless client sends', () => {
    expect(percentEncode('a b/é')).toBe(encodeURIComponent('a b/é'));
    expect(percentEncode('a\ud800')).toBe('a%ED%A0%80');
  });
});
