import { createHmac } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * RFC 6238 codes as authenticator apps make them (SHA-1, 6 digits, 30 s), by
 * the `otpauth` library; the clock is the caller's. A code of the step
 * before or after now is accepted too, for a phone's clock a little off.
 */
const PERIOD_SECONDS = 30;
const CODE = /^\d{6}$/;

/** The time step the code matched at `now`, or null. */
export function matchedTotpCounter(base32Secret: string, code: string, now: number): number | null {
  const token = code.replace(/\s/g, '');
  if (!CODE.test(token)) return null;
  const secret = Secret.fromBase32(base32Secret);
  const delta = TOTP.validate({ token, secret, period: PERIOD_SECONDS, timestamp: now, window: 1 });
  return delta === null ? null : TOTP.counter({ period: PERIOD_SECONDS, timestamp: now }) + delta;
}

/**
 * The secret offered to a person enrolling, derived from their sign-in
 * step's secret: the page that shows it and the form that confirms it find
 * the same one without keeping it anywhere, and a new sign-in offers a new one.
 */
export function enrolmentSecret(stepSecret: string): string {
  const bytes = Uint8Array.from(createHmac('sha256', stepSecret).update('console totp enrolment').digest().subarray(0, 20));
  return new Secret({ buffer: bytes.buffer }).base32;
}

/** What an authenticator app scans or is given: `otpauth://totp/<issuer>:<email>?secret=…`. */
export function totpUri(base32Secret: string, issuer: string, email: string): string {
  return new TOTP({ issuer, label: email, secret: Secret.fromBase32(base32Secret), period: PERIOD_SECONDS }).toString();
}

/** For tests and the walk-through: the code an authenticator app shows at `now`. */
export function totpCode(base32Secret: string, now: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(base32Secret), period: PERIOD_SECONDS, timestamp: now });
}
