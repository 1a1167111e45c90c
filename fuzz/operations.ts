/**
 * The operations to fuzz, read from an OpenAPI 3.1 document: the service's
 * own GET /openapi.json, plus the public pages it leaves out of it
 * (PUBLIC_PAGES). Schemas come back with every `$ref` and `allOf` inlined, so
 * the generator walks plain trees.
 */

/** The part of a JSON Schema the generator understands; anything else is ignored. */
export interface Schema {
  type?: string | string[];
  /** What the API promises of the field in words: the harness reads the refusals it names (values.ts, REFUSALS). */
  description?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
  default?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The path template: `/v1/redec/consents/{redecConsentId}`. */
  path: string;
  parameters: Parameter[];
  body?: { mediaType: string; schema: Schema };
  /** Whether the operation takes `Authorization: Bearer <apiKey>`. */
  secured: boolean;
}

export type Document = { paths?: Record<string, Record<string, RawOperation>>; components?: { schemas?: Record<string, RawSchema> } };
type RawSchema = Record<string, unknown>;
type RawOperation = {
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: RawSchema }>;
  requestBody?: { content?: Record<string, { schema?: RawSchema }> };
  security?: unknown[];
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TOKEN = { type: 'string' };

/**
 * The consent page (embedded capture) and the privacy center are public and
 * excluded from the API description, but they are the routes a data
 * subject's browser reaches with a secret token in its URL: they are fuzzed
 * like any operation.
 */
export const PUBLIC_PAGES: Document = {
  paths: {
    '/embed/pages/{pageReference}': {
      get: {
        parameters: [
          { name: 'pageReference', in: 'path', required: true, schema: TOKEN },
          { name: 'token', in: 'query', required: true, schema: TOKEN },
        ],
      },
    },
    '/embed/pages/{pageReference}/decision': {
      post: {
        parameters: [{ name: 'pageReference', in: 'path', required: true, schema: TOKEN }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', required: ['token', 'csrf', 'decision'], properties: { token: TOKEN, csrf: TOKEN, decision: { type: 'string', enum: ['accept', 'decline'] } } },
            },
          },
        },
      },
    },
    '/privacy-center/pages/{pageReference}': {
      get: {
        parameters: [
          { name: 'pageReference', in: 'path', required: true, schema: TOKEN },
          { name: 'token', in: 'query', required: true, schema: TOKEN },
          { name: 'done', in: 'query', required: false, schema: TOKEN },
        ],
      },
    },
    '/privacy-center/pages/{pageReference}/revocations': {
      post: {
        parameters: [{ name: 'pageReference', in: 'path', required: true, schema: TOKEN }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['csrf', 'consentKind', 'consentId', 'confirm'],
                properties: { csrf: TOKEN, consentKind: { type: 'string', enum: ['redec', 'general'] }, consentId: TOKEN, confirm: { type: 'string', enum: ['yes'] } },
              },
            },
          },
        },
      },
    },
    '/privacy-center/pages/{pageReference}/rights-requests': {
      post: {
        parameters: [{ name: 'pageReference', in: 'path', required: true, schema: TOKEN }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: { type: 'object', required: ['csrf', 'kind'], properties: { csrf: TOKEN, kind: { type: 'string', enum: ['access', 'rectification', 'suppression', 'opposition', 'portability', 'blocking'] }, description: { type: 'string', maxLength: 2000 } } },
            },
          },
        },
      },
    },
    '/privacy-center/pages/{pageReference}/end': {
      post: {
        parameters: [{ name: 'pageReference', in: 'path', required: true, schema: TOKEN }],
        requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required: ['csrf'], properties: { csrf: TOKEN } } } } },
      },
    },
    '/health/live': { get: {} },
    '/health/ready': { get: {} },
    '/metrics': { get: {} },
    '/openapi.json': { get: {} },
  },
};

export function operationsOf(document: Document): Operation[] {
  const schemas = document.components?.schemas ?? {};
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const raw = item[method];
      if (!raw) continue;
      const parameters = (raw.parameters ?? [])
        .filter((p): p is { name: string; in: Parameter['in']; required?: boolean; description?: string; schema?: RawSchema } => ['path', 'query', 'header'].includes(p.in))
        // A parameter's description sits beside its schema; the generator reads both as one.
        .map((p) => ({ name: p.name, in: p.in, required: p.required === true || p.in === 'path', schema: resolveSchema({ description: p.description, ...p.schema }, schemas) }));
      const [mediaType, content] = Object.entries(raw.requestBody?.content ?? {})[0] ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters,
        ...(mediaType ? { body: { mediaType, schema: resolveSchema(content?.schema ?? {}, schemas) } } : {}),
        secured: (raw.security ?? []).length > 0,
      });
    }
  }
  return operations;
}

/** Inlines `$ref` and merges `allOf`; a schema that refers to itself stops being expanded at the second visit. */
export function resolveSchema(schema: RawSchema, schemas: Record<string, RawSchema>, visiting: string[] = []): Schema {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    if (visiting.includes(name) || !schemas[name]) return {};
    return resolveSchema(schemas[name], schemas, [...visiting, name]);
  }
  let merged: RawSchema = { ...schema };
  if (Array.isArray(schema.allOf)) {
    delete merged.allOf;
    for (const part of schema.allOf as RawSchema[]) {
      const resolved = resolveSchema(part, schemas, visiting) as RawSchema;
      merged = { ...resolved, ...merged, properties: { ...(resolved.properties as object), ...(merged.properties as object) } };
    }
    if (merged.properties && Object.keys(merged.properties).length === 0) delete merged.properties;
  }
  const result: Schema = {};
  for (const key of ['type', 'description', 'enum', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'nullable', 'default', 'required'] as const) {
    if (merged[key] !== undefined) (result as Record<string, unknown>)[key] = merged[key];
  }
  if (merged.items) result.items = resolveSchema(merged.items as RawSchema, schemas, visiting);
  if (merged.properties) {
    result.properties = Object.fromEntries(Object.entries(merged.properties as Record<string, RawSchema>).map(([name, property]) => [name, resolveSchema(property, schemas, visiting)]));
  }
  return result;
}

/** `GET /v1/redec/consents/{redecConsentId}`: how failures are grouped and printed. */
export const operationName = (operation: Pick<Operation, 'method' | 'path'>): string => `${operation.method} ${operation.path}`;
