import { FuzzContext } from './fuzz-context';
import { JsonLike, RawJson, deeplyNested, deeplyNestedArrays, longArray, longString, manyKeys, toFieldText, toJsonText } from './json-text';
import { Operation, Schema, operationName } from './operations';
import { Random, randomFor } from './random';
import { formatRut } from './rut';
import { Draw, Expected, NamedValue, ambiguousIdentityPair, boundaryValues, hostileValue, isIdentity, refusedValue, rulesOf, validValue } from './values';

/** One request, ready to send, and what it is in words for the report. */
export interface FuzzRequest {
  index: number;
  /** `POST /v1/redec/consents/{redecConsentId}/revoke`. */
  operation: string;
  /** The class of request: `valid`, `boundary: max length + 1`, `value: deep nesting`, `auth: revoked key`, ... */
  strategy: string;
  /** Where the strategy applied: `body evidence.kind`, `path redecConsentId`, `header Idempotency-Key`; empty when nowhere in particular. */
  target: string;
  method: string;
  /** Path and query, encoded. */
  url: string;
  headers: Record<string, string>;
  /** The Authorization header in words; the key itself is never printed. */
  auth: string;
  body?: Buffer;
  /** The body as the report prints it: abbreviated, hostile shapes described. */
  bodyDescription?: string;
  /** The answer the API description promises to this request, when it promises one: checked, not only the generic promises. */
  expected?: Expected;
}

type Strategy = 'valid' | 'boundary' | 'value' | 'refusal' | 'unknown field' | 'secret in URL' | 'body' | 'content type' | 'auth' | 'header';

/**
 * How often each class of request is sent. Hostile values in one field are
 * the bulk: that is where validation lives. Refusals the API description
 * promises come often enough that `npm test`'s first 1,000 requests send
 * each operation that promises one a few.
 */
const STRATEGIES: ReadonlyArray<readonly [Strategy, number]> = [
  ['valid', 12],
  ['boundary', 14],
  ['value', 28],
  ['refusal', 10],
  ['unknown field', 6],
  ['secret in URL', 4],
  ['body', 12],
  ['content type', 6],
  ['auth', 14],
  ['header', 8],
];

type AuthChoice = 'all' | 'readOnly' | 'revoked' | 'other' | 'none' | 'unknown' | 'malformed';

/** A request before it is encoded: the parts a strategy changes. */
interface Draft {
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  auth: { choice: AuthChoice; header?: string; label: string };
  /** JSON or form fields; `raw` replaces them with exact bytes. */
  body?: JsonLike;
  raw?: { bytes: Buffer; description: string };
  contentType?: string;
  strategy: string;
  target: string;
  expected?: Expected;
  /** A path no route matches, sent instead of the operation's own. */
  unmatchedPath?: string;
}

/**
 * Request `index` of the run seeded `seed`, sent at `now`: the operation
 * comes round in turn, everything else is drawn from the request's own
 * random stream, so the same seed and index give the same request (with
 * this run's ids and instants).
 */
export function generateRequest(operations: readonly Operation[], context: FuzzContext, seed: number, index: number, now: number): FuzzRequest {
  const draw: Draw = { context, random: randomFor(seed, index), now };
  const operation = operations[(index + seed) % operations.length];
  const draft = baseDraft(operation, draw, seed, index);
  const strategy = draw.random.weighted(STRATEGIES.filter(([name]) => applies(name, operation, draft)));
  mutate(strategy, operation, draft, draw, seed, index);
  return encode(operation, draft, context, index);
}

function applies(strategy: Strategy, operation: Operation, draft: Draft): boolean {
  if (strategy === 'auth') return operation.secured;
  if (strategy === 'boundary' || strategy === 'value') return operation.parameters.length > 0 || isObject(draft.body);
  if (strategy === 'refusal') return fieldsOf(operation, draft).some((field) => field.refused);
  if (strategy === 'unknown field') return operation.body !== undefined || operation.method === 'GET';
  return true;
}

function baseDraft(operation: Operation, draw: Draw, seed: number, index: number): Draft {
  const { context, random } = draw;
  const example = context.examples[operationName(operation)];
  const fromExample = example !== undefined && random.chance(0.7);
  const pathParams: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  for (const parameter of operation.parameters) {
    const valid = () => toFieldText(validValue(parameter.schema, parameter.name, draw));
    if (parameter.in === 'path') pathParams[parameter.name] = (fromExample && example.path[parameter.name]) || valid();
    if (parameter.in === 'query' && (parameter.required || random.chance(0.5))) query.push([parameter.name, (fromExample && example.query[parameter.name]) || valid()]);
  }
  const body = operation.body ? (fromExample && example.body !== undefined ? clone(example.body as JsonLike) : validValue(operation.body.schema, 'body', draw)) : undefined;
  // The service logs a sane request id as it is: a log line names the request that wrote it.
  const headers: Record<string, string> = { 'x-request-id': requestName(seed, index) };
  // A new key for each request, so that no request is taken for the retry of another (the header strategy reuses one on purpose).
  if (operation.method !== 'GET') headers['Idempotency-Key'] = requestName(seed, index);
  return {
    pathParams,
    query,
    headers,
    auth: operation.secured ? { choice: 'all', label: 'own tenant, every scope' } : { choice: 'none', label: 'none' },
    body,
    contentType: operation.body?.mediaType,
    strategy: fromExample ? 'valid (example)' : 'valid',
    target: '',
  };
}

function mutate(strategy: Strategy, operation: Operation, draft: Draft, draw: Draw, seed: number, index: number): void {
  const { context, random } = draw;
  switch (strategy) {
    case 'valid':
      return;
    case 'boundary':
    case 'value': {
      const field = pickField(operation, draft, random);
      const named = strategy === 'boundary' ? pickBoundary(field.schema, random) : hostileValue(field.schema, field.name, draw);
      field.set(named.value);
      draft.strategy = `${strategy}: ${named.kind}`;
      draft.target = field.where;
      return;
    }
    case 'refusal':
      return refuse(operation, draft, draw);
    case 'unknown field':
      return addUnknownField(operation, draft, random);
    case 'secret in URL':
      return secretInUrl(operation, draft, draw);
    case 'body':
      return replaceBody(draft, random);
    case 'content type':
      return wrongContentType(draft, random);
    case 'auth':
      return wrongAuth(draft, context, random);
    case 'header':
      return hostileHeader(draft, random, seed, index);
    default: {
      const unknown: never = strategy;
      throw new Error(`unknown strategy ${String(unknown)}`);
    }
  }
}

/** A field of the request: a path or query parameter, or a property anywhere in the body. */
interface Field {
  name: string;
  where: string;
  /** The query, the path, or the body object the field belongs to: fields of one object make one identity. */
  holder: string;
  schema: Schema;
  /** Whether the API description promises to refuse some values of it (values.ts, refusedValue). */
  refused: boolean;
  set(value: JsonLike): void;
}

function pickField(operation: Operation, draft: Draft, random: Random): Field {
  return random.pick(fieldsOf(operation, draft));
}

function fieldsOf(operation: Operation, draft: Draft): Field[] {
  const fields: Field[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in !== 'header')) {
    fields.push({
      name: parameter.name,
      where: `${parameter.in} ${parameter.name}`,
      holder: parameter.in,
      schema: parameter.schema,
      refused: rulesOf(parameter.schema).length > 0,
      set: (value) => {
        if (parameter.in === 'path') draft.pathParams[parameter.name] = toFieldText(value);
        else draft.query = [...draft.query.filter(([name]) => name !== parameter.name), [parameter.name, toFieldText(value)]];
      },
    });
  }
  // A form's fields are not validated as the API description's rules say; only JSON bodies are promised them.
  if (isObject(draft.body) && operation.body) collectBodyFields(draft.body, operation.body.schema, '', fields, operation.body.mediaType === 'application/json');
  return fields;
}

/** Every property the schema names under `object`, present or not, and its nested objects' and arrays' items. */
function collectBodyFields(object: Record<string, JsonLike>, schema: Schema, prefix: string, fields: Field[], json: boolean): void {
  const holder = `body ${prefix}`.trim();
  for (const [name, propertySchema] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    fields.push({ name, where: `body ${path}`, holder, schema: propertySchema, refused: json && rulesOf(propertySchema).length > 0, set: (value) => (object[name] = value) });
    const current = object[name];
    if (isObject(current)) collectBodyFields(current, propertySchema, path, fields, json);
    if (Array.isArray(current) && current.length > 0 && propertySchema.items) {
      const items = current;
      fields.push({ name, where: `body ${path}[0]`, holder: `body ${path}`, schema: propertySchema.items, refused: false, set: (value) => (items[0] = value) });
      if (isObject(items[0])) collectBodyFields(items[0], propertySchema.items, `${path}[0]`, fields, json);
    }
  }
}


/**
 * One value the API description promises to refuse, in the seeded example
 * of the operation (so that the promised refusal is the only one the
 * request earns): the refusal is checked, status and reason. Two identity
 * fields of one object may instead get the parts a NUL join would confuse.
 */
function refuse(operation: Operation, draft: Draft, draw: Draw): void {
  const { context, random } = draw;
  const example = context.examples[operationName(operation)];
  if (example !== undefined) {
    Object.assign(draft.pathParams, example.path);
    draft.query = Object.entries(example.query);
    if (example.body !== undefined) draft.body = clone(example.body as JsonLike);
    draft.contentType = operation.body?.mediaType;
  }
  const fields = fieldsOf(operation, draft).filter((field) => field.refused);
  const identities = fields.filter((field) => isIdentity(field.schema));
  const pair = identities.filter((field) => field.holder === identities[0]?.holder).slice(0, 2);
  if (pair.length === 2 && random.chance(0.25)) {
    const { kind, values, expected } = ambiguousIdentityPair(random);
    pair.forEach((field, i) => field.set(values[i]));
    draft.strategy = `refusal: ${kind}`;
    draft.target = pair.map((field) => field.where).join(' + ');
    draft.expected = expected;
    return;
  }
  // A rule first, then a field that promises it: an operation with many identities and one presented text sends both kinds.
  const rule = random.pick([...new Set(fields.flatMap((field) => rulesOf(field.schema)))]);
  const field = random.pick(fields.filter((candidate) => rulesOf(candidate.schema).includes(rule)));
  const { kind, value, expected } = refusedValue(field.schema, random, [rule])!;
  field.set(value);
  draft.strategy = `refusal: ${kind}`;
  draft.target = field.where;
  draft.expected = expected;
}

function pickBoundary(schema: Schema, random: Random): NamedValue {
  const values = boundaryValues(schema);
  return values.length > 0 ? random.pick(values) : { kind: 'empty string', value: '' };
}

/**
 * Routes that read one query parameter by its name and ignore any other, so
 * that no unknown name in their query is refused; every other described
 * query is read whole, as a DTO, and refuses one. A route found answering
 * an unknown name otherwise fails the run until it is judged and named here.
 */
const QUERY_READ_BY_NAME = new Set(['GET /v1/customers/{customerId}/consent-compliance', 'GET /embed/pages/{pageReference}', 'GET /privacy-center/pages/{pageReference}']);

/**
 * Properties no DTO declares, among them the names every object has, which
 * pollute prototypes when merged carelessly and which a framework may drop
 * in silence instead of refusing (docs/decisions/0065-identity-text.md).
 * Each is refused: `unknown_property`, or, for the keys the JSON parser
 * will not build (`__proto__`, `constructor.prototype`), `malformed_json`.
 */
function addUnknownField(operation: Operation, draft: Draft, random: Random): void {
  const [kind, name, value, reason] = random.pick<[string, string, JsonLike, string]>([
    ['unknown property', 'unexpected', 1, 'unknown_property'],
    ['__proto__ property', '__proto__', new RawJson('{"polluted":true,"isAdmin":true}', '{"polluted":true,…}'), 'malformed_json'],
    ['constructor.prototype property', 'constructor', { prototype: { polluted: true } }, 'malformed_json'],
    ...['constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'].map<[string, string, JsonLike, string]>((own) => [`${own} property`, own, 'x', 'unknown_property']),
  ]);
  draft.strategy = `unknown field: ${kind}`;
  if (operation.method === 'GET' || !isObject(draft.body)) {
    draft.query.push([name, toFieldText(value)]);
    draft.target = `query ${name}`;
    const readWhole = operation.method === 'GET' && operation.parameters.some((parameter) => parameter.in === 'query') && !QUERY_READ_BY_NAME.has(operationName(operation));
    if (readWhole) draft.expected = { status: 400, reason: 'unknown_property' };
    return;
  }
  const objects = nestedObjects(draft.body, 'body');
  const [where, object] = random.pick(objects);
  // Assignment to `__proto__` would set the prototype; the property must be the object's own, as JSON.parse makes it.
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  draft.target = `${where}.${name}`;
  if (operation.body?.mediaType === 'application/json') draft.expected = { status: 400, reason };
}

function nestedObjects(object: Record<string, JsonLike>, where: string): Array<[string, Record<string, JsonLike>]> {
  const found: Array<[string, Record<string, JsonLike>]> = [[where, object]];
  for (const [key, value] of Object.entries(object)) {
    if (isObject(value)) found.push(...nestedObjects(value, `${where}.${key}`));
    if (Array.isArray(value) && isObject(value[0])) found.push(...nestedObjects(value[0], `${where}.${key}[0]`));
  }
  return found;
}

/**
 * A secret or a RUT where a careless client puts one: in a path segment of
 * this route, in its query, or in a path no route matches. The service
 * logs a request by its route's pattern (`/v1/redec/consents/:redecConsentId`,
 * `(unmatched)`), never by the path as sent (decision 0064), so neither the
 * log nor the answer may show it: the leak checks, which know every one of
 * these values, are what this request is for.
 */
function secretInUrl(operation: Operation, draft: Draft, { context, random }: Draw): void {
  const [what, secret] = random.pick<[string, string]>([
    ['API key', context.keys.all],
    ['webhook secret', context.webhookSecret],
    ['RUT', formatRut(random.pick(context.ruts), random)],
  ]);
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const [where, place] = random.pick<[string, () => void]>([
    ...pathParameters.map<[string, () => void]>((parameter) => [`path ${parameter.name}`, () => (draft.pathParams[parameter.name] = secret)]),
    ['query', () => draft.query.push([random.pick(['api_key', 'secret', 'rut']), secret])],
    // No route starts so: the request is answered 404 whatever the key and the body.
    ['unmatched path', () => (draft.unmatchedPath = `/v1/unmatched/${percentEncode(secret)}`)],
  ]);
  place();
  draft.strategy = `secret in URL: ${what}`;
  draft.target = where;
  if (draft.unmatchedPath !== undefined) draft.expected = { status: 404 };
}

/** The whole body replaced: nesting and sizes that cost a parser, text that is not JSON, JSON that is not an object. */
function replaceBody(draft: Draft, random: Random): void {
  const text = (description: string, body: string) => ({ description, bytes: Buffer.from(body, 'utf8') });
  const [kind, make] = random.weighted<[string, () => { description: string; bytes: Buffer }]>([
    [['deep nesting', () => rawOf(random.pick([deeplyNested, deeplyNestedArrays])(random.pick([1_000, 10_000, 100_000])))], 10],
    [['many keys', () => rawOf(manyKeys(random.pick([10_001, 50_000])))], 3],
    [['long array', () => rawOf(longArray(random.pick([10_001, 100_000]), random.pick(['0', '{}', '[]'])))], 3],
    [['huge body', () => rawOf(wrapped(longString(random.pick([1 << 20, 15 << 20]))))], 1],
    [['not JSON', () => text('not JSON', random.pick(['{', '{"a":}', "{'a':1}", '{"a":1,}', 'NaN', '{"a":1}garbage', 'undefined', '<xml/>']))], 6],
    [['JSON that is not an object', () => text('JSON scalar', random.pick(['null', '[]', '[{}]', '"text"', '0', 'true']))], 4],
    [['empty body', () => text('empty', '')], 3],
    [['duplicate keys', () => text('duplicate keys', '{"a":1,"a":2,"__proto__":{"x":1},"__proto__":{"y":2}}')], 2],
    [['byte order mark', () => text('BOM then {}', '\uFEFF{}')], 1],
    [['invalid UTF-8', () => ({ description: 'bytes ff fe 7b 7d', bytes: Buffer.from([0xff, 0xfe, 0x7b, 0x7d]) })], 2],
    [['escaped lone surrogate and NUL', () => text('escapes', '{"a":"\\ud800\\u0000"}')], 2],
  ]);
  draft.raw = make();
  draft.contentType = 'application/json';
  draft.strategy = `body: ${kind}`;
  draft.target = 'body';
}

function rawOf(raw: RawJson): { description: string; bytes: Buffer } {
  return { description: raw.description, bytes: Buffer.from(raw.text, 'utf8') };
}

function wrapped(value: RawJson): RawJson {
  return new RawJson(`{"a":${value.text}}`, `{"a":${value.description}}`);
}

function wrongContentType(draft: Draft, random: Random): void {
  const contentType = random.pick([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/json; charset=utf-16',
    'application/jsonx',
    'APPLICATION/JSON',
    'application/json, text/plain',
    '',
  ]);
  draft.contentType = contentType;
  draft.strategy = `content type: ${contentType === '' ? 'none' : contentType}`;
  draft.target = 'header Content-Type';
}

/** Keys that are missing, malformed, unknown, revoked, short of the scope, or another tenant's (with this tenant's ids). */
function wrongAuth(draft: Draft, context: FuzzContext, random: Random): void {
  const [kind, auth] = random.pick<[string, Draft['auth']]>([
    ['none', { choice: 'none', label: 'none' }],
    ['scheme only', { choice: 'malformed', header: 'Bearer', label: '"Bearer"' }],
    ['basic', { choice: 'malformed', header: 'Basic YWRtaW46YWRtaW4=', label: 'Basic admin:admin' }],
    ['unknown key', { choice: 'unknown', header: `Bearer ${context.keys.all.slice(0, -6)}AAAAAA`, label: 'an unknown key shaped like a real one' }],
    ['non-ASCII key', { choice: 'malformed', header: 'Bearer cl\u00e9', label: '"Bearer clé" (latin-1)' }],
    ['huge key (8 KB)', { choice: 'malformed', header: `Bearer ${'k'.repeat(8192)}`, label: 'Bearer and 8 KB' }],
    ['revoked key', { choice: 'revoked', label: "own tenant's revoked key" }],
    ['read-only key', { choice: 'readOnly', label: 'own tenant, consent:read only' }],
    ["another tenant's key", { choice: 'other', label: "the other tenant's key (with this tenant's ids)" }],
    ['lower-case scheme', { choice: 'all', header: `bearer ${context.keys.all}`, label: 'own tenant, every scope, "bearer" in lower case' }],
  ]);
  draft.auth = auth;
  draft.strategy = `auth: ${kind}`;
  draft.target = 'header Authorization';
}

function hostileHeader(draft: Draft, random: Random, seed: number, index: number): void {
  const [kind, name, value] = random.pick<[string, string, string | undefined]>([
    ['Idempotency-Key missing', 'Idempotency-Key', undefined],
    ['Idempotency-Key blank', 'Idempotency-Key', ' '],
    ['Idempotency-Key 256 characters', 'Idempotency-Key', 'k'.repeat(256)],
    ['Idempotency-Key non-ASCII', 'Idempotency-Key', 'clé-\u00e9\u00ff'],
    // The previous request's key on another request: 422 where the key is honoured.
    ['Idempotency-Key of another request', 'Idempotency-Key', requestName(seed, index - 1)],
    ['x-request-id hostile', 'x-request-id', '../../<script>'.repeat(20)],
    ['Accept text/html', 'Accept', 'text/html'],
    ['Accept-Encoding unknown', 'Accept-Encoding', 'br;q=1, x-fuzz;q=0.9'],
  ]);
  if (value === undefined) delete draft.headers[name];
  else draft.headers[name] = value;
  draft.strategy = `header: ${kind}`;
  draft.target = `header ${name}`;
}

function encode(operation: Operation, draft: Draft, context: FuzzContext, index: number): FuzzRequest {
  const path = draft.unmatchedPath ?? operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => percentEncode(draft.pathParams[name] ?? ''));
  const query = draft.query.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');
  const headers: Record<string, string> = { ...draft.headers };
  const authorization = draft.auth.header ?? keyOf(draft.auth.choice, context);
  if (authorization !== undefined) headers.Authorization = authorization;
  let body: Buffer | undefined;
  let bodyDescription: string | undefined;
  if (draft.raw) {
    body = draft.raw.bytes;
    bodyDescription = draft.raw.description;
  } else if (draft.body !== undefined) {
    const text = draft.contentType === 'application/x-www-form-urlencoded' && isObject(draft.body) ? formText(draft.body) : toJsonText(draft.body);
    body = Buffer.from(text, 'utf8');
    bodyDescription = describe(draft.body);
  }
  if (body !== undefined && draft.contentType) headers['Content-Type'] = draft.contentType;
  // Node sends a GET's or DELETE's body without framing unless told its length: the service would read it as the next request.
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  return {
    index,
    operation: operationName(operation),
    strategy: draft.strategy,
    target: draft.target,
    method: operation.method,
    url: query === '' ? path : `${path}?${query}`,
    headers,
    auth: draft.auth.label,
    ...(body === undefined ? {} : { body, bodyDescription }),
    ...(draft.expected === undefined ? {} : { expected: draft.expected }),
  };
}

function keyOf(choice: AuthChoice, context: FuzzContext): string | undefined {
  switch (choice) {
    case 'all':
    case 'readOnly':
    case 'revoked':
    case 'other':
      return `Bearer ${context.keys[choice]}`;
    default:
      return undefined;
  }
}

function formText(fields: Record<string, JsonLike>): string {
  return Object.entries(fields)
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(toFieldText(value))}`)
    .join('&');
}

/** The body as JSON text, with hostile shapes described instead of spelled out, cut at 400 characters. */
export function describe(value: JsonLike): string {
  const described = (v: JsonLike): string => {
    if (v instanceof RawJson) return v.description;
    if (Array.isArray(v)) return `[${v.map(described).join(',')}]`;
    if (v !== null && typeof v === 'object') return `{${Object.keys(v).map((key) => `${JSON.stringify(key)}:${described(v[key])}`).join(',')}}`;
    return typeof v === 'string' && v.length > 60 ? `${JSON.stringify(v.slice(0, 20))}… (${v.length} characters)` : JSON.stringify(v);
  };
  const text = described(value);
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text;
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is sent
 * as the three bytes its code unit would take in UTF-8: what a client that
 * does not check would send.
 */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let encoded = '';
    for (const character of text) {
      const unit = character.charCodeAt(0);
      const lone = character.length === 1 && unit >= 0xd800 && unit <= 0xdfff;
      encoded += lone ? [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map(hexByte).join('') : encodeURIComponent(character);
    }
    return encoded;
  }
}

const hexByte = (byte: number): string => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** Request `index` of `seed` by name: its x-request-id (which the service's log lines carry) and its Idempotency-Key. */
export function requestName(seed: number, index: number): string {
  return `fuzz-${seed}-${index}`;
}

function isObject(value: unknown): value is Record<string, JsonLike> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson);
}

function clone(value: JsonLike): JsonLike {
  return JSON.parse(JSON.stringify(value)) as JsonLike;
}
