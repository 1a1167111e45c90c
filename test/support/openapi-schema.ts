/**
 * Checks a value against a schema of the service's OpenAPI document, as far
 * as the document's schemas go (types, enums, patterns, required and unknown
 * properties, $ref, allOf, anyOf and oneOf): what the tests of the served
 * document and of what the service sends (answers, webhook bodies) share.
 */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
};
export type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; example?: unknown };
export type Media = { schema: Schema; example?: unknown };
export type Operation = { parameters?: Parameter[]; tags?: string[]; requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };
export type Document = {
  info: { version: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, Schema> };
};

/** Where `value` breaks `schema`: a wrong type, a value outside its enum or pattern, a missing required or an unknown property. */
export function mismatches(value: unknown, schema: Schema, at: string, document: Document): string[] {
  if (schema.$ref) return mismatches(value, document.components.schemas[schema.$ref.replace('#/components/schemas/', '')], at, document);
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => (part.$ref ? document.components.schemas[part.$ref.replace('#/components/schemas/', '')] : part));
    const merged: Schema = { ...schema, allOf: undefined, properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), schema.properties), required: parts.flatMap((p) => p.required ?? []) };
    return mismatches(value, parts.length === 1 && !parts[0].properties ? { ...parts[0], ...merged, properties: undefined } : merged, at, document);
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.some((variant) => mismatches(value, variant, at, document).length === 0) ? [] : [`${at}: matches none of its variants`];
  if (schema.enum && !schema.enum.includes(value as string)) return [`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`];
  if (schema.pattern !== undefined && typeof value === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return [`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`];
  const types = [schema.type ?? []].flat();
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  if (types.length > 0 && !types.some((type) => type === typeOf(value) || (type === 'number' && typeof value === 'number'))) return [`${at}: ${typeOf(value)} where ${types.join('|')} is declared`];
  if (Array.isArray(value)) return schema.items ? value.flatMap((item, index) => mismatches(item, schema.items!, `${at}[${index}]`, document)) : [];
  if (typeof value === 'object' && value !== null && schema.properties) {
    const properties = schema.properties;
    return [
      ...Object.keys(value).filter((key) => !(key in properties)).map((key) => `${at}.${key}: not a property of the schema`),
      ...(schema.required ?? []).filter((key) => !(key in value)).map((key) => `${at}.${key}: required, missing`),
      ...Object.entries(value).filter(([key]) => key in properties).flatMap(([key, v]) => mismatches(v, properties[key], `${at}.${key}`, document)),
    ];
  }
  return [];
}


/** Where a webhook body the service sent breaks the document's description of its event type. */
export function webhookBodyMismatches(document: Document, body: { type: string }): string[] {
  const described = document.webhooks[body.type]?.post.requestBody?.content['application/json'];
  if (described === undefined) return [`${body.type}: not an event type of the document's webhooks`];
  return mismatches(body, described.schema, body.type, document);
}
