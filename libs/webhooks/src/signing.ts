import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks symmetric signing (https://www.standardwebhooks.com,
 * spec/standard-webhooks.md): `v1,` + base64 HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes the
 * `whsec_` secret encodes. Any receiver using a Standard Webhooks library
 * verifies our deliveries without code of its own.
 */

const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks' bounds for a symmetric key: at least 192 bits, at most 512. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
/** 2286-11-20 in seconds: a millisecond timestamp passed by mistake is above it, and every receiver would refuse it as too new. */
const MAX_TIMESTAMP_SECONDS = 9_999_999_999;

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'content-type': 'application/json';
}

/** A new endpoint secret: 32 random bytes, shown to the integrator once. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` value: one `v1,` signature per secret, space
 * separated, so that during a rotation the old and the new secret both verify.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  if (secrets.length === 0) throw new Error('a delivery needs at least one signing secret');
  // The id and the timestamp are delimited by full stops in the signed content; one inside either would make it ambiguous.
  if (messageId === '' || messageId.includes('.')) throw new Error('a webhook id must be non-empty and contain no full stop');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0 || timestampSeconds > MAX_TIMESTAMP_SECONDS) {
    throw new Error('a webhook timestamp is whole seconds since the epoch');
  }
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed, 'utf8').digest('base64')}`).join(' ');
}

/** Every header of one delivery attempt; the timestamp is the attempt's, the id the message's. */
export function webhookHeaders(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): WebhookHeaders {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, messageId, timestampSeconds, body),
    'content-type': 'application/json',
  };
}

/**
 * The key bytes of a `whsec_` secret. Node's base64 decoder skips characters
 * it does not know, so a damaged secret would silently sign with another key:
 * only canonical base64 of a key within Standard Webhooks' bounds is accepted.
 */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : null;
  const key = encoded === null ? null : Buffer.from(encoded, 'base64');
  if (key === null || key.toString('base64') !== encoded || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new Error('a webhook secret is whsec_ followed by the base64 of 24 to 64 key bytes');
  }
  return key;
}
