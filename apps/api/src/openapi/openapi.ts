import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

const DESCRIPTION = `Event-sourced consent ledger for Chile's consolidated debt registry (REDEC).

Every call is authenticated with \`Authorization: Bearer <apiKey>\`; the tenant is the key's. Scopes: \`consent:admin\`, \`consent:write\`, \`consent:read\`, \`consent:runtime\`, \`consent:identity-assert\`, \`consent:audit\`.

Errors are \`application/problem+json\` (RFC 9457) with \`status\`, \`title\`, \`code\`, \`detail\`, and where relevant \`reason\` and \`errors\` (one \`{ field, reason }\` per offending field).

Operations marked with an \`Idempotency-Key\` header replay the first answer (same status, same body) for an exact retry; the same key with another request is 422 \`IDEMPOTENCY_KEY_REUSED\`, and while the first is in flight 409 \`IDEMPOTENCY_KEY_IN_PROGRESS\`.

Limits: a request without a valid key is answered 401 before its body is read. A body may be up to 64 KiB (512 KiB when publishing a configuration, 16 MiB on the operations that take evidence bytes); a larger one is 413 \`PAYLOAD_TOO_LARGE\`. JSON nested deeper than 32 levels, or with more than 10,000 keys and array elements in all, is 400 \`VALIDATION_ERROR\` with the reason \`too_deeply_nested\` or \`too_many_values\`. A whole request must arrive within 30 seconds. Each API key may make a number of requests a minute set by the operator (\`LEDGER_RATE_LIMIT_PER_MINUTE\`, 60,000 unless changed), and so may each client address on the routes that take no key; beyond it, 429 \`TOO_MANY_REQUESTS\` with \`Retry-After\` (seconds).`;

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
    errors: { type: 'array', items: { type: 'object', required: ['field', 'reason'], properties: { field: { type: 'string' }, reason: { type: 'string' } } } },
  },
};

/** OpenAPI 3.1 description of every /v1 operation, built from the controllers' decorators. */
export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Consent ledger')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key issued with `ledger key issue`.' })
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = { ...document.components, schemas: { ...document.components?.schemas, Problem: PROBLEM_SCHEMA } };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path)) {
      if (typeof operation !== 'object' || !operation || !('responses' in operation)) continue;
      operation.responses.default ??= {
        description: 'An error (problem+json).',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
  }
  return document;
}
