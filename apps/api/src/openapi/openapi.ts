import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, OperationObject, SwaggerModule } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, NO_STORE_EXTENSION, createHttpAdapter, createJsonLogger } from '@ledger/http';
import { LedgerConfig, SCOPES } from '@ledger/platform';
import { AppModule } from '../app.module';
import { addExample } from './examples';
import { PROBLEM_SCHEMA_REF, declareProblems, errorCatalogue } from './problem-responses';
import { WEBHOOK_SCHEMAS, webhooksSection } from './webhooks';

const DESCRIPTION = `Event-sourced consent ledger for Chile's consolidated debt registry (REDEC).

Every call is authenticated with \`Authorization: Bearer <apiKey>\`, an opaque API key (not a JWT); the tenant is the key's. Scopes: ${SCOPES.map((scope) => `\`${scope}\``).join(', ')}.

Errors are \`application/problem+json\` (RFC 9457) with \`status\`, \`title\`, \`code\`, \`detail\`, and where relevant \`reason\` and \`errors\` (one \`{ field, reason }\` per offending field).

Operations marked with an \`Idempotency-Key\` header replay the first answer (same status, same body, and the header \`${IDEMPOTENT_REPLAYED_HEADER}: true\`) for an exact retry; the same key with another request is 422 \`IDEMPOTENCY_KEY_REUSED\`, and while the first is in flight 409 \`IDEMPOTENCY_KEY_IN_PROGRESS\`.

Answers that carry evidence or what is built from it (a consent's evidence view, its artifact download, history and audit bundle, the consent export, a report's content) are sent with \`Cache-Control: no-store\`, errors included: no cache between the service and the bank may keep them.

Limits: a request without a valid key is answered 401 before its body is read. A body may be up to 64 KiB (512 KiB when publishing a configuration, 16 MiB on the operations that take evidence bytes); a larger one is 413 \`PAYLOAD_TOO_LARGE\`. JSON nested deeper than 32 levels, or with more than 10,000 keys and array elements in all, is 400 \`VALIDATION_ERROR\` with the reason \`too_deeply_nested\` or \`too_many_values\`. A whole request must arrive within 30 seconds. Each API key may make a number of requests a minute set by the operator (\`LEDGER_RATE_LIMIT_PER_MINUTE\`, 60,000 unless changed), and so may each client address on the routes that take no key; beyond it, 429 \`TOO_MANY_REQUESTS\` with \`Retry-After\` (seconds). Each 401 counts against its client address's failed authentications, as many a minute: past them, a request with a key from that address is answered 429 before its key is checked.`;

/** Problem+json schema shared by every error response. */
const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['status', 'title', 'code', 'detail'],
  properties: {
    type: { type: 'string' },
    status: { type: 'integer' },
    title: { type: 'string' },
    code: { type: 'string' },
    detail: { type: 'string' },
    reason: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'reason'],
        properties: { field: { type: 'string' }, reason: { type: 'string' }, codePoint: { type: 'string', pattern: '^U\\+[0-9A-F]{4,6}$', description: 'The refused character, when the reason is a class of characters.' } },
      },
    },
  },
};

/** The operations' tags, in the order a reader meets them in the docs' walk-throughs. */
const TAGS: ReadonlyArray<readonly [name: string, description: string]> = [
  ['customers', 'Customer resolution, the consents of a customer, compliance by template version, legal holds.'],
  ['configurations', 'Published configurations: the versioned consent text and REDEC terms an interaction links to.'],
  ['redec', 'REDEC capture and lifecycle: interactions, grant, revocation, credit extensions, notification evidence, access decisions, obligation bindings, operator lists.'],
  ['consents', 'General (non-REDEC) consents and Multi-Consent decisions.'],
  ['embed', "Embed sessions on the service's own consent page."],
  ['privacy-center', "Sessions on the service's privacy center, where the data subject sees their consents and the accesses under them, revokes, and files rights requests."],
  ['audit', "A consent's full event history and integrity proofs; the verifiable ledger's checkpoints, proofs, hash tiles and audit bundles."],
  ['rights-requests', "Data subjects' requests under Ley 21.719 and REDEC disputes, with their legal deadlines."],
  ['tenant', 'Tenant settings.'],
  ['reports', 'RDC30 and RDC31 regulatory reports.'],
  ['webhooks', 'Webhook endpoints, deliveries and redelivery.'],
];

/**
 * The document's own version. A change that removes or retypes a field of
 * the committed openapi/openapi.json must raise its major part
 * (docs/decisions/0041-openapi-document-and-reference-page.md).
 */
export const OPENAPI_DOCUMENT_VERSION = '2.1.0';

/**
 * OpenAPI 3.1 description of every /v1 operation, built from the
 * controllers' decorators; `publicUrl` (LEDGER_PUBLIC_URL) is the server
 * that clients and the reference page at /docs send requests to.
 */
export function buildOpenApiDocument(app: NestFastifyApplication, publicUrl: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Consent ledger')
    .setDescription(DESCRIPTION)
    .setVersion(OPENAPI_DOCUMENT_VERSION)
    .addServer(publicUrl)
    // Nest's default bearerFormat is JWT; keys are opaque strings, whose format a client must not rely on.
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: undefined, description: 'An opaque API key issued with `ledger key issue` (not a JWT).' });
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build());
  // As package.json's UNLICENSED: no licence is granted beyond the agreement under which it runs. OpenAPI 3.1's
  // SPDX `identifier` is newer than Nest's document types.
  const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
  document.info.license = license;
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: PROBLEM_SCHEMA, ...WEBHOOK_SCHEMAS } };
  // OpenAPI 3.1's section for what the service sends; Nest's document type predates it.
  (document as OpenAPIObject & { webhooks: unknown }).webhooks = webhooksSection();
  for (const [key, operation] of operationsOf(document)) {
    addExample(key, operation);
    declareProblems(operation);
    operation.responses.default ??= {
      description: 'An error (problem+json).',
      content: { 'application/problem+json': { schema: { $ref: PROBLEM_SCHEMA_REF } } },
    };
    declareReplayHeader(operation);
    declareNoStoreHeader(operation);
  }
  document.info.description += `\n\n## Error codes\n\nEvery \`code\` an operation can answer, with its HTTP status. A client keys its handling on \`code\`, never on \`title\` or \`detail\`.\n\n${errorCatalogue(operationsOf(document).map(([, operation]) => operation))}`;
  return document;
}

/** On an operation that honours Idempotency-Key, every answer may be a replay, which says so. */
function declareReplayHeader(operation: OperationObject): void {
  if (!(operation.parameters ?? []).some((p) => 'in' in p && p.in === 'header' && p.name === IDEMPOTENCY_KEY_HEADER)) return;
  for (const response of Object.values(operation.responses)) {
    if (response === undefined || '$ref' in response) continue;
    response.headers = {
      ...response.headers,
      [IDEMPOTENT_REPLAYED_HEADER]: {
        description: '`true` when this answer replays the first answer to the same Idempotency-Key; absent otherwise.',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
}

/** On an operation marked @NoStore(), every answer says that no cache may keep it. */
function declareNoStoreHeader(operation: OperationObject & { [NO_STORE_EXTENSION]?: boolean }): void {
  if (!operation[NO_STORE_EXTENSION]) return;
  delete operation[NO_STORE_EXTENSION];
  for (const response of Object.values(operation.responses)) {
    if (response === undefined || '$ref' in response) continue;
    response.headers = {
      ...response.headers,
      'Cache-Control': {
        description: '`no-store`: the answer carries evidence or what is built from it, and no cache between the service and the client may keep it.',
        schema: { type: 'string', enum: ['no-store'] },
      },
    };
  }
}

/** Each operation with its key, `METHOD path`. */
function operationsOf(document: OpenAPIObject): Array<[string, OperationObject]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter((entry): entry is [string, OperationObject] => typeof entry[1] === 'object' && entry[1] !== null && 'responses' in entry[1])
      .map(([method, operation]): [string, OperationObject] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

/**
 * The document the service started with `config` serves, without starting
 * it: Nest's preview mode reads the controllers' metadata and instantiates
 * no provider, so no store, Redis or worker is opened.
 */
export async function describeApi(config: LedgerConfig): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createHttpAdapter(createJsonLogger({ level: 'warn' })), {
    preview: true,
    logger: false,
  });
  try {
    return buildOpenApiDocument(app, config.publicUrl);
  } finally {
    await app.close();
  }
}
