import { randomBytes } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { SCOPES, Scope, isScope, notFound, sha256Hex, validationError } from '@ledger/platform';
import { CommandContext, toNewEvent } from '../command-context';
import { loadAggregate, loadAllAggregates } from '../load-aggregate';
import { streamPrefixes, streams } from '../streams';
import { loadTenant } from '../tenancy/tenant';

export interface ApiKeyIssued {
  type: 'ApiKeyIssued';
  /** Only the SHA-256 of the secret is kept: the key itself is shown once, at issue. */
  data: { keyId: string; tenantId: string; scopes: Scope[]; secretSha256: string; issuedAt: number };
}
export interface ApiKeyRevoked {
  type: 'ApiKeyRevoked';
  data: { keyId: string; revokedAt: number };
}
export type ApiKeyEvent = ApiKeyIssued | ApiKeyRevoked;

export interface ApiKey {
  keyId: string;
  tenantId: string;
  scopes: Scope[];
  secretSha256: string;
  issuedAt: number;
  revokedAt: number | null;
}

export function evolveApiKey(state: ApiKey | null, event: ApiKeyEvent): ApiKey | null {
  switch (event.type) {
    case 'ApiKeyIssued':
      return { ...event.data, revokedAt: null };
    case 'ApiKeyRevoked':
      return state && { ...state, revokedAt: event.data.revokedAt };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export function decideIssueApiKey(input: {
  keyId: string;
  tenantId: string;
  tenantExists: boolean;
  scopes: string[];
  secretSha256: string;
  now: number;
}): ApiKeyEvent[] {
  if (!input.tenantExists) throw notFound('tenant');
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (input.scopes.length === 0 || unknown.length > 0) {
    throw validationError(`scopes must be a non-empty list of ${SCOPES.join(', ')}`, {
      errors: [{ field: 'scopes', reason: input.scopes.length === 0 ? 'required' : 'unknown_scope' }],
    });
  }
  const scopes = [...new Set(input.scopes as Scope[])];
  return [{ type: 'ApiKeyIssued', data: { keyId: input.keyId, tenantId: input.tenantId, scopes, secretSha256: input.secretSha256, issuedAt: input.now } }];
}

/** Revoking twice changes nothing: the key is already unusable. */
export function decideRevokeApiKey(state: ApiKey | null, keyId: string, now: number): ApiKeyEvent[] {
  if (!state) throw notFound('API key');
  if (state.revokedAt !== null) return [];
  return [{ type: 'ApiKeyRevoked', data: { keyId, revokedAt: now } }];
}

/**
 * `lk_<keyId>_<secret>`: the key id travels inside the key so the guard can
 * find its stream directly, and the secret is 256 random bits, so a plain
 * SHA-256 is enough to store it (no password stretching is needed).
 */
const API_KEY_FORMAT = /^lk_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

export function parseApiKey(apiKey: string): { keyId: string; secret: string } | null {
  const match = API_KEY_FORMAT.exec(apiKey);
  return match ? { keyId: match[1], secret: match[2] } : null;
}

function sha256(value: string): string {
  return sha256Hex(value);
}

export async function loadApiKey(store: EventStore, keyId: string): Promise<ApiKey | null> {
  return (await loadAggregate(store, streams.apiKey(keyId), evolveApiKey)).state;
}

export async function issueApiKey(
  store: EventStore,
  request: { tenantId: string; scopes: string[] },
  context: CommandContext,
): Promise<{ keyId: string; apiKey: string; scopes: Scope[] }> {
  const keyId = randomBytes(12).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const tenant = await loadTenant(store, request.tenantId);
  const events = decideIssueApiKey({
    keyId,
    tenantId: request.tenantId,
    tenantExists: tenant !== null,
    scopes: request.scopes,
    secretSha256: sha256(secret),
    now: context.now,
  });
  await store.append(streams.apiKey(keyId), events.map((e) => toNewEvent(e, { ...context, tenantId: request.tenantId })), 'no_stream');
  const issued = events[0] as ApiKeyIssued;
  return { keyId, apiKey: `lk_${keyId}_${secret}`, scopes: issued.data.scopes };
}

export async function revokeApiKey(store: EventStore, keyId: string, context: CommandContext): Promise<{ keyId: string; revoked: true }> {
  const { state, expectedRevision } = await loadAggregate(store, streams.apiKey(keyId), evolveApiKey);
  const events = decideRevokeApiKey(state, keyId, context.now);
  if (events.length > 0) {
    await store.append(streams.apiKey(keyId), events.map((e) => toNewEvent(e, { ...context, tenantId: state!.tenantId })), expectedRevision);
  }
  return { keyId, revoked: true };
}

/** The tenant's API keys, revoked ones included, in the order they were issued: what an operator may see of them, never a secret nor its hash. */
export async function listApiKeys(store: EventStore, tenantId: string): Promise<Array<{ keyId: string; scopes: Scope[]; issuedAt: number; revokedAt: number | null }>> {
  const keys = await loadAllAggregates(store, streamPrefixes.apiKey, evolveApiKey);
  return keys.filter((key) => key.tenantId === tenantId).map(({ keyId, scopes, issuedAt, revokedAt }) => ({ keyId, scopes, issuedAt, revokedAt }));
}
