import { sha256Hex, sha256HexInSlices } from '@ledger/platform';

/** What `put` reports: the name the bytes are stored under and how many there are. */
export interface StoredBlob {
  /** SHA-256 of the bytes, 64 lower-case hex characters: an artifact's `contentSha256`. */
  contentSha256: string;
  size: number;
}

/**
 * Content-addressed storage for artifact bytes (generated certificates,
 * supplied recordings and scans), per tenant. A blob is found by the SHA-256
 * of its bytes and whose it is (`blobAddress`): the tenant's blobs (reports,
 * a general consent's evidence) are named by the hash itself, a customer's
 * evidence and certificates by the hash and the customer (decision 0048), so
 * the same bytes supplied by two customers are two blobs, each sealed under
 * its own customer's key and erased with it. Storing the same bytes twice for
 * the same owner is one blob, a name can never come to hold other bytes, and
 * a download serves exactly what the artifact's hash names.
 */
export interface BlobStore {
  /**
   * Stores the bytes (idempotent); resolves once they are durable. A
   * customer's evidence names the customer, so that it is held apart, sealed
   * under the customer's key and erased with it (decisions 0035, 0048).
   */
  put(tenantId: string, bytes: Buffer, customerId?: string): Promise<StoredBlob>;
  /**
   * The stored bytes, or null when none are stored under that hash for that
   * owner; throws BlobCorruptedError rather than return other bytes. A
   * customer's blob stored before decision 0048 is at the tenant's address:
   * read there when the customer's own is absent.
   */
  get(tenantId: string, contentSha256: string, customerId?: string): Promise<Buffer | null>;
  /** Whether `get` would find a blob (its content is checked by `get`, not here). */
  has(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean>;
  /**
   * Removes the blob at exactly that owner's address (erasure, decision
   * 0035); true when there was one. A customer's does not remove a copy
   * stored at the tenant's address before decision 0048: the erasure
   * decides about that one (decision 0048).
   */
  delete(tenantId: string, contentSha256: string, customerId?: string): Promise<boolean>;
  /** Lets go of what the store holds open (a pool); the process closes it last. */
  close(): Promise<void>;
}

/**
 * Where a blob is kept within its tenant: the SHA-256 of its bytes for the
 * tenant's own, and for a customer's the SHA-256 over the customer and that
 * hash, so byte-identical evidence of two customers never shares a blob (nor
 * a key, decision 0048). Both are 64 lower-case hex characters, so every
 * store keeps them as it kept hashes. The only place an address is computed.
 */
export function blobAddress(contentSha256: string, customerId?: string): string {
  assertContentSha256(contentSha256);
  if (customerId === undefined) return contentSha256;
  return sha256Hex(`customer-blob\u0000${customerId}\u0000${contentSha256}`);
}

/**
 * Where `get` and `has` look, in order: the owner's address, then, for a
 * customer, the tenant's, where its blob was stored before decision 0048.
 */
export function readAddresses(contentSha256: string, customerId?: string): string[] {
  return [...new Set([blobAddress(contentSha256, customerId), blobAddress(contentSha256)])];
}

/**
 * How blobs are kept at rest: encrypted under the tenant's or the customer's
 * key and bound to the blob's address (BlobProtection in @ledger/platform),
 * so the bytes on disk are never the plaintext and a file moved to another
 * address, customer or tenant does not open.
 */
export interface BlobSealer {
  seal(tenantId: string, address: string, bytes: Buffer, customerId?: string): Promise<Buffer>;
  /** The plaintext, or null when the sealed bytes do not open (altered, or sealed for another address or tenant). */
  open(tenantId: string, address: string, sealed: Buffer): Promise<Buffer | null>;
}

export const BLOB_STORE = Symbol('BLOB_STORE');

/**
 * What every store does with the sealed bytes it read at an address: opens
 * them and checks they hash to `contentSha256`, so a download is exactly
 * what the artifact's hash names or an error, never other bytes.
 */
export async function openVerified(sealer: BlobSealer, tenantId: string, address: string, contentSha256: string, sealed: Buffer): Promise<Buffer> {
  const bytes = await sealer.open(tenantId, address, sealed);
  if (bytes === null) throw new BlobCorruptedError(contentSha256, "it does not open under the tenant's key (altered, or not this blob)");
  const actual = await sha256HexInSlices(bytes);
  if (actual !== contentSha256) throw new BlobCorruptedError(contentSha256, `its bytes hash to ${actual}`);
  return bytes;
}

const CONTENT_SHA256 = /^[0-9a-f]{64}$/;
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Only the canonical spelling is accepted: it is what `put` returns and what
 * the artifact fact records, and a store that builds paths from the name must
 * never receive `../` or another spelling of the same blob.
 */
export function assertContentSha256(value: string): void {
  if (typeof value !== 'string' || !CONTENT_SHA256.test(value)) {
    throw new InvalidBlobNameError('not a content hash: expected a SHA-256 as 64 lower-case hex characters');
  }
}

/** Tenant ids are lower-case uuids; a store that builds paths from them must never receive anything else. */
export function assertTenantId(value: string): void {
  if (typeof value !== 'string' || !TENANT_ID.test(value)) throw new InvalidBlobNameError('not a tenant id: expected a lower-case uuid');
}

/** A programming error, not a client one: tenants and hashes come from keys and recorded facts, never straight from a request. */
export class InvalidBlobNameError extends Error {
  override name = 'InvalidBlobNameError';
}

/** The stored bytes do not open, or no longer hash to their name (on-disk corruption); serving them would break the artifact's promise. */
export class BlobCorruptedError extends Error {
  override name = 'BlobCorruptedError';

  constructor(
    readonly contentSha256: string,
    why: string,
  ) {
    super(`stored blob ${contentSha256} is corrupted: ${why}`);
  }
}
