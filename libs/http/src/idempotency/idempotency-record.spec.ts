import type { RecordedEvent } from '@ledger/event-store';
import { DomainError } from '@ledger/platform';
import {
  IDEMPOTENCY_LEASE_MS,
  IdempotencyEventTypes,
  decideIdempotency,
  hashRequest,
  idempotencyStreamId,
  isFinalOutcome,
  isValidIdempotencyKey,
} from './idempotency-record';

const NOW = 1_800_000_000_000;
const HASH = 'hash-of-this-request';

function last(type: string, data: object, revision = 3): RecordedEvent {
  return {
    id: 'e',
    type,
    data,
    metadata: { correlationId: 'c', recordedAt: 0, schemaVersion: 1 },
    streamId: 's',
    revision,
    position: 10,
    created: 0,
    integrity: { hash: 'h', previousHash: null },
  };
}

const codeOf = (decision: ReturnType<typeof decideIdempotency>) => (decision.action === 'reject' ? decision.error.code : decision.action);

describe('decideIdempotency', () => {
  it('claims a new key with no_stream', () => {
    expect(decideIdempotency(undefined, HASH, NOW)).toEqual({ action: 'claim', expectedRevision: 'no_stream' });
  });

  it('claims a released key at its revision, whatever the request', () => {
    const released = last(IdempotencyEventTypes.RELEASED, { requestHash: 'other' });
    expect(decideIdempotency(released, HASH, NOW)).toEqual({ action: 'claim', expectedRevision: 3 });
  });

  it('replays a recorded answer to the same request and refuses another', () => {
    const response = { status: 201, body: '{"a":1}', contentType: 'application/json; charset=utf-8' };
    const recorded = last(IdempotencyEventTypes.RESPONSE_RECORDED, { requestHash: HASH, ...response });
    expect(decideIdempotency(recorded, HASH, NOW)).toEqual({ action: 'replay', response });
    expect(codeOf(decideIdempotency(recorded, 'other', NOW))).toBe('IDEMPOTENCY_KEY_REUSED');
    // A protected answer replays with its flag, for the interceptor to decrypt.
    const protectedResponse = { ...response, body: 'ciphertext', bodyProtected: true as const };
    expect(decideIdempotency(last(IdempotencyEventTypes.RESPONSE_RECORDED, { requestHash: HASH, ...protectedResponse }), HASH, NOW)).toEqual({ action: 'replay', response: protectedResponse });
  });

  it.each([
    ['a fresh claim of the same request', HASH, NOW - 1, 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    ['a claim one ms short of the lease', HASH, NOW - IDEMPOTENCY_LEASE_MS + 1, 'IDEMPOTENCY_KEY_IN_PROGRESS'],
    ['a stale claim of the same request', HASH, NOW - IDEMPOTENCY_LEASE_MS, 'claim'],
    ['a fresh claim of another request', 'other', NOW - 1, 'IDEMPOTENCY_KEY_REUSED'],
    ['a stale claim of another request', 'other', NOW - IDEMPOTENCY_LEASE_MS, 'IDEMPOTENCY_KEY_REUSED'],
  ])('%s', (_name, claimedHash, claimedAt, expected) => {
    const claimed = last(IdempotencyEventTypes.CLAIMED, { requestHash: claimedHash, claimedAt });
    const decision = decideIdempotency(claimed, HASH, NOW);
    expect(codeOf(decision)).toBe(expected);
    if (decision.action === 'claim') expect(decision.expectedRevision).toBe(3);
  });

  it('fails loudly on a foreign event in the stream', () => {
    expect(() => decideIdempotency(last('SomethingElse', {}), HASH, NOW)).toThrow(/unexpected event/);
  });
});

describe('request hash, stream and key', () => {
  it('hashes method, path and body, independent of key order', async () => {
    const hash = await hashRequest('post', '/v1/x', { a: 1, b: { c: [1, 2] } });
    expect(await hashRequest('POST', '/v1/x', { b: { c: [1, 2] }, a: 1 })).toBe(hash);
    expect(await hashRequest('POST', '/v1/y', { a: 1, b: { c: [1, 2] } })).not.toBe(hash);
    expect(await hashRequest('PUT', '/v1/x', { a: 1, b: { c: [1, 2] } })).not.toBe(hash);
    expect(await hashRequest('POST', '/v1/x', { a: 1, b: { c: [2, 1] } })).not.toBe(hash);
    expect(await hashRequest('POST', '/v1/x', undefined)).toBe(await hashRequest('POST', '/v1/x', null));
  });

  it('puts the tenant in the stream and never the raw key', () => {
    const stream = idempotencyStreamId('tenant-a', 'my key/../secret');
    expect(stream).toMatch(/^idempotency-tenant-a-[0-9a-f]{64}$/);
    expect(idempotencyStreamId('tenant-b', 'my key/../secret')).not.toBe(stream);
  });

  it('accepts 1 to 255 visible ASCII characters', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey('~'.repeat(255))).toBe(true);
    expect(isValidIdempotencyKey('')).toBe(false);
    expect(isValidIdempotencyKey('x'.repeat(256))).toBe(false);
    expect(isValidIdempotencyKey('a b')).toBe(false);
    expect(isValidIdempotencyKey('clé')).toBe(false);
  });

  it('records answers about the request and releases for anything the caller can fix or retry', () => {
    expect(isFinalOutcome(new DomainError('conflict', 'x', 'd'))).toBe(true);
    expect(isFinalOutcome(new DomainError('unprocessable', 'x', 'd'))).toBe(true);
    expect(isFinalOutcome(new DomainError('not_found', 'NOT_FOUND', 'd'))).toBe(true);
    expect(isFinalOutcome(new DomainError('validation', 'VALIDATION_ERROR', 'd'))).toBe(false);
    expect(isFinalOutcome(new DomainError('forbidden', 'INSUFFICIENT_SCOPE', 'd'))).toBe(false);
    expect(isFinalOutcome(new DomainError('unavailable', 'x', 'd'))).toBe(false);
    expect(isFinalOutcome(new Error('crash'))).toBe(false);
  });
});
