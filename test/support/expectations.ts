import { ApiApp } from './api-app';

type Response = { status: number; headers: Record<string, string>; body: any };

/** An RFC 9457 problem document with this status and code (docs/reference/errors.md, "The problem document"). */
export function expectProblem(response: Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, code });
}

/** 400 VALIDATION_ERROR naming at least these field errors, and the top-level reason when given. */
export function expectValidationError(response: Response, errors: Array<{ field: string; reason: string; codePoint?: string }>, reason?: string): void {
  expectProblem(response, 400, 'VALIDATION_ERROR');
  expect(response.body.errors).toEqual(expect.arrayContaining(errors));
  if (reason !== undefined) expect(response.body.reason).toBe(reason);
}

/**
 * Runs `act` and expects it to record no fact. An Idempotency-Key's own
 * bookkeeping (its claim, then the answer or release) is written for any
 * request that reaches the handler, refused or not; nothing else may be.
 */
export async function recordsNoFact<T>(api: ApiApp, act: () => Promise<T>): Promise<T> {
  const before = await api.store.headPosition();
  const result = await act();
  const appended = await api.store.readAll({ after: before });
  expect(appended.filter((e) => !e.streamId.startsWith('idempotency-')).map((e) => `${e.streamId} ${e.type}`)).toEqual([]);
  return result;
}

/** Runs `act` and expects the event store head not to move: the request recorded nothing at all, bookkeeping included. */
export async function recordsNothingAtAll<T>(api: ApiApp, act: () => Promise<T>): Promise<T> {
  const before = await api.store.headPosition();
  const result = await act();
  expect(await api.store.headPosition()).toBe(before);
  return result;
}
