import { createHash } from 'node:crypto';
import { FuzzContext } from './fuzz-context';
import { JsonLike, RawJson, deeplyNested, deeplyNestedArrays, longArray, longString, manyKeys } from './json-text';
import { Schema } from './operations';
import { Random } from './random';
import { formatRut } from './rut';

/**
 * Values for one field or parameter, from its schema and its name: valid
 * ones (what an integrator would send), boundary ones (at and just past each
 * limit the schema states) and hostile ones (what an attacker would send).
 */

export interface NamedValue {
  /** What the value is, in a few words: `max length + 1`, `lone surrogate`, ... */
  kind: string;
  value: JsonLike;
}

/** What a value is drawn from: the seeded ledger, the request's random stream, and the instant (time is an input, so a request can be generated again). */
export interface Draw {
  context: FuzzContext;
  random: Random;
  now: number;
}

const MINUTE = 60_000;
/** An address of the public internet written as a literal: no name to resolve, so a refusal cannot depend on the network. Nothing is ever delivered to it (LEDGER_WORKERS=external). */
export const PUBLIC_HOST = '1.1.1.1';
const EVIDENCE_BYTES = Buffer.from('fuzz evidence bytes');

/**
 * Values the API means by a field's name, where its schema alone would give
 * something the service refuses at once. Array fields use their items' hint.
 */
const HINTS: Record<string, (draw: Draw) => JsonLike> = {
  value: ({ context, random }) => formatRut(random.pick(context.ruts), random),
  identifierRutInput: ({ context, random }) => formatRut(random.pick(context.ruts), random),
  system: () => 'cl-sii',
  type: () => 'rut',
  userReference: ({ random }) => `cliente-fuzz-${random.int(1, 1e9)}`,
  url: () => `https://${PUBLIC_HOST}/hooks`,
  returnUrl: () => 'https://bank.example/consent/return',
  allowedOrigins: () => 'https://bank.example',
  mediaType: ({ random }) => random.pick(['audio/wav', 'audio/mpeg', 'application/pdf', 'image/png']),
  contentBase64: () => EVIDENCE_BYTES.toString('base64'),
  contentSha256: () => createHash('sha256').update(EVIDENCE_BYTES).digest('hex'),
  recipientHash: () => createHash('sha256').update('recipient').digest('hex'),
  objectiveCode: ({ random }) => random.pick(['02', '03']),
  objectiveCodes: ({ random }) => random.pick(['02', '03']),
  finalityCode: () => '2',
  scopeId: () => 'redec-debt',
  scopeIds: () => 'redec-debt',
  dataCategoryCode: () => 'redec.consolidated_debt_record',
  sourceSystem: () => 'core-loans',
  obligationSourceSystem: () => 'core-loans',
  regulatoryProfile: () => 'baseline',
  identityAssurance: () => 'client_authenticated',
  method: () => 'clave_unica',
  status: () => 'none',
  notificationChannel: () => 'email',
  targets: () => 'Banco Ejemplo',
  title: () => 'Consulta al Registro de Deuda Consolidada',
  text: () => 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada.',
  at: ({ now }) => String(now - MINUTE),
  since: () => 0,
};

/** A valid-looking value for `schema`, named `name` in its request. */
export function validValue(schema: Schema, name: string, draw: Draw): JsonLike {
  const { context, random } = draw;
  if (schema.enum && schema.enum.length > 0) return random.pick(schema.enum.filter((v) => v !== null)) as JsonLike;
  const types = typesOf(schema);
  if (types.includes('array')) {
    const count = Math.max(schema.minItems ?? 1, 1);
    return Array.from({ length: count }, () => validValue(schema.items ?? {}, name, draw));
  }
  if (types.includes('object') || schema.properties) {
    const properties = schema.properties ?? {};
    const required = schema.required ?? [];
    const object: Record<string, JsonLike> = {};
    for (const [property, propertySchema] of Object.entries(properties)) {
      if (required.includes(property) || random.chance(0.4)) object[property] = validValue(propertySchema, property, draw);
    }
    return object;
  }
  const known = knownValues(context, 'own', name);
  if (known.length > 0) return random.pick(known);
  const hint = HINTS[name];
  if (hint) return hint(draw);
  if (types.includes('integer') || types.includes('number')) {
    if (/At$/.test(name)) return draw.now - MINUTE;
    if (typeof schema.default === 'number') return schema.default;
    return schema.minimum ?? 1;
  }
  if (types.includes('boolean')) return random.chance(0.5);
  if (schema.format === 'uuid' || /Id$/.test(name)) return randomUuid(random);
  return stringFor(schema, random, draw.now);
}

/** The own or the other tenant's values for a field named `name` (or its singular: `configurationIds` → `configurationId`). */
export function knownValues(context: FuzzContext, tenant: 'own' | 'other', name: string): string[] {
  const values = context[tenant].values;
  return values[name] ?? values[name.replace(/s$/, '')] ?? [];
}

/** Values at and just past each limit the schema states. */
export function boundaryValues(schema: Schema): NamedValue[] {
  const values: NamedValue[] = [];
  const types = typesOf(schema);
  if (schema.enum) {
    const first = String(schema.enum.find((v) => v !== null) ?? '');
    values.push({ kind: 'enum value in upper case', value: first.toUpperCase() }, { kind: 'enum value with a trailing space', value: `${first} ` });
  }
  if (types.includes('string') || types.length === 0) {
    values.push({ kind: 'empty string', value: '' }, { kind: 'one character', value: 'a' });
    if (schema.maxLength !== undefined) {
      values.push({ kind: 'max length', value: 'x'.repeat(schema.maxLength) }, { kind: 'max length + 1', value: 'x'.repeat(schema.maxLength + 1) });
      values.push({ kind: 'max length in astral characters', value: '😀'.repeat(schema.maxLength) });
    }
    if (schema.minLength) values.push({ kind: 'min length - 1', value: 'x'.repeat(schema.minLength - 1) });
  }
  if (types.includes('integer') || types.includes('number')) {
    values.push(
      { kind: 'zero', value: 0 },
      { kind: 'minus one', value: -1 },
      { kind: 'largest safe integer', value: Number.MAX_SAFE_INTEGER },
      { kind: 'past the largest safe integer', value: new RawJson('9007199254740993', '9007199254740993') },
      { kind: 'fraction', value: 1.5 },
      { kind: 'past the largest date', value: 8.64e15 + 1 },
    );
    if (schema.minimum !== undefined) values.push({ kind: 'minimum', value: schema.minimum }, { kind: 'minimum - 1', value: schema.minimum - 1 });
    if (schema.maximum !== undefined) values.push({ kind: 'maximum', value: schema.maximum }, { kind: 'maximum + 1', value: schema.maximum + 1 });
  }
  if (types.includes('array')) {
    values.push({ kind: 'empty array', value: [] });
    if (schema.maxItems !== undefined) values.push({ kind: 'max items + 1', value: Array(schema.maxItems + 1).fill('a') });
  }
  if (types.includes('object') || schema.properties) values.push({ kind: 'empty object', value: {} });
  return values;
}

/** Text an attacker tries in any field: controls, bidi overrides, lone surrogates, injections, ids that are not. */
const HOSTILE_STRINGS: ReadonlyArray<[string, string]> = [
  ['NUL', 'a\u0000b'],
  ['C0 controls', 'a\u0007\u001b[31mred\u001b[0m'],
  ['C1 controls', 'a\u0085b\u009bc'],
  ['bidi override', 'acepto \u202Eotpecer on\u202C'],
  ['bidi isolates', '\u2066x\u2069\u2067y\u2069'],
  ['lone high surrogate', 'a\uD800b'],
  ['lone low surrogate', '\uDC00'],
  ['line and paragraph separators', 'a\u2028b\u2029c'],
  ['zero-width and BOM', 'a\u200Bb\uFEFFc'],
  ['astral characters', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢😀'],
  ['combining marks', `e${'\u0301'.repeat(200)}`],
  ['HTML', '<script>alert(1)</script><img src=x onerror=alert(1)>'],
  ['SQL', "'; DROP TABLE events; --"],
  ['template expressions', '${7*7}{{7*7}}<%= 7*7 %>'],
  ['path traversal', '../../../../etc/passwd'],
  ['CRLF', 'a\r\nX-Injected: 1'],
  ['percent escapes', '%00%2e%2e%2f%ff'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['whitespace only', ' \t '],
  ['malformed uuid', 'not-a-uuid'],
  ['uuid in upper case', 'A3BB189E-8BF9-3888-9912-ACE4E6543002'],
  ['uuid without dashes', 'a3bb189e8bf938889912ace4e6543002'],
  ['nil uuid', '00000000-0000-0000-0000-000000000000'],
  ['uuid and a newline', 'a3bb189e-8bf9-4888-9912-ace4e6543002\n'],
  ['number-like text', '1e309'],
];

/**
 * A hostile value for a field named `name`; `huge` allows the values that
 * cost the service real memory (megabytes, nesting a hundred thousand deep).
 */
export function hostileValue(schema: Schema, name: string, { context, random }: Draw): NamedValue {
  const otherTenant = knownValues(context, 'other', name);
  const anotherKind = Object.entries(context.own.values).filter(([key]) => key !== name && key !== 'token');
  const choices: Array<[() => NamedValue, number]> = [
    [() => wrongType(schema, random), 8],
    [() => hostileString(random), 12],
    [() => ({ kind: 'long string (10,000)', value: longString(10_000) }), 3],
    [() => ({ kind: 'huge string (1 MB)', value: longString(1 << 20) }), 1],
    [() => ({ kind: 'deep nesting', value: random.pick([deeplyNested, deeplyNestedArrays])(random.pick([1_000, 10_000, 100_000])) }), 4],
    [() => ({ kind: 'many keys (20,000)', value: manyKeys(20_000) }), 1],
    [() => ({ kind: 'long array (100,000)', value: longArray(100_000) }), 1],
    [() => ({ kind: '__proto__ key', value: new RawJson('{"__proto__":{"polluted":true,"isAdmin":true}}', '{"__proto__":{"polluted":true,…}}') }), 2],
    [() => ({ kind: 'constructor.prototype key', value: new RawJson('{"constructor":{"prototype":{"polluted":true}}}', '{"constructor":{"prototype":{…}}}') }), 2],
    [() => ({ kind: 'number out of range', value: new RawJson(random.pick(['1e400', '-1e400', '123456789012345678901234567890']), 'a number past double precision') }), 2],
    [() => ({ kind: "another tenant's id", value: random.pick(otherTenant.length > 0 ? otherTenant : ['']) }), otherTenant.length > 0 ? 8 : 0],
    [() => ({ kind: 'an id of another kind', value: random.pick(random.pick(anotherKind)[1]) }), anotherKind.length > 0 ? 3 : 0],
  ];
  return random.weighted(choices.filter(([, weight]) => weight > 0))();
}

function hostileString(random: Random): NamedValue {
  const [kind, value] = random.pick(HOSTILE_STRINGS);
  return { kind, value };
}

/** A value of a type the schema does not allow. */
function wrongType(schema: Schema, random: Random): NamedValue {
  const types = typesOf(schema);
  const candidates: Array<[string, JsonLike]> = [
    ['null', null],
    ['boolean', true],
    ['number', 42],
    ['string', '42'],
    ['array', ['a']],
    ['object', { a: 1 }],
  ];
  const wrong = candidates.filter(([type]) => !types.includes(type) && !(type === 'number' && types.includes('integer')) && !(type === 'null' && schema.nullable));
  const [type, value] = random.pick(wrong.length > 0 ? wrong : candidates);
  return { kind: `wrong type (${type})`, value };
}

function typesOf(schema: Schema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** A string within the schema's length and pattern, when one of a few shapes fits the pattern. */
function stringFor(schema: Schema, random: Random, now: number): string {
  const candidates = [`fuzz-${random.int(1, 1e9)}`, '02', 'email', createHash('sha256').update(String(random.next())).digest('hex'), String(now)];
  const fits = (candidate: string) =>
    (!schema.pattern || new RegExp(schema.pattern).test(candidate)) && candidate.length >= (schema.minLength ?? 0) && candidate.length <= (schema.maxLength ?? Infinity);
  return candidates.find(fits) ?? candidates[0].padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? Infinity);
}

export function randomUuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => random.int(0, 15).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[random.int(0, 3)]}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** An answer the API description promises: its status and the `reason` it names (top-level or of a field), if any. */
export interface Expected {
  status: number;
  reason?: string;
}

/** A value the API description says is refused, and how. */
export interface Refusal extends NamedValue {
  expected: Expected;
}

const refusedAs = (reason: string): Expected => ({ status: 400, reason });

/**
 * Characters an identity refuses (docs/decisions/0065-identity-text.md):
 * NUL joins the parts of composite ids, so `("core\0x", "y")` would name
 * the obligation `("core", "x\0y")` names; tab and line feed, which
 * presented text takes, are no part of a one-line identity either.
 */
const IDENTITY_CONTROLS: ReadonlyArray<[string, string]> = [
  ['NUL', '\u0000'],
  ['tab', '\t'],
  ['line feed', '\n'],
  ['C0 unit separator', '\u001F'],
  ['DEL', '\u007F'],
  ['C1 next line', '\u0085'],
];

/**
 * Characters presented text refuses although they draw nothing or reorder
 * what is drawn, as ranges of code points with the reason each is refused
 * with: the bidi controls apart, every other format character as invisible.
 */
const INVISIBLE_RANGES: ReadonlyArray<[string, number, number, string]> = [
  ['bidi embedding or override', 0x202a, 0x202e, 'bidi_control'],
  ['bidi isolate', 0x2066, 0x2069, 'bidi_control'],
  ['bidi mark', 0x200e, 0x200f, 'bidi_control'],
  ['zero-width character', 0x200b, 0x200d, 'invisible_character'],
  ['byte order mark', 0xfeff, 0xfeff, 'invisible_character'],
  ['line or paragraph separator', 0x2028, 0x2029, 'invisible_character'],
  ['soft hyphen', 0x00ad, 0x00ad, 'invisible_character'],
  ['interlinear annotation', 0xfff9, 0xfffb, 'invisible_character'],
  ['tag character', 0xe0000, 0xe007f, 'invisible_character'],
];

/** How the description of an identity field begins its rule. */
const IDENTITY = 'An identity:';

/**
 * Refusals the API description promises, each found by the words the
 * description of a field uses for its rule (apps/api/src/dto-fields.ts, the
 * egress policy of libs/webhooks), so that a field that gains the rule is
 * fuzzed with it and one whose description names a rule it lacks fails.
 */
export interface RefusalRule {
  /** The words of a field's description that promise the rule. */
  promise: string;
  refusals(random: Random): Refusal;
}

const REFUSALS: readonly RefusalRule[] = [
  {
    promise: IDENTITY,
    refusals: (random) => {
      const [kind, character] = random.pick(IDENTITY_CONTROLS);
      return { kind: `${kind} in an identity`, value: `core${character}x`, expected: refusedAs('control_character') };
    },
  },
  {
    promise: 'Shown to the data subject:',
    refusals: (random) => {
      const [kind, first, last, reason] = random.pick(INVISIBLE_RANGES);
      return { kind: `${kind} in presented text`, value: `Banco${String.fromCodePoint(random.int(first, last))} Ejemplo`, expected: refusedAs(reason) };
    },
  },
  {
    promise: '`must_be_https_or_opaque`',
    refusals: (random) => {
      const [kind, value] = random.pick([
        ['javascript: URL', 'javascript:alert(1)'],
        ['http URL', 'http://evidence.example/calls/1'],
        ['data: URL', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='],
        ['file URL', 'file:///etc/passwd'],
      ]);
      return { kind, value, expected: refusedAs('must_be_https_or_opaque') };
    },
  },
  {
    promise: '`port_not_allowed`',
    refusals: (random) => {
      const [kind, value, reason] = random.pick([
        ...[25, 80, 5432, 8443].map((port) => [`public host on port ${port}`, `https://${PUBLIC_HOST}:${port}/hooks`, 'port_not_allowed']),
        ['plain http to a public host', `http://${PUBLIC_HOST}/hooks`, 'https_required'],
        ['private address', 'https://10.0.0.1/hooks', 'private_address_not_allowed'],
        ['cloud metadata address', 'https://169.254.169.254/latest/meta-data', 'private_address_not_allowed'],
      ]);
      return { kind, value, expected: refusedAs(reason) };
    },
  },
];

/** The refusals the description of a field promises. */
export function rulesOf(schema: Schema): RefusalRule[] {
  return REFUSALS.filter(({ promise }) => schema.description?.includes(promise));
}

/**
 * A value the API description promises to refuse in this field, by one of
 * `rules` (all the field's by default), or undefined when it promises no
 * particular refusal. A list's rule applies to each item.
 */
export function refusedValue(schema: Schema, random: Random, rules = rulesOf(schema)): Refusal | undefined {
  if (rules.length === 0) return undefined;
  const refusal = random.pick(rules).refusals(random);
  return typesOf(schema).includes('array') ? { ...refusal, value: [refusal.value] } : refusal;
}

export function isIdentity(schema: Schema): boolean {
  return schema.description?.includes(IDENTITY) === true;
}

/**
 * Two identity parts that a NUL join would make one identity of: the pair
 * decision 0065 names, sent to two identity fields of one object, either
 * way round. Each must be refused by itself (`control_character`).
 */
export function ambiguousIdentityPair(random: Random): { kind: string; values: [string, string]; expected: Expected } {
  const values = random.pick<[string, string]>([
    ['core\u0000x', 'y'],
    ['core', 'x\u0000y'],
  ]);
  return { kind: 'identity parts a NUL join would confuse', values, expected: refusedAs('control_character') };
}
