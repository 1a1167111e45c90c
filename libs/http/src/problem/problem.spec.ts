import { HttpException, MethodNotAllowedException, NotFoundException } from '@nestjs/common';
import { DomainError, ErrorKind, notFound, validationError } from '@ledger/platform';
import { clientErrorProblem, toProblem } from './problem';

describe('toProblem', () => {
  it.each<[ErrorKind, number]>([
    ['validation', 400],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['gone', 410],
    ['unprocessable', 422],
    ['rate_limited', 429],
    ['unavailable', 503],
  ])('maps a %s DomainError to %i with its code and detail', (kind, status) => {
    expect(toProblem(new DomainError(kind, 'some_code', 'Some detail.'))).toEqual({
      type: 'about:blank',
      title: expect.any(String),
      status,
      code: 'some_code',
      detail: 'Some detail.',
    });
  });

  it('carries the reason and field errors of a validation error', () => {
    const problem = toProblem(validationError('Bad.', { reason: 'r', errors: [{ field: 'a.b', reason: 'required' }] }));
    expect(problem).toMatchObject({ status: 400, title: 'Bad Request', reason: 'r', errors: [{ field: 'a.b', reason: 'required' }] });
  });

  it('keeps member order stable, since stored answers are compared as bytes', () => {
    expect(Object.keys(toProblem(notFound('consent')))).toEqual(['type', 'title', 'status', 'code', 'detail']);
  });

  it('maps framework exceptions by status, never passing their message on', () => {
    expect(toProblem(new NotFoundException('Cannot GET /v1/secret'))).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: 'No such resource.' });
    const notAllowed = toProblem(new MethodNotAllowedException('secret'));
    expect(notAllowed).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    expect(JSON.stringify(notAllowed)).not.toContain('secret');
  });

  it('recognises a Fastify error wrapped by Nest by its code', () => {
    const cause = Object.assign(new Error('Unexpected token s in JSON: "secret"'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
    const problem = toProblem(new HttpException(cause.message, 400, { cause }));
    expect(problem).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', reason: 'malformed_json' });
    expect(JSON.stringify(problem)).not.toContain('secret');
  });

  it('answers anything else, and any 5xx HttpException, with a generic 500', () => {
    const expected = { status: 500, code: 'INTERNAL_ERROR', detail: 'An unexpected error occurred; it has been logged.' };
    expect(toProblem(new Error('SQLITE_BUSY: secret'))).toMatchObject(expected);
    expect(toProblem('a string')).toMatchObject(expected);
    expect(toProblem(new HttpException('secret', 502))).toMatchObject(expected);
  });
});

describe('clientErrorProblem', () => {
  it('names a request timeout and oversized headers, and takes anything else for malformed HTTP', () => {
    expect(clientErrorProblem(Object.assign(new Error('t'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toMatchObject({ status: 408, title: 'Request Timeout', code: 'REQUEST_TIMEOUT' });
    expect(clientErrorProblem(Object.assign(new Error('h'), { code: 'HPE_HEADER_OVERFLOW' }))).toMatchObject({ status: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
    expect(clientErrorProblem(Object.assign(new Error('Parse Error: secret'), { code: 'HPE_INVALID_METHOD' }))).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      code: 'VALIDATION_ERROR',
      detail: 'The request is not valid HTTP.',
      reason: 'malformed_request',
    });
  });
});
