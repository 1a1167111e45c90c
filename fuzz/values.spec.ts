import { randomFor } from './random';
import { ambiguousIdentityPair, isIdentity, refusedValue, rulesOf } from './values';

/** The sentences apps/api/src/dto-fields.ts and the webhook endpoint DTO put in the API description, shortened. */
const IDENTITY = { type: 'string', description: 'The reference. An identity: C0 and C1 control characters (tab and line feed too) are refused.' };
const PRESENTED = { type: 'string', description: 'The title. Shown to the data subject: bidi controls, invisible and format characters are refused.' };
const LOCATION = { type: 'string', description: 'Where the bytes are held. An `https:` URL, or an opaque reference; any other scheme is refused (400, reason `must_be_https_or_opaque`).' };
const WEBHOOK_URL = { type: 'string', description: 'Where deliveries are POSTed: `https_required`, `private_address_not_allowed`, `port_not_allowed` (a port other than 443).' };

const draws = (schema: object, count = 400) => {
  const random = randomFor(13, 1);
  return Array.from({ length: count }, () => refusedValue(schema, random)!);
};

describe('refusedValue', () => {
  it('promises nothing for a field whose description names no rule', () => {
    expect(refusedValue({ type: 'string', description: 'Free text.' }, randomFor(13, 1))).toBeUndefined();
    expect(rulesOf({ type: 'string' })).toEqual([]);
    expect([IDENTITY, PRESENTED, LOCATION, WEBHOOK_URL].map((schema) => rulesOf(schema).length)).toEqual([1, 1, 1, 1]);
    expect(rulesOf({ type: 'string', description: `${IDENTITY.description} ${PRESENTED.description}` })).toHaveLength(2);
  });

  it('puts a C0 or C1 control character, NUL among them, in an identity, refused as control_character', () => {
    const refusals = draws(IDENTITY);
    for (const { value, expected } of refusals) {
      expect(value).toMatch(/^core[\u0000-\u001f\u007f-\u009f]x$/);
      expect(expected).toEqual({ status: 400, reason: 'control_character' });
    }
    expect(refusals.map((r) => r.value)).toContain('core\u0000x');
    expect(isIdentity(IDENTITY)).toBe(true);
    expect(isIdentity(PRESENTED)).toBe(false);
  });

  it('puts a bidi control or an invisible character in presented text, with the reason of its class, and the tag characters among them', () => {
    const refusals = draws(PRESENTED);
    for (const { value, expected } of refusals) {
      const character = [...(value as string)][5];
      const bidi = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(character);
      expect(character).toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u2028\u2029\u00ad\ufff9-\ufffb\u{e0000}-\u{e007f}]/u);
      expect(expected).toEqual({ status: 400, reason: bidi ? 'bidi_control' : 'invisible_character' });
    }
    expect(refusals.some(({ value }) => /[\u{e0000}-\u{e007f}]/u.test(value as string))).toBe(true);
  });

  it('puts each item of a list in a list', () => {
    expect(Array.isArray(refusedValue({ ...PRESENTED, type: 'array', items: { type: 'string' } }, randomFor(13, 1))!.value)).toBe(true);
  });

  it('refuses a location with another scheme than https, and a webhook URL on another port or address, without naming a host to resolve', () => {
    const locations = draws(LOCATION, 100);
    expect(new Set(locations.map(({ value }) => (value as string).split(':')[0]))).toEqual(new Set(['javascript', 'http', 'data', 'file']));
    expect(new Set(locations.map(({ expected }) => expected.reason))).toEqual(new Set(['must_be_https_or_opaque']));
    const urls = draws(WEBHOOK_URL, 100);
    for (const { value } of urls) expect(new URL(value as string).hostname).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(new Set(urls.map(({ expected }) => expected.reason))).toEqual(new Set(['port_not_allowed', 'https_required', 'private_address_not_allowed']));
    expect(urls.filter(({ expected }) => expected.reason === 'port_not_allowed').every(({ value }) => new URL(value as string).port !== '')).toBe(true);
  });
});

describe('ambiguousIdentityPair', () => {
  it('sends the two spellings that a NUL join would make one identity, either way round', () => {
    const random = randomFor(13, 2);
    const pairs = new Set(Array.from({ length: 50 }, () => ambiguousIdentityPair(random).values.join('\u0000')));
    expect(pairs).toEqual(new Set(['core\u0000x\u0000y']));
    expect(ambiguousIdentityPair(random).expected).toEqual({ status: 400, reason: 'control_character' });
  });
});
