import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const INTERNAL_CONSENT_CODE_LENGTH = 20;
const FORMAT = /^[0-9A-Z]{20}$/;

/**
 * docs/reference/grants.md, "The internal consent code": exactly 20 characters
 * of 0-9A-Z, never all `9` nor all `0` (those two values mean
 * `legacy_pre_redec` and `no_applicable_consent` in the registry's consent-code
 * field). 36^20 values make a random code practically unique; uniqueness in the
 * tenant is still enforced by a reservation, and a collision draws again.
 */
export function isInternalConsentCode(value: string): boolean {
  return FORMAT.test(value) && !/^9+$/.test(value) && !/^0+$/.test(value);
}

/** `draw(n)` returns an integer in [0, n); injectable so the rule can be tested deterministically. */
export function generateInternalConsentCode(draw: (n: number) => number = randomInt): string {
  for (;;) {
    let code = '';
    for (let i = 0; i < INTERNAL_CONSENT_CODE_LENGTH; i += 1) code += ALPHABET[draw(ALPHABET.length)];
    if (isInternalConsentCode(code)) return code;
  }
}

/**
 * The code a consent draws on its `attempt`-th try: a pure function of the
 * consent, so concurrent grants of one consent draw the same code, claim one
 * reservation between them and leave no orphan claims; a code held by another
 * consent (36^20 makes that a practical impossibility) moves on to the next
 * attempt. The code is an identifier reported to the regulator, not a secret.
 */
export function internalConsentCodeFor(tenantId: string, redecConsentId: string, attempt: number): string {
  let block = Buffer.alloc(0);
  let used = 0;
  let counter = 0;
  const nextByte = (): number => {
    if (used === block.length) {
      block = createHash('sha256').update(`${tenantId}\u0000${redecConsentId}\u0000${attempt}\u0000${counter++}`).digest();
      used = 0;
    }
    return block[used++];
  };
  // Rejection sampling keeps every character equally likely: 252 is the largest multiple of 36 below 256.
  return generateInternalConsentCode((n) => {
    for (;;) {
      const byte = nextByte();
      if (byte < 256 - (256 % n)) return byte % n;
    }
  });
}
