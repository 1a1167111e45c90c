import { ExpectedRevision, RecordedEvent, canonicalJsonSha256 } from '@ledger/event-store';
import { DomainError, ErrorCodes, sha256Hex } from '@ledger/platform';

/**
 * The rules of Idempotency-Key, as pure functions of the key's stream (its
 * last event), the request and the time. Records live in the event store so
 * they survive restarts and the loss of Redis (docs/reference/conventions.md,
 * "Idempotency-Key").
 *
 * A key's stream is a sequence of claims, each ended by a recorded response
 * (final) or a release (the key is free again):
 *   Claimed → ResponseRecorded
 *   Claimed → Released → Claimed → ...
 *   Claimed → Claimed (a stale claim taken over)
 */

/** How long a claim holds without an answer before another request may take it over (its request presumably died). */
export const IDEMPOTENCY_LEASE_MS = 30_000;

export const IdempotencyEventTypes = {
  CLAIMED: 'IdempotencyKeyClaimed',
  RESPONSE_RECORDED: 'IdempotentResponseRecorded',
  RELEASED: 'IdempotencyKeyReleased',
} as const;

/**
 * What a replay sends back: the status, content type and body text of the
 * first answer. The body is kept as the text that was sent, not as a JSON
 * value, because the store does not keep the key order of JSON values.
 */
export interface StoredResponse {
  status: number;
  /** null when the first answer had no body (and then usually no content type). */
  body: string | null;
  contentType: string | null;
  /** The body is kept encrypted under the tenant's key: the answer carries a secret shown once (`@Idempotent({ protectResponse: true })`). */
  bodyProtected?: true;
}

export interface ClaimedData {
  requestHash: string;
  claimedAt: number;
}

export interface ResponseRecordedData extends StoredResponse {
  requestHash: string;
}

export interface ReleasedData {
  requestHash: string;
}

export type IdempotencyDecision =
  | { action: 'claim'; expectedRevision: ExpectedRevision }
  | { action: 'replay'; response: StoredResponse }
  | { action: 'reject'; error: DomainError };

/** The tenant is part of the stream; the key is hashed so that any header value makes a valid, bounded stream name. */
export function idempotencyStreamId(tenantId: string, key: string): string {
  return `idempotency-${tenantId}-${sha256Hex(key)}`;
}

/**
 * SHA-256 of the canonical JSON of method, path and body. The query string is
 * left out: every idempotent operation takes its input from the path and the
 * body, and a query string is where proxies and client libraries add noise
 * (cache busters, tracking), which would turn an exact retry into a 422.
 */
export function hashRequest(method: string, path: string, body: unknown): Promise<string> {
  return canonicalJsonSha256({ method: method.toUpperCase(), path, body: body ?? null });
}

/** 1 to 255 visible ASCII characters (the IETF draft's practice; anything else is a client bug). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function isValidIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY_PATTERN.test(key);
}

/** Decides from the last event of the key's stream (undefined when the stream does not exist). */
export function decideIdempotency(
  last: RecordedEvent | undefined,
  requestHash: string,
  now: number,
  leaseMs = IDEMPOTENCY_LEASE_MS,
): IdempotencyDecision {
  if (!last) return { action: 'claim', expectedRevision: 'no_stream' };
  switch (last.type) {
    case IdempotencyEventTypes.RELEASED:
      return { action: 'claim', expectedRevision: last.revision };
    case IdempotencyEventTypes.RESPONSE_RECORDED: {
      const { requestHash: recordedHash, status, body, contentType, bodyProtected } = last.data as ResponseRecordedData;
      if (recordedHash !== requestHash) return { action: 'reject', error: keyReused() };
      return { action: 'replay', response: { status, body, contentType, ...(bodyProtected ? { bodyProtected } : {}) } };
    }
    case IdempotencyEventTypes.CLAIMED: {
      const claim = last.data as ClaimedData;
      if (claim.requestHash !== requestHash) return { action: 'reject', error: keyReused() };
      if (now - claim.claimedAt < leaseMs) return { action: 'reject', error: keyInProgress() };
      return { action: 'claim', expectedRevision: last.revision };
    }
    default:
      throw new Error(`unexpected event ${last.type} in idempotency stream ${last.streamId}`);
  }
}

/**
 * Whether an error outcome is the request's answer (recorded and replayed) or
 * says nothing final about it (the claim is released so a retry runs again):
 * a malformed request, a caller lacking a scope, an unavailable dependency or
 * a server fault can all be fixed and retried with the same key.
 */
export function isFinalOutcome(error: unknown): boolean {
  return error instanceof DomainError && ['not_found', 'conflict', 'unprocessable'].includes(error.kind);
}

export function keyRequired(): DomainError {
  return new DomainError('validation', ErrorCodes.IDEMPOTENCY_KEY_REQUIRED, 'This operation requires an Idempotency-Key header.');
}

export function keyInProgress(): DomainError {
  return new DomainError(
    'conflict',
    ErrorCodes.IDEMPOTENCY_KEY_IN_PROGRESS,
    'A request with this Idempotency-Key is still being processed; retry later.',
  );
}

function keyReused(): DomainError {
  return new DomainError(
    'unprocessable',
    ErrorCodes.IDEMPOTENCY_KEY_REUSED,
    'This Idempotency-Key was used with a different request.',
  );
}
