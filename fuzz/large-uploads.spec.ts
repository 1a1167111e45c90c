import { FuzzResponse } from './client';
import { checkLargeUpload } from './fuzz';
import { FuzzContext } from './fuzz-context';
import { LARGE_UPLOADS, largeUploads } from './large-uploads';
import { leakDetector } from './leaks';
import { randomFor } from './random';

const context: FuzzContext = {
  own: { tenantId: 'own', values: { interactionId: ['i-1', 'i-2'] } },
  other: { tenantId: 'other', values: {} },
  keys: { all: 'key_all_0123456789', readOnly: 'key_read_0123456789', revoked: 'key_revoked_0123456789', other: 'key_other_0123456789' },
  examples: { 'POST /v1/redec/consent-interactions/{interactionId}/grant': { path: { interactionId: 'i-1' }, query: {}, body: { occurredAt: 1_795_000_000_000, sourceSystem: 'pbx', sourceReference: 'call-1', evidence: { kind: 'electronic' } } } },
  ruts: ['12345678-5'],
  webhookSecret: 'whsec_0123456789abcdef',
};
const uploads = largeUploads(context, 13, randomFor(13, 7));
const detector = leakDetector([{ label: 'API key', value: 'key_all_0123456789' }], []);
const answer = (status: FuzzResponse['status'], body = '{}', headers: FuzzResponse['headers'] = {}): FuzzResponse => ({ status, headers, body: Buffer.from(body), ms: 3 });
const contentOf = (body: Buffer) => (JSON.parse(body.toString('latin1')) as { evidence: { contentBase64: string } }).evidence.contentBase64;
const isCanonical = (text: string) => Buffer.from(text, 'base64').toString('base64') === text;

describe('largeUploads', () => {
  it('sends grants under the evidence routes\' 16 MiB limit, each spelling promised what the service answers it', () => {
    expect(uploads).toHaveLength(LARGE_UPLOADS);
    expect(new Set(uploads.map((u) => u.strategy)).size).toBeGreaterThan(2);
    for (const upload of uploads) {
      expect(upload.body!.length).toBeLessThan(16 * 1024 * 1024);
      expect(upload.body!.length).toBeGreaterThan(15 * 1024 * 1024);
      const content = contentOf(upload.body!);
      expect({ strategy: upload.strategy, canonical: isCanonical(content) }).toEqual({ strategy: upload.strategy, canonical: upload.expected === undefined });
      if (upload.expected) expect(upload.expected).toEqual({ status: 400, reason: 'invalid_base64' });
    }
  });

  it('holds one body per spelling, however many uploads use it', () => {
    const bySpelling = new Map(uploads.map((u) => [u.strategy, u.body]));
    for (const upload of uploads) expect(upload.body).toBe(bySpelling.get(upload.strategy));
  });
});

describe('checkLargeUpload', () => {
  const valid = uploads.find((u) => u.expected === undefined)!;
  const invalid = uploads.find((u) => u.expected !== undefined)!;
  const busy = answer(503, '{"code":"SERVICE_BUSY","reason":"bodies_in_flight"}', { 'retry-after': '1' });

  it("passes a grant, a conflict, another rule's refusal, the promised refusal, the service busy, and a connection closed while the body was sent", () => {
    const otherRule = answer(400, '{"reason":"evidence_kind_not_accepted_for_channel","errors":[{"field":"evidence.kind","reason":"evidence_kind_not_accepted_for_channel"}]}');
    for (const [upload, response] of [[valid, answer(201)], [valid, answer(409)], [valid, otherRule], [invalid, answer(400, '{"errors":[{"reason":"invalid_base64"}]}')], [valid, busy], [invalid, busy], [invalid, answer('closed')]] as const) {
      expect(checkLargeUpload(upload, response, detector)).toEqual([]);
    }
  });

  it('fails another 5xx, a 503 of another kind, silence, a missing refusal and a refusal of valid base64', () => {
    const kinds = (upload: typeof valid, response: FuzzResponse) => checkLargeUpload(upload, response, detector).map((f) => f.kind);
    expect(kinds(valid, answer(500))).toEqual(['5xx']);
    expect(kinds(valid, answer(503, '{"code":"read_model_behind"}'))).toEqual(['5xx']);
    expect(kinds(valid, answer('no answer'))).toEqual(['no answer']);
    expect(kinds(invalid, answer(201))).toEqual(['promised refusal missing']);
    expect(kinds(valid, answer(400, '{"errors":[{"reason":"invalid_base64"}]}'))).toEqual(['valid upload refused']);
    expect(kinds(valid, answer(413))).toEqual(['valid upload refused']);
  });
});
