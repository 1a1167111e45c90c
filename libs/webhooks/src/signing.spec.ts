import { createHash, randomBytes } from 'node:crypto';
import { generateWebhookSecret, signatureHeader, webhookHeaders } from './signing';

// The "sign function works" vector of the Standard Webhooks reference library
// (standard-webhooks/libraries/javascript/src/webhook.test.ts).
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

/** HMAC-SHA256 from its definition (RFC 2104) on plain SHA-256, so the check shares no code path with createHmac. */
function rfc2104(key: Buffer, message: string): string {
  const block = Buffer.alloc(64);
  key.copy(block);
  const pad = (byte: number) => Buffer.from(block.map((b) => b ^ byte));
  const inner = createHash('sha256').update(pad(0x36)).update(Buffer.from(message, 'utf8')).digest();
  return createHash('sha256').update(pad(0x5c)).update(inner).digest('base64');
}
const whsec = (key: Buffer) => `whsec_${key.toString('base64')}`;
function messageOf(act: () => unknown): string {
  try {
    act();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('signatureHeader', () => {
  it('matches the Standard Webhooks reference vector', () => {
    expect(signatureHeader([vector.secret], vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it('is HMAC-SHA256 keyed with the decoded secret bytes over id.timestamp.body, body as UTF-8', () => {
    const key = randomBytes(32);
    const body = '{"data":{"channel":"presencial","nota":"señal ✓ 🚀"}}';
    expect(signatureHeader([whsec(key)], 'evt_0123abcd', 1763800000, body)).toBe(`v1,${rfc2104(key, `evt_0123abcd.1763800000.${body}`)}`);
  });

  it('signs the id, the timestamp and the body: changing any one changes the signature', () => {
    const base = signatureHeader([vector.secret], vector.id, vector.timestamp, vector.body);
    expect(signatureHeader([vector.secret], `${vector.id}x`, vector.timestamp, vector.body)).not.toBe(base);
    expect(signatureHeader([vector.secret], vector.id, vector.timestamp + 1, vector.body)).not.toBe(base);
    expect(signatureHeader([vector.secret], vector.id, vector.timestamp, `${vector.body} `)).not.toBe(base);
  });

  it('carries one signature per secret, in order, space separated, for a rotation overlap', () => {
    const next = whsec(randomBytes(32));
    const header = signatureHeader([vector.secret, next], vector.id, vector.timestamp, vector.body);
    expect(header.split(' ')).toEqual([vector.signature, signatureHeader([next], vector.id, vector.timestamp, vector.body)]);
  });

  it('accepts keys of 24 to 64 bytes and refuses shorter or longer ones', () => {
    for (const bytes of [24, 64]) expect(() => signatureHeader([whsec(randomBytes(bytes))], 'm', 1, '')).not.toThrow();
    for (const bytes of [0, 16, 23, 65]) expect(() => signatureHeader([whsec(randomBytes(bytes))], 'm', 1, '')).toThrow(/whsec_/);
  });

  it('refuses a secret without the whsec_ prefix or that is not canonical base64, and never echoes it', () => {
    const raw = vector.secret.slice('whsec_'.length);
    for (const secret of [raw, `whsec_${raw.slice(0, 10)}*${raw.slice(10)}`, `whsec_${raw} `, `whsec_${raw.replace(/=*$/, '')}A`]) {
      const message = messageOf(() => signatureHeader([secret], 'm', 1, ''));
      expect(message).toMatch(/whsec_/);
      expect(message).not.toContain(raw.slice(0, 8));
    }
  });

  it('refuses to sign without a secret', () => {
    expect(() => signatureHeader([], vector.id, vector.timestamp, vector.body)).toThrow(/at least one/);
  });

  it('refuses an empty id and an id with a full stop, which would make the signed content ambiguous', () => {
    expect(() => signatureHeader([vector.secret], '', vector.timestamp, vector.body)).toThrow(/webhook id/);
    expect(() => signatureHeader([vector.secret], 'evt_1.2', vector.timestamp, vector.body)).toThrow(/webhook id/);
  });

  it('refuses a timestamp that is not whole seconds: fractional, negative, or milliseconds', () => {
    for (const timestamp of [1.5, -1, 1_763_800_000_000, Number.NaN]) {
      expect(() => signatureHeader([vector.secret], vector.id, timestamp, vector.body)).toThrow(/whole seconds/);
    }
    expect(() => signatureHeader([vector.secret], vector.id, 0, vector.body)).not.toThrow();
    expect(() => signatureHeader([vector.secret], vector.id, 9_999_999_999, vector.body)).not.toThrow();
  });
});

describe('webhookHeaders', () => {
  it('are exactly the three Standard Webhooks headers and the JSON content type', () => {
    expect(webhookHeaders([vector.secret], vector.id, vector.timestamp, vector.body)).toStrictEqual({
      'webhook-id': vector.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': vector.signature,
      'content-type': 'application/json',
    });
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ and the canonical base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(key).toHaveLength(32);
    expect(signatureHeader([secret], 'm', 1, 'b')).toBe(`v1,${rfc2104(key, 'm.1.b')}`);
  });

  it('is new each time', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
  });
});
