import { randomUUID } from 'node:crypto';
import { OPERATION_EXAMPLES } from '../apps/api/src/openapi/examples';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { redecConfiguration } from './support/redec-fixtures';

// Issue 32, "Hostile input": identity fields refuse control characters, text
// shown to the data subject refuses invisible and format characters (the
// field error naming the code point, never quoting the value), and names
// every object has are refused as unknown properties instead of dropped.

const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:runtime', 'consent:identity-assert'] as const;

/** One control character of each kind: NUL (the join of composite identities), tab and line feed (presented text takes them, an identity does not), others of C0 and C1. */
const CONTROLS = ['\u0000', '\t', '\n', '\u001f', '\u007f', '\u0085'];

const codePointOf = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Sets `value` at a dotted path with [index] steps, in a deep copy. */
function withValue(body: object, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, any>;
  const steps = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let node = copy;
  for (const step of steps.slice(0, -1)) node = node[step];
  node[steps[steps.length - 1]] = value;
  return copy;
}

/** The request of an operation's example, its path parameters filled with fresh ids (validation answers before any is looked up). */
function example(operation: keyof typeof OPERATION_EXAMPLES): { path: string; body: object } {
  const [, template] = operation.split(' ');
  return { path: template.replace(/\{\w+\}/g, () => randomUUID()), body: OPERATION_EXAMPLES[operation].request as object };
}

describe('hostile input', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let auth: { Authorization: string };

  const post = (path: string, body: object) => api.http.post(path).set(auth).set('Idempotency-Key', randomUUID()).send(body);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    auth = { Authorization: `Bearer ${(await api.tenantKey([...SCOPES])).apiKey}` };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('refuses a control character in every identity field of a body, naming the field and the code point, recording nothing', async () => {
    const fields: Array<[keyof typeof OPERATION_EXAMPLES, string[]]> = [
      ['POST /v1/redec/consent-interactions/{interactionId}/grant', ['sourceSystem', 'sourceReference']],
      ['POST /v1/redec/accesses/authorize', ['sourceSystem', 'sourceReference', 'reportingObligation.sourceSystem', 'reportingObligation.sourceReference']],
      ['POST /v1/redec/reportable-obligations/bindings', ['sourceSystem', 'obligationReference']],
      ['POST /v1/redec/consents/{redecConsentId}/credit-extensions', ['creditOperationReference', 'sourceSystem', 'sourceReference']],
      ['POST /v1/customers/resolve', ['userReference']],
      ['POST /v1/redec/consent-interactions', ['userReference']],
      ['POST /v1/redec/consents/{redecConsentId}/notification-evidence', ['sourceSystem', 'sourceReference']],
      ['POST /v1/consent-decisions', ['sourceSystem', 'sourceReference']],
      ['POST /v1/embed/sessions', ['dynamicReference']],
      ['POST /v1/consents/{consentId}/revoke', ['sourceSystem', 'sourceReference']],
    ];
    for (const [operation, paths] of fields) {
      const { path, body } = example(operation);
      for (const field of paths) {
        for (const character of CONTROLS) {
          const response = await recordsNoFact(api, () => post(path, withValue(body, field, `core${character}x`)));
          expect({ operation, field, character: codePointOf(character), status: response.status }).toEqual({ operation, field, character: codePointOf(character), status: 400 });
          expectValidationError(response, [{ field, reason: 'control_character', codePoint: codePointOf(character) }]);
          expect(JSON.stringify(response.body)).not.toContain('core');
        }
      }
    }
  });

  it("refuses a control character in an identifier's verification reference", async () => {
    const { path, body } = example('POST /v1/customers/resolve');
    const verified = withValue(body, 'identifiers[0].verification', { method: 'clave_unica', sourceReference: 'auth\u00001', verifiedAt: Date.now() - 60_000 });
    expectValidationError(await post(path, verified), [{ field: 'identifiers[0].verification.sourceReference', reason: 'control_character', codePoint: 'U+0000' }]);
  });

  it('refuses a control character in the identity query parameters of the lookups', async () => {
    for (const [path, query] of [
      ['/v1/redec/consents', { creditOperationReference: 'credito\u00001' }],
      ['/v1/redec/reportable-obligations/consent-code', { sourceSystem: 'core\u0000x', obligationReference: 'y' }],
      ['/v1/redec/reportable-obligations/consent-code', { sourceSystem: 'core', obligationReference: 'x\u0000y' }],
    ] as const) {
      const response = await api.http.get(path).set(auth).query(query);
      const [field] = Object.entries(query).find(([, value]) => value.includes('\u0000'))!;
      expectValidationError(response, [{ field, reason: 'control_character', codePoint: 'U+0000' }]);
    }
  });

  it('refuses invisible and format characters in presented text, naming the field and the code point, never stripping them', async () => {
    const refused: Array<[string, string]> = [
      ['\u200e', 'bidi_control'],
      ['\u200f', 'bidi_control'],
      ['\u061c', 'bidi_control'],
      ['\u200b', 'invisible_character'],
      ['\u200c', 'invisible_character'],
      ['\u200d', 'invisible_character'],
      ['\u2060', 'invisible_character'],
      ['\u2064', 'invisible_character'],
      ['\u180e', 'invisible_character'],
      ['\ufeff', 'invisible_character'],
      ['\u2028', 'invisible_character'],
      ['\u2029', 'invisible_character'],
      ['\u00ad', 'invisible_character'],
      ['\ufff9', 'invisible_character'],
      ['\ufffb', 'invisible_character'],
      ['\u{e0001}', 'invisible_character'],
      ['\u{e0041}', 'invisible_character'],
      ['\u{e007f}', 'invisible_character'],
      ['\u0600', 'invisible_character'],
    ];
    const configuration = redecConfiguration({ templateKey: `redec-${randomUUID()}` });
    for (const [path, field] of [['title', 'title'], ['text', 'text'], ['redec.targets[0]', 'redec.targets']]) {
      for (const [character, reason] of refused) {
        const response = await recordsNothingAtAll(api, () => api.http.post('/v1/configurations').set(auth).send(withValue(configuration, path, `Banco${character} Ejemplo`)));
        expect({ path, character: codePointOf(character), status: response.status }).toEqual({ path, character: codePointOf(character), status: 400 });
        expectValidationError(response, [{ field, reason, codePoint: codePointOf(character) }]);
      }
    }
  });

  it('refuses a title that hides "HIDDEN TEXT" in tag characters, reporting the first one and not the text', async () => {
    const hidden = [...'HIDDEN TEXT'].map((character) => String.fromCodePoint(0xe0000 + character.codePointAt(0)!)).join('');
    const body = { ...redecConfiguration({ templateKey: `redec-${randomUUID()}` }), title: `Autorización de consulta${hidden}` };
    const response = await recordsNothingAtAll(api, () => api.http.post('/v1/configurations').set(auth).send(body));
    expect(response.body.errors).toEqual([{ field: 'title', reason: 'invisible_character', codePoint: 'U+E0048' }]);
    expect(JSON.stringify(response.body)).not.toMatch(/Autorizaci|[\u{e0000}-\u{e007f}]/u);
  });

  it('refuses names every object has as unknown properties, in a body, a nested object, an array of objects and a query', async () => {
    const { path, body } = example('POST /v1/redec/accesses/authorize');
    const resolve = example('POST /v1/customers/resolve');
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype']) {
      for (const [route, sent, field] of [
        [path, withValue(body, name, 'x'), name],
        [path, withValue(body, `reportingObligation.${name}`, 'x'), `reportingObligation.${name}`],
        [resolve.path, withValue(resolve.body, `identifiers[0].${name}`, 'x'), `identifiers[0].${name}`],
      ] as const) {
        const response = await recordsNoFact(api, () => post(route, sent));
        expect({ field, status: response.status }).toEqual({ field, status: 400 });
        expectValidationError(response, [{ field, reason: 'unknown_property' }]);
      }
      const queried = await api.http.get('/v1/redec/reportable-obligations/consent-code').set(auth).query({ sourceSystem: 'core-loans', obligationReference: 'x', [name]: 'y' });
      expectValidationError(queried, [{ field: name, reason: 'unknown_property' }]);
    }
    const prototypeKey = await api.http.get('/v1/redec/reportable-obligations/consent-code?sourceSystem=core-loans&obligationReference=x&__proto__=y').set(auth);
    expectValidationError(prototypeKey, [{ field: '__proto__', reason: 'unknown_property' }]);
  });

  it('keeps refusing a __proto__ key in a body as malformed JSON, before validation', async () => {
    const { path } = example('POST /v1/redec/accesses/authorize');
    const response = await api.http.post(path).set(auth).set('Content-Type', 'application/json').send('{"__proto__":{"x":1}}');
    expectValidationError(response, [], 'malformed_json');
  });
});
