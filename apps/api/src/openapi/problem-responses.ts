import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER } from '@ledger/http';
import { ErrorCodes } from '@ledger/platform';

export const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** A problem+json answer whose `code` is one of `codes`. */
export function problemResponse(codes: readonly string[]): ResponseObject {
  return {
    description: codes.map((code) => `\`${code}\``).join(', '),
    content: {
      'application/problem+json': {
        schema: { allOf: [{ $ref: PROBLEM_SCHEMA_REF }, { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }] },
      },
    },
  };
}

/**
 * Declares the business refusals an operation gives, by status, with the
 * stable `code`s each can carry, so that a client generated from the
 * document knows every refusal by name. The refusals the HTTP platform
 * gives every route of a kind (authentication, validation, limits,
 * Idempotency-Key) are added by declareProblems, not here.
 */
export function ProblemResponses(codesByStatus: Record<number, readonly string[]>): MethodDecorator {
  return applyDecorators(...Object.entries(codesByStatus).map(([status, codes]) => ApiResponse({ status: Number(status), ...problemResponse(codes) })));
}

/** The OpenAPI extension that marks an operation answered from the read model (ReadsReadModel). */
const READS_READ_MODEL = 'x-reads-read-model';

/**
 * Marks a route that answers from the read model, or decides on it: while
 * the model is rebuilt after Redis lost it, it answers 503
 * read_model_rebuilding with Retry-After (decision 0078), and while Redis is
 * out of reach 503 read_model_unavailable (decision 0079). The mark stays in
 * the document, so a client can tell these operations from those the
 * ledger alone answers.
 */
export const ReadsReadModel = (): MethodDecorator => ApiExtension(READS_READ_MODEL, true);

/**
 * The refusals the HTTP platform answers for an operation of this shape,
 * whatever its handler does (README, "API conventions"): authentication and
 * scope for a keyed route, the rate limit for all, validation and not-found
 * for what the request names, body limits for a body, and the
 * Idempotency-Key rules where the header is declared.
 */
function platformProblems(operation: OperationObject): Map<number, string[]> {
  const codes = new Map<number, string[]>();
  const add = (status: number, code: string) => codes.set(status, [...(codes.get(status) ?? []), code]);
  const parameters = (operation.parameters ?? []).filter((p) => 'in' in p);
  const idempotencyKey = parameters.find((p) => p.in === 'header' && p.name === IDEMPOTENCY_KEY_HEADER);
  if (operation.requestBody || parameters.some((p) => p.in === 'query' || p.in === 'path')) add(400, ErrorCodes.VALIDATION_ERROR);
  if (idempotencyKey?.required) add(400, ErrorCodes.IDEMPOTENCY_KEY_REQUIRED);
  if (operation.security?.length) {
    add(401, ErrorCodes.UNAUTHENTICATED);
    add(403, ErrorCodes.INSUFFICIENT_SCOPE);
  }
  if (parameters.some((p) => p.in === 'path')) add(404, ErrorCodes.NOT_FOUND);
  if (operation.requestBody) {
    add(408, 'REQUEST_TIMEOUT');
    add(413, 'PAYLOAD_TOO_LARGE');
  }
  if (idempotencyKey) {
    add(409, ErrorCodes.IDEMPOTENCY_KEY_IN_PROGRESS);
    add(422, ErrorCodes.IDEMPOTENCY_KEY_REUSED);
  }
  add(429, 'TOO_MANY_REQUESTS');
  if ((operation as unknown as Record<string, unknown>)[READS_READ_MODEL] === true) for (const code of ['read_model_rebuilding', 'read_model_unavailable']) add(503, code);
  return codes;
}

/** The codes a problem response built by problemResponse() names. */
function declaredCodes(response: ResponseObject | undefined): string[] {
  const schema = response?.content?.['application/problem+json']?.schema as { allOf?: Array<{ properties?: { code?: { enum?: string[] } } }> } | undefined;
  return schema?.allOf?.[1]?.properties?.code?.enum ?? [];
}

/** The codes a problem response of the operation names, with its status. */
function problemCodesOf(operation: OperationObject): Array<{ status: number; code: string }> {
  return Object.entries(operation.responses).flatMap(([status, response]) =>
    declaredCodes(response as ResponseObject).map((code) => ({ status: Number(status), code })),
  );
}

/**
 * The error catalogue: every code any operation can answer, with its
 * status(es) and the operations that give it, as a Markdown table for the
 * document's description.
 */
export function errorCatalogue(operations: readonly OperationObject[]): string {
  const byCode = new Map<string, { statuses: Set<number>; operationIds: string[] }>();
  for (const operation of operations) {
    const operationId = operation.operationId ?? '';
    for (const { status, code } of problemCodesOf(operation)) {
      const entry = byCode.get(code) ?? { statuses: new Set<number>(), operationIds: [] };
      entry.statuses.add(status);
      if (!entry.operationIds.includes(operationId)) entry.operationIds.push(operationId);
      byCode.set(code, entry);
    }
  }
  const rows = [...byCode.entries()]
    .sort(([a, x], [b, y]) => Math.min(...x.statuses) - Math.min(...y.statuses) || a.localeCompare(b))
    .map(([code, { statuses, operationIds }]) => {
      const where = operationIds.length > 8 ? `${operationIds.length} operations` : operationIds.map((id) => `\`${id}\``).join(', ');
      return `| \`${code}\` | ${[...statuses].sort().join(', ')} | ${where} |`;
    });
  return ['| code | status | given by |', '|---|---|---|', ...rows].join('\n');
}

/** Every error status of the operation, each with the union of the route's own codes and the platform's. */
export function declareProblems(operation: OperationObject): void {
  for (const [status, codes] of platformProblems(operation)) {
    const declared = declaredCodes(operation.responses[status] as ResponseObject | undefined);
    operation.responses[status] = problemResponse([...new Set([...codes, ...declared])]);
  }
}
