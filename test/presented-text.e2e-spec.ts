import { randomUUID } from 'node:crypto';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectValidationError, recordsNoFact, recordsNothingAtAll } from './support/expectations';
import { redecConfiguration, rutOf } from './support/redec-fixtures';

// Issue 13, "Presented text": what the consent page shows and the certificate
// prints is refused, 400 naming the field, when it holds a character that
// would make the display differ from the record: C0 and C1 controls but tab
// and line feed, bidi overrides and isolates, lone surrogates; the field error
// names the character's code point (issue 32, test/hostile-input.e2e-spec.ts).

const MINUTE = 60_000;
const SCOPES = ['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'] as const;

/** One of each refused class, with the reason it is refused for. */
const HIDDEN: Array<[string, string]> = [
  ['\u0000', 'control_character'],
  ['\u0007', 'control_character'],
  ['\r', 'control_character'],
  ['\u001b', 'control_character'],
  ['\u007f', 'control_character'],
  ['\u0085', 'control_character'],
  ['\u009b', 'control_character'],
  ['\u202a', 'bidi_control'],
  ['\u202e', 'bidi_control'],
  ['\u2066', 'bidi_control'],
  ['\u2069', 'bidi_control'],
  ['\ud800', 'lone_surrogate'],
  ['\udfff', 'lone_surrogate'],
];
const RLO: [string, string] = ['\u202e', 'bidi_control'];
const codePointOf = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Sets `value` at a dotted path with [index] steps, in a deep copy. */
function withValue(body: object, path: string, value: string): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, any>;
  const steps = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let node = copy;
  for (const step of steps.slice(0, -1)) node = node[step];
  node[steps[steps.length - 1]] = value;
  return copy;
}

describe('presented text', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let auth: { Authorization: string };
  let nextRut = 24_500_000;

  const post = (path: string, body: object) => api.http.post(path).set(auth).send(body);
  const customer = async () => {
    const resolved = await post('/v1/customers/resolve', {
      userReference: `cliente-${randomUUID()}`,
      identifiers: [{ system: 'cl-sii', type: 'rut', value: rutOf((nextRut += 7919)), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
    });
    expect(resolved.status).toBe(201);
    return resolved.body.customerId as string;
  };

  beforeAll(async () => {
    environment = testEnvironment();
    // No certificate worker: a refused request is checked by the store's head alone.
    api = await startApiApp(environment, { LEDGER_WORKERS: 'external' });
    auth = { Authorization: `Bearer ${(await api.tenantKey([...SCOPES])).apiKey}` };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it("refuses a configuration whose title, text, targets or data categories hide characters, naming the field and the reason, recording nothing", async () => {
    const configuration = redecConfiguration({ templateKey: `redec-${randomUUID()}` });
    // A list's items are checked each, and reported on the list, as every other rule on items is.
    for (const [path, field] of [['title', 'title'], ['text', 'text'], ['redec.targets[0]', 'redec.targets'], ['redec.scopes[0].dataCategoryCode', 'redec.scopes[0].dataCategoryCode']]) {
      for (const [character, reason] of HIDDEN) {
        const body = withValue(configuration, path, `Banco${character} Ejemplo`);
        const response = await recordsNothingAtAll(api, () => post('/v1/configurations', body));
        expect({ path, character: character.codePointAt(0), status: response.status }).toEqual({ path, character: character.codePointAt(0), status: 400 });
        expectValidationError(response, [{ field, reason, codePoint: codePointOf(character) }]);
      }
    }
  });

  it('keeps text with line feeds, tabs, accents and characters outside the BMP exactly as sent', async () => {
    const text = 'Autorizo a Banco Ejemplo:\n\t- a consultar el Registro de Deuda Consolidada;\n\t- señalización ✓ 😀 (U+1F600, a surrogate pair).';
    const published = await post('/v1/configurations', { ...redecConfiguration({ templateKey: `redec-${randomUUID()}` }), text });
    expect(published.status).toBe(201);
    expect((await api.http.get(`/v1/configurations/${published.body.configurationId}`).set(auth)).body.text).toBe(text);
  });

  it('refuses a grant whose certificate fields hide characters, naming the field, recording nothing', async () => {
    const published = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}` }));
    expect(published.status).toBe(201);
    const opened = await post('/v1/redec/consent-interactions', { configurationId: published.body.configurationId, customerId: await customer() });
    expect(opened.status).toBe(201);
    const grant = {
      occurredAt: Date.now() - MINUTE,
      sourceSystem: 'crm',
      sourceReference: 'cap-1',
      evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } },
      representation: { type: 'representative', identifierRutInput: '12.345.678-5', authorityBasis: 'reporter_asserted_representation', authorityReference: 'poder-1', assertedAt: Date.now() - MINUTE },
      reportableObligation: { status: 'pending', sourceSystem: 'core-loans', sourceReference: 'loan-1' },
    };
    const fields = [
      'sourceSystem',
      'sourceReference',
      'evidence.authentication.method',
      'evidence.authentication.reference',
      'representation.authorityReference',
      'reportableObligation.status',
      'reportableObligation.sourceSystem',
      'reportableObligation.sourceReference',
    ];
    const path = `/v1/redec/consent-interactions/${opened.body.interactionId}/grant`;
    for (const field of fields) {
      for (const [character, reason] of [RLO, ['\u0000', 'control_character'], ['\udc00', 'lone_surrogate']]) {
        const response = await recordsNoFact(api, () => post(path, withValue(grant, field, `ref${character}1`)));
        expect({ field, status: response.status }).toEqual({ field, status: 400 });
        expectValidationError(response, [{ field, reason, codePoint: codePointOf(character) }]);
      }
    }
    // Nothing was claimed: the same interaction is granted with the text as it should be.
    expect((await post(path, grant)).status).toBe(201);
  });

  it('refuses them in a Multi-Consent decision, at its top and inside an item', async () => {
    const published = await post('/v1/configurations', redecConfiguration({ templateKey: `redec-${randomUUID()}` }));
    const decision = {
      customerId: await customer(),
      occurredAt: Date.now() - MINUTE,
      sourceSystem: 'crm',
      sourceReference: 'cap-1',
      items: [{ configurationId: published.body.configurationId, decision: 'accepted', redec: { evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } } } }],
    };
    for (const field of ['sourceSystem', 'sourceReference', 'items[0].redec.evidence.authentication.reference']) {
      const response = await recordsNoFact(api, () => api.http.post('/v1/consent-decisions').set(auth).set('Idempotency-Key', randomUUID()).send(withValue(decision, field, `a${RLO[0]}b`)));
      expectValidationError(response, [{ field, reason: RLO[1], codePoint: 'U+202E' }]);
    }
  });

  it("refuses an embed session's dynamicReference, which the certificate prints as the grant's sourceReference", async () => {
    const response = await recordsNothingAtAll(api, () =>
      post('/v1/embed/sessions', { configurationId: randomUUID(), customerId: randomUUID(), dynamicReference: `pedido${'\u2066'}-42` }),
    );
    expectValidationError(response, [{ field: 'dynamicReference', reason: 'bidi_control', codePoint: 'U+2066' }]);
  });
});
