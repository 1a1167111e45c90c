import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { DomainError, ErrorCodes, ErrorKind, FieldError } from '@ledger/platform';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An RFC 9457 problem document (docs/reference/errors.md, "The problem document"). */
export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  code: string;
  detail: string;
  reason?: string;
  errors?: FieldError[];
}

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
};

/**
 * Fastify's own rejections, recognised by their stable codes. Their messages
 * are never passed on: a JSON parser's message can quote the body it choked on.
 */
const FASTIFY_ERRORS: Record<string, Pick<Problem, 'status' | 'code' | 'detail' | 'reason'>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: ErrorCodes.VALIDATION_ERROR, reason: 'malformed_json', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ErrorCodes.VALIDATION_ERROR, reason: 'malformed_json', detail: 'The request body is empty but declared as JSON.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: 'The request body exceeds the size limit.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'The request body must be application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ErrorCodes.VALIDATION_ERROR, reason: 'invalid_content_length', detail: 'The Content-Length does not match the body.' },
  // Routing's own rejections (frameworkErrors): their messages quote the whole URL, query included.
  FST_ERR_BAD_URL: { status: 400, code: ErrorCodes.VALIDATION_ERROR, reason: 'invalid_url', detail: 'The request path is not valid percent-encoded UTF-8.' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'URI_TOO_LONG', detail: 'A segment of the request path is longer than any this service names.' },
};

/** Node's own rejections of a connection, before there is a request to route: by their codes, anything else as malformed. */
const CLIENT_ERRORS: Record<string, Pick<Problem, 'status' | 'code' | 'detail' | 'reason'>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', detail: 'The request did not arrive in time.' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', detail: 'The request headers are too large.' },
};
const MALFORMED_REQUEST = { status: 400, code: ErrorCodes.VALIDATION_ERROR, reason: 'malformed_request', detail: 'The request is not valid HTTP.' };

/** The codes of statuses a client can cause without a DomainError (routing, framework). */
const CODE_BY_STATUS: Record<number, string> = {
  400: ErrorCodes.VALIDATION_ERROR,
  401: ErrorCodes.UNAUTHENTICATED,
  403: ErrorCodes.INSUFFICIENT_SCOPE,
  404: ErrorCodes.NOT_FOUND,
};

/**
 * The one mapping from anything thrown to the problem a client sees. The
 * exception filter renders it and the idempotency interceptor stores it, so a
 * replayed error is byte-identical to the first one.
 */
export function toProblem(error: unknown): Problem {
  if (error instanceof DomainError) {
    return problem(STATUS_BY_KIND[error.kind], error.code, error.detail, error.reason, error.errors);
  }
  const fastifyError = fastifyErrorOf(error);
  if (fastifyError) {
    const { status, code, detail, reason } = fastifyError;
    return problem(status, code, detail, reason);
  }
  if (error instanceof HttpException && error.getStatus() < 500) {
    const status = error.getStatus();
    const code = CODE_BY_STATUS[status] ?? statusCodeName(status);
    const detail = status === 404 ? 'No such resource.' : `${STATUS_CODES[status] ?? 'Client error'}.`;
    return problem(status, code, detail);
  }
  return problem(500, 'INTERNAL_ERROR', 'An unexpected error occurred; it has been logged.');
}

/** The problem for an error Node's HTTP server reports on a connection (`clientError`): a timeout, oversized headers, bytes that are not HTTP. */
export function clientErrorProblem(error: unknown): Problem {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const { status, code: problemCode, detail, reason } = typeof code === 'string' && Object.hasOwn(CLIENT_ERRORS, code) ? CLIENT_ERRORS[code] : MALFORMED_REQUEST;
  return problem(status, problemCode, detail, reason);
}

function problem(status: number, code: string, detail: string, reason?: string, errors?: FieldError[]): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    code,
    detail,
    ...(reason === undefined ? {} : { reason }),
    ...(errors === undefined ? {} : { errors }),
  };
}

/** Nest hands Fastify's errors to the filters wrapped in an HttpException whose cause is the original error. */
function fastifyErrorOf(error: unknown): (typeof FASTIFY_ERRORS)[string] | undefined {
  const cause = error instanceof HttpException ? error.cause : error;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' && Object.hasOwn(FASTIFY_ERRORS, code) ? FASTIFY_ERRORS[code] : undefined;
}

/** 405 → METHOD_NOT_ALLOWED, 429 → TOO_MANY_REQUESTS. */
function statusCodeName(status: number): string {
  return (STATUS_CODES[status] ?? `HTTP ${status}`).toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}
