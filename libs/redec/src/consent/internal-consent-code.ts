import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const INTERNAL_CONSENT_CODE_LENGTH = 20;
const FORMAT = /^[0-9A-Z]{20}$/;

/**
 * CONTRACT.md: exactly 20 characters of 0-9A-Z, never all `9` nor all `0`
 * (those two values mean `legacy_pre_redec` and `no_applicable_consent` in
 * the registry's consent-code field). 36^20 values make a random code
 * practically unique; uniqueness in the tenant is still enforced by a
 * reservation, and a collision draws again.
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
