/** The parts of an OpenAPI document whose fields a client depends on. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** An OpenAPI document as committed (parsed JSON) or as built (OpenAPIObject). */
export interface Document {
  info: { version: string };
  paths: Record<string, object>;
  components?: { schemas?: Record<string, object> };
}

interface Operation {
  parameters?: Array<{ name: string; in: string; schema?: Schema }>;
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/**
 * What a generated client compiles against: every operation, parameter,
 * named schema and property, by where it sits in the document, with its type
 * (a `$ref` counts as the type it names).
 */
function fieldsOf(document: Document): Map<string, string> {
  const fields = new Map<string, string>();
  const visit = (at: string, schema: Schema | undefined) => {
    if (!schema) return;
    fields.set(at, schema.$ref ?? [[schema.type ?? []].flat().join('|'), schema.format].filter(Boolean).join(':'));
    for (const [name, property] of Object.entries(schema.properties ?? {})) visit(`${at}.${name}`, property);
    visit(`${at}[]`, schema.items);
    for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) schema[combinator]?.forEach((part, index) => visit(`${at}<${combinator} ${index}>`, part));
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) visit(`#/components/schemas/${name}`, schema as Schema);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS.filter((m) => m in item)) {
      const operation = (item as Record<string, Operation>)[method];
      const at = `${method.toUpperCase()} ${path}`;
      fields.set(at, 'operation');
      for (const parameter of operation.parameters ?? []) visit(`${at} ${parameter.in} parameter ${parameter.name}`, parameter.schema ?? {});
      for (const [mediaType, { schema }] of Object.entries(operation.requestBody?.content ?? {})) visit(`${at} request ${mediaType}`, schema);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [mediaType, { schema }] of Object.entries(response.content ?? {})) visit(`${at} ${status} ${mediaType}`, schema);
      }
    }
  }
  return fields;
}

/** Each field of `before` that `after` no longer has, or has with another type. */
export function breakingChanges(before: Document, after: Document): string[] {
  const next = fieldsOf(after);
  return [...fieldsOf(before)].flatMap(([at, type]) => {
    if (!next.has(at)) return [`${at}: removed`];
    return next.get(at) === type ? [] : [`${at}: ${type || 'untyped'} became ${next.get(at) || 'untyped'}`];
  });
}

const major = (version: string) => Number.parseInt(version.split('.')[0], 10);

/**
 * Refuses `next` as the successor of the committed document when it breaks
 * a field without raising info.version's major part: a client generated
 * from the committed document must keep working against every document of
 * the same major version.
 */
export function assertCompatible(committed: Document, next: Document): void {
  if (major(next.info.version) > major(committed.info.version)) return;
  const breaks = breakingChanges(committed, next);
  if (breaks.length > 0) {
    throw new Error(
      `The API description removes or retypes ${breaks.length} field(s) of the committed openapi/openapi.json without raising info.version's major part ` +
        `(${committed.info.version} -> ${next.info.version}):\n${breaks.map((b) => `  ${b}`).join('\n')}`,
    );
  }
}
