import { Document, assertCompatible, breakingChanges } from './compatibility';

const documentOf = (version: string, consent: object, parameters: object[] = [{ name: 'limit', in: 'query', schema: { type: 'integer' } }]): Document => ({
  info: { version },
  paths: {
    '/v1/consents': {
      get: { parameters, responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Consent' } } } } } },
    },
  },
  components: { schemas: { Consent: consent } },
});

const consent = {
  type: 'object',
  properties: {
    redecConsentId: { type: 'string' },
    grantedAt: { type: 'integer' },
    scopes: { type: 'array', items: { type: 'object', properties: { scopeId: { type: 'string' } } } },
    revocation: { anyOf: [{ type: 'object', properties: { revokedAt: { type: 'integer' } } }, { type: 'null' }] },
  },
};
const withProperties = (properties: object) => ({ ...consent, properties: { ...consent.properties, ...properties } });
const without = (name: keyof typeof consent.properties) => ({ ...consent, properties: Object.fromEntries(Object.entries(consent.properties).filter(([key]) => key !== name)) });

describe('breaking changes between two OpenAPI documents', () => {
  it('finds none when fields are only added', () => {
    expect(breakingChanges(documentOf('1.0.0', consent), documentOf('1.0.0', withProperties({ expiresAt: { type: 'integer' } })))).toEqual([]);
  });

  it('finds a removed property, a retyped one, and fields deep in arrays and nullable objects', () => {
    const after = withProperties({
      grantedAt: { type: 'string', format: 'date-time' },
      scopes: { type: 'array', items: { type: 'object', properties: {} } },
      revocation: { anyOf: [{ type: 'object', properties: { revokedAt: { type: 'string' } } }, { type: 'null' }] },
    });
    expect(breakingChanges(documentOf('1.0.0', consent), documentOf('1.0.0', without('redecConsentId')))).toEqual(['#/components/schemas/Consent.redecConsentId: removed']);
    expect(breakingChanges(documentOf('1.0.0', consent), documentOf('1.0.0', after))).toEqual([
      '#/components/schemas/Consent.grantedAt: integer became string:date-time',
      '#/components/schemas/Consent.scopes[].scopeId: removed',
      '#/components/schemas/Consent.revocation<anyOf 0>.revokedAt: integer became string',
    ]);
  });

  it('finds a removed operation, a removed parameter and a response that names another schema', () => {
    const before = documentOf('1.0.0', consent);
    expect(breakingChanges(before, documentOf('1.0.0', consent, []))).toEqual(['GET /v1/consents query parameter limit: removed']);
    expect(breakingChanges(before, { ...before, paths: {} })).toEqual(expect.arrayContaining(['GET /v1/consents: removed']));
    const renamed: Document = JSON.parse(JSON.stringify(before).replace('"#/components/schemas/Consent"', '"#/components/schemas/RedecConsent"'));
    expect(breakingChanges(before, renamed)).toEqual(['GET /v1/consents 200 application/json: #/components/schemas/Consent became #/components/schemas/RedecConsent']);
  });
});

describe('a new document replacing the committed one', () => {
  it('is refused when it breaks a field within the same major version, naming every break', () => {
    expect(() => assertCompatible(documentOf('1.0.0', consent), documentOf('1.4.0', without('grantedAt')))).toThrow(
      /removes or retypes 1 field\(s\).*\(1\.0\.0 -> 1\.4\.0\):\n {2}#\/components\/schemas\/Consent\.grantedAt: removed/s,
    );
  });

  it('is accepted with a higher major version, or when it breaks nothing', () => {
    expect(() => assertCompatible(documentOf('1.0.0', consent), documentOf('2.0.0', without('grantedAt')))).not.toThrow();
    expect(() => assertCompatible(documentOf('1.0.0', consent), documentOf('1.0.0', withProperties({ expiresAt: { type: 'integer' } })))).not.toThrow();
  });
});
