import { createHash } from 'node:crypto';

/** What `put` reports: the name the bytes are stored under and how many there are. */
export interface StoredBlob {
  /** SHA-256 of the bytes, 64 lower-case hex characters: an artifact's `contentSha256`. */
  contentSha256: string;
  size: number;
}

/**
 * Content-addressed storage for artifact bytes (generated certificates,
 * supplied recordings and scans). A blob is named by the SHA-256 of its bytes,
 * so storing the same bytes twice is one blob, a name can never come to hold
 * other bytes, and a download serves exactly what the artifact's hash names.
 */
export interface BlobStore {
  /** Stores the bytes (idempotent); resolves once they are durable. */
  put(bytes: Buffer): Promise<StoredBlob>;
  /** The stored bytes, or null when none are stored under that hash; throws BlobCorruptedError rather than return other bytes. */
  get(contentSha256: string): Promise<Buffer | null>;
  /** Whether a blob is stored under that hash (its content is checked by `get`, not here). */
  has(contentSha256: string): Promise<boolean>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const CONTENT_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Only the canonical spelling is accepted: it is what `put` returns and what
 * the artifact fact records, and a store that builds paths from the name must
 * never receive `../` or another spelling of the same blob.
 */
export function assertContentSha256(value: string): void {
  if (typeof value !== 'string' || !CONTENT_SHA256.test(value)) {
    throw new InvalidContentHashError();
  }
}

/** A programming error, not a client one: hashes come from recorded facts, never straight from a request. */
export class InvalidContentHashError extends Error {
  override name = 'InvalidContentHashError';

  constructor() {
    super('not a content hash: expected a SHA-256 as 64 lower-case hex characters');
  }
}

/** The stored bytes no longer hash to their name (on-disk corruption); serving them would break the artifact's promise. */
export class BlobCorruptedError extends Error {
  override name = 'BlobCorruptedError';

  constructor(
    readonly contentSha256: string,
    readonly actualSha256: string,
  ) {
    super(`stored blob ${contentSha256} is corrupted: its bytes hash to ${actualSha256}`);
  }
}
