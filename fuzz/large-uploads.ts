import { FuzzContext } from './fuzz-context';
import { FuzzRequest, requestName } from './generate';
import { Random } from './random';
import { Expected } from './values';

/**
 * Issue 32: evidence uploads near the largest body a route takes, many at
 * once from one tenant, canonical base64 and not. Sent together after the
 * seeded requests, they must each get an answer the service promises: the
 * grant (201, or 409 on an interaction already granted), 400
 * `invalid_base64` for text that is not canonical base64, or 503
 * `SERVICE_BUSY` with `Retry-After` (or the connection closed while the
 * body was still being sent) past the memory budget for bodies in flight;
 * and the service's memory stays under the harness's bound meanwhile.
 */
export const LARGE_UPLOADS = 16;

const GRANT = 'POST /v1/redec/consent-interactions/{interactionId}/grant';
/** 15 MiB of base64 digits: under the 16 MiB limit with the rest of the body. */
const DIGITS = 15 * 1024 * 1024;
/** A seeded pattern of bytes repeated: 48 KiB is a whole number of base64 groups. */
const PATTERN_BYTES = 48 * 1024;

/** How an upload's digits are spelled, and what the service promises for each spelling. */
const SPELLINGS: ReadonlyArray<readonly [string, Expected | undefined]> = [
  ['canonical', undefined],
  ['escaped slashes', undefined],
  ['url-safe digit', { status: 400, reason: 'invalid_base64' }],
  ['space between digits', { status: 400, reason: 'invalid_base64' }],
  ['unused bits set', { status: 400, reason: 'invalid_base64' }],
];

/** The uploads of one run, from `random`; requests of one spelling share one body buffer, so the harness holds each once. */
export function largeUploads(context: FuzzContext, seed: number, random: Random): FuzzRequest[] {
  const example = context.examples[GRANT];
  if (example === undefined) throw new Error(`no seeded example of ${GRANT}`);
  const pattern = Buffer.from(Array.from({ length: PATTERN_BYTES }, () => random.int(0, 255))).toString('base64');
  const digits = pattern.repeat(Math.ceil(DIGITS / pattern.length)).slice(0, DIGITS);
  const bodies = new Map<string, Buffer>();
  const bodyOf = (spelling: string) => {
    let body = bodies.get(spelling);
    if (body === undefined) {
      body = grantBody(example.body as Record<string, unknown>, spelled(digits, spelling));
      bodies.set(spelling, body);
    }
    return body;
  };
  const interactions = context.own.values.interactionId ?? [];
  return Array.from({ length: LARGE_UPLOADS }, (_, n) => {
    const [spelling, expected] = random.pick(SPELLINGS);
    const index = -1 - n;
    return {
      index,
      operation: GRANT,
      strategy: `large body: ${spelling}`,
      target: 'body evidence.contentBase64',
      method: 'POST',
      url: `/v1/redec/consent-interactions/${encodeURIComponent(random.pick(interactions))}/grant`,
      headers: { 'x-request-id': requestName(seed, index), Authorization: `Bearer ${context.keys.all}`, 'content-type': 'application/json' },
      auth: 'own tenant, every scope',
      body: bodyOf(spelling),
      bodyDescription: `a grant with ${DIGITS} base64 digits of audio evidence, ${spelling}`,
      expected,
    };
  });
}

/** The JSON text of the digits in that spelling (what goes between the quotes). */
function spelled(digits: string, spelling: string): string {
  const middle = Math.floor(digits.length / 2);
  switch (spelling) {
    case 'escaped slashes':
      return digits.replaceAll('/', '\\/');
    case 'url-safe digit':
      return `${digits.slice(0, middle)}-${digits.slice(middle + 1)}`;
    case 'space between digits':
      return `${digits.slice(0, middle)} ${digits.slice(middle)}`;
    case 'unused bits set':
      // Two digits end a group of one byte: the second's low four bits must be zero, and `R` has one set.
      return `${digits}QR`;
    default:
      return digits;
  }
}

function grantBody(example: Record<string, unknown>, contentText: string): Buffer {
  const occurredAt = example.occurredAt as number;
  const head = JSON.stringify({ ...example, evidence: { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', contentBase64: '@' } });
  const [before, after] = head.split('"@"');
  return Buffer.concat([Buffer.from(`${before}"`), Buffer.from(contentText, 'latin1'), Buffer.from(`"${after}`)]);
}
