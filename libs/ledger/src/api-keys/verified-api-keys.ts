import { timingSafeEqual } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { Principal, sha256Bytes } from '@ledger/platform';
import { streams } from '../streams';
import { ApiKey, ApiKeyEvent, evolveApiKey, parseApiKey } from './api-key';

/**
 * How long a key read from its stream is trusted before the stream is looked
 * at again, and so the bound the service states for a revocation made by any
 * process (the CLI, another instance): a revoked key is refused within this
 * by every process (`ledger key revoke --help` says it from here).
 */
export const API_KEY_RECHECK_MS = 250;
/** Keys kept at most; beyond it the least recently checked is dropped (and read again when next presented). */
const MAX_CACHED_KEYS = 10_000;

interface CachedKey {
  key: ApiKey;
  /** The key stream's last revision folded into `key`. */
  revision: number;
  /** Monotonic milliseconds when the stream was last read. */
  checkedAt: number;
}

/**
 * The API key verifier of the service: every request presents a key, and
 * reading the key's stream for each of them was the largest single cost of a
 * request (docs/decisions/0037-request-path-caches.md). A key found in its
 * stream is kept in memory and trusted for API_KEY_RECHECK_MS; after that the
 * next request reads its stream again from the revision kept, which is one
 * index lookup returning nothing until the key is revoked. An unknown key id
 * is never cached, so a key issued a moment ago by another process works on
 * its first request. The secret is checked against the stored SHA-256 on
 * every request, cached or not.
 */
export class VerifiedApiKeys {
  private readonly keys = new Map<string, CachedKey>();
  /** One stream read per key at a time: a burst of requests with one key reads once. */
  private readonly reading = new Map<string, Promise<CachedKey | null>>();

  constructor(
    private readonly store: EventStore,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async verify(apiKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(apiKey);
    if (!parsed) return null;
    const cached = await this.current(parsed.keyId);
    const key = cached?.key;
    if (!key || key.revokedAt !== null) return null;
    const presented = sha256Bytes(parsed.secret);
    const stored = Buffer.from(key.secretSha256, 'hex');
    if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return null;
    return { tenantId: key.tenantId, keyId: key.keyId, scopes: key.scopes };
  }

  private current(keyId: string): Promise<CachedKey | null> | CachedKey {
    const cached = this.keys.get(keyId);
    if (cached && this.now() - cached.checkedAt < API_KEY_RECHECK_MS) return cached;
    let reading = this.reading.get(keyId);
    if (!reading) {
      reading = this.read(keyId, cached).finally(() => this.reading.delete(keyId));
      this.reading.set(keyId, reading);
    }
    return reading;
  }

  /** The key's stream from where the cached copy ends (from the start when none), folded onto it. */
  private async read(keyId: string, cached: CachedKey | undefined): Promise<CachedKey | null> {
    const checkedAt = this.now();
    const recorded = await this.store.readStream(streams.apiKey(keyId), { fromRevision: cached ? cached.revision + 1 : 0 });
    let key: ApiKey | null = cached?.key ?? null;
    for (const event of recorded) key = evolveApiKey(key, event as unknown as ApiKeyEvent);
    this.keys.delete(keyId);
    if (!key) return null;
    const fresh = { key, revision: recorded.length > 0 ? recorded[recorded.length - 1].revision : cached!.revision, checkedAt };
    this.keys.set(keyId, fresh);
    if (this.keys.size > MAX_CACHED_KEYS) this.keys.delete(this.keys.keys().next().value!);
    return fresh;
  }
}
