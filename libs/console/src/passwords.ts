import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords are stored as scrypt hashes (Node's own, RFC 7914):
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, salt and hash in base64url, so
 * that a stored hash says how to check it after the parameters change.
 * N = 2^16, r = 8, p = 1: 64 MiB and about a tenth of a second per check,
 * on libuv's thread pool, never the event loop.
 */
const COST_LOG2 = 16;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;
const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

/** A password a person chooses: long enough to resist guessing at the lock-out's pace, short enough to hash in bounded time. */
export const PASSWORD_LENGTH = { min: 12, max: 128 } as const;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST_LOG2, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', COST_LOG2, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** False for a wrong password and for a stored value that is not a hash this code wrote. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [, costLog2, blockSize, parallelism, salt, hash] = match;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(costLog2), Number(blockSize), Number(parallelism));
  return timingSafeEqual(actual, expected);
}

/** What the CLI shows once for a new user, who must change it at first sign-in: 120 random bits. */
export function initialPassword(): string {
  return randomBytes(15).toString('base64url');
}

function derive(password: string, salt: Buffer, costLog2: number, blockSize: number, parallelism: number): Promise<Buffer> {
  const N = 2 ** costLog2;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N, r: blockSize, p: parallelism, maxmem: 256 * N * blockSize }, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
