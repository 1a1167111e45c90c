import { randomFillSync } from 'node:crypto';

/**
 * A version 7 UUID (RFC 9562, section 5.7): the instant `atMs` (Unix epoch
 * milliseconds, 48 bits) first, then 74 random bits. Ids made later sort
 * after ids made earlier, so a B-tree index of them grows at one end: an
 * event store's unique index of event ids then touches the same few pages
 * however large the ledger is, where random (version 4) ids touch a random
 * page each (decision 0082). Within one millisecond, ids are in random order.
 *
 * `random` supplies the random bits (10 bytes are read); a seeded source
 * makes the ids reproducible (the ledger generator's).
 */
export function timeOrderedId(atMs: number, random: (bytes: Uint8Array) => void = pooledRandom): string {
  if (!Number.isSafeInteger(atMs) || atMs < 0 || atMs >= 2 ** 48) throw new RangeError(`not an instant a version 7 UUID holds: ${atMs}`);
  const bytes = new Uint8Array(16);
  random(bytes.subarray(6));
  let instant = atMs;
  for (let i = 5; i >= 0; i -= 1) {
    bytes[i] = instant % 256;
    instant = Math.floor(instant / 256);
  }
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Random bytes served from a buffer refilled 4 KiB at a time, as Node's own
 * `randomUUID` does: one call into the system's generator per 409 ids. A
 * call per id cost more than the rest of the id, and on the service's busy
 * event loop about 4% of a new access decision's request.
 */
const RANDOM_POOL = new Uint8Array(4096);
let randomPoolUsed = RANDOM_POOL.length;

function pooledRandom(bytes: Uint8Array): void {
  if (randomPoolUsed + bytes.length > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomPoolUsed = 0;
  }
  bytes.set(RANDOM_POOL.subarray(randomPoolUsed, randomPoolUsed + bytes.length));
  randomPoolUsed += bytes.length;
}
