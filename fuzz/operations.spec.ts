import { PUBLIC_PAGES, operationsOf } from './operations';

describe('operationsOf', () => {
  const document = {
    paths: {
      '/v1/things/{thingId}/grant': {
        post: {
          parameters: [{ name: 'thingId', in: 'path', schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/GrantDto' } } } },
          security: [{ bearer: [] }],
        },
        get: { parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } }] },
      },
    },
    components: {
      schemas: {
        GrantDto: { type: 'object', required: ['evidence'], properties: { evidence: { description: 'inlined', allOf: [{ $ref: '#/components/schemas/EvidenceDto' }] } } },
        EvidenceDto: { type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ['electronic'] }, next: { $ref: '#/components/schemas/EvidenceDto' } } },
      },
    },
  };

  it('lists every method of every path, path parameters required, secured when the operation says so', () => {
    const [get, post] = operationsOf(document);
    expect(post).toMatchObject({ method: 'POST', path: '/v1/things/{thingId}/grant', secured: true, parameters: [{ name: 'thingId', in: 'path', required: true }] });
    expect(get).toMatchObject({ method: 'GET', secured: false, parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } }] });
  });

  it("keeps a field's description, and a parameter's, where the refusals it promises are read", () => {
    const operations = operationsOf({
      paths: {
        '/v1/lookup': { get: { parameters: [{ name: 'sourceSystem', in: 'query', description: 'An identity: …', schema: { type: 'string', maxLength: 100 } }] } },
      },
    });
    expect(operations[0].parameters[0].schema).toEqual({ type: 'string', maxLength: 100, description: 'An identity: …' });
    const post = operationsOf(document).find((o) => o.method === 'POST')!;
    expect(post.body?.schema.properties?.evidence.description).toBe('inlined');
  });

  it('inlines $ref and allOf, and stops at a schema that refers to itself', () => {
    const post = operationsOf(document).find((o) => o.method === 'POST')!;
    expect(post.body).toEqual({
      mediaType: 'application/json',
      schema: {
        type: 'object',
        required: ['evidence'],
        properties: { evidence: { type: 'object', description: 'inlined', required: ['kind'], properties: { kind: { type: 'string', enum: ['electronic'] }, next: {} } } },
      },
    });
  });

  it('describes the public pages the service leaves out of its OpenAPI document: the consent page and its form', () => {
    const pages = operationsOf(PUBLIC_PAGES);
    expect(pages.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['GET /embed/pages/{pageReference}', 'POST /embed/pages/{pageReference}/decision', 'GET /health/ready']),
    );
    expect(pages.find((o) => o.method === 'POST')?.body?.mediaType).toBe('application/x-www-form-urlencoded');
    expect(pages.every((o) => !o.secured)).toBe(true);
  });
});
