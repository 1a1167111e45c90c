import { FuzzResponse } from './client';
import { check, logLeaks } from './fuzz';
import { FuzzRequest } from './generate';
import { StoredFact } from './ledger-file';
import { leakDetector } from './leaks';

const request: FuzzRequest = {
  index: 5,
  operation: 'POST /v1/redec/consents/{redecConsentId}/revoke',
  strategy: 'value: wrong type (number)',
  target: 'body channel',
  method: 'POST',
  url: '/v1/redec/consents/c/revoke',
  headers: {},
  auth: 'own tenant, every scope',
};
const detector = leakDetector([{ label: 'API key', value: 'key_secret_0123456789' }], [{ label: 'RUT 1', rut: '12345678-5' }]);
const answer = (status: FuzzResponse['status'], body = '{}'): FuzzResponse => ({ status, headers: {}, body: Buffer.from(body), ms: 3 });
const ledgerWith = (facts: StoredFact[]) => ({ factsAfter: (position: number) => facts.filter((f) => f.position > position) });
const claim: StoredFact = { position: 11, streamId: 'idempotency-t-k', type: 'IdempotencyKeyClaimed' };
const revocation: StoredFact = { position: 12, streamId: 'redec-consent-t-c', type: 'RevocationRecorded' };

describe('check', () => {
  it('passes a refusal that recorded only its Idempotency-Key bookkeeping', () => {
    expect(check(request, answer(400), detector, ledgerWith([claim]), 10)).toEqual([]);
  });

  it('fails a refusal that recorded a fact, naming it', () => {
    expect(check(request, answer(409), detector, ledgerWith([claim, revocation]), 10)).toEqual([
      { kind: 'fact recorded by a refused request', status: '409', request, detail: 'RevocationRecorded in redec-…' },
    ]);
  });

  it('lets an accepted request record facts', () => {
    expect(check(request, answer(201), detector, ledgerWith([revocation]), 10)).toEqual([]);
  });

  it('fails a 5xx, and an answer that carries a secret or a RUT, masking them', () => {
    const failures = check(request, answer(500, '{"detail":"key_secret_0123456789 for 12.345.678-5"}'), detector, ledgerWith([]), 10);
    expect(failures.map((f) => [f.kind, f.detail])).toEqual([
      ['5xx', 'answer: {"detail":"«API key» for «RUT 1»"}'],
      ['leak in an answer', 'API key in body; RUT 1 in body'],
    ]);
  });

  it('fails silence, and a connection closed on a request without a body, but not one closed on a body in flight', () => {
    expect(check(request, answer('no answer'), detector, ledgerWith([]), 10).map((f) => f.kind)).toEqual(['no answer']);
    expect(check({ ...request, body: Buffer.from('x') }, answer('closed'), detector, ledgerWith([]), 10)).toEqual([]);
  });
});

describe('check of a promised refusal', () => {
  const promised: FuzzRequest = { ...request, strategy: 'refusal: NUL in an identity', target: 'body sourceSystem', expected: { status: 400, reason: 'control_character' } };
  const refusal = (body: object) => answer(400, JSON.stringify({ code: 'VALIDATION_ERROR', ...body }));

  it("passes the promised status with the promised reason, the problem's own or a field's", () => {
    expect(check(promised, refusal({ errors: [{ field: 'sourceSystem', reason: 'control_character', codePoint: 'U+0000' }] }), detector, ledgerWith([]), 10)).toEqual([]);
    expect(check({ ...promised, expected: { status: 400, reason: 'malformed_json' } }, refusal({ reason: 'malformed_json' }), detector, ledgerWith([]), 10)).toEqual([]);
    expect(check({ ...promised, expected: { status: 404 } }, answer(404, '{"code":"NOT_FOUND"}'), detector, ledgerWith([]), 10)).toEqual([]);
  });

  it('fails an acceptance, another reason or an answer that is not a problem, saying what was promised', () => {
    const failures = [answer(201, '{"bindingId":"b"}'), refusal({ errors: [{ field: 'sourceSystem', reason: 'too_long' }] }), answer(400, 'not JSON')].flatMap((a) =>
      check(promised, a, detector, ledgerWith([]), 10),
    );
    expect(failures.map((f) => [f.kind, f.status])).toEqual([
      ['promised refusal missing', '201'],
      ['promised refusal missing', '400'],
      ['promised refusal missing', '400'],
    ]);
    expect(failures[0].detail).toBe('promised 400 control_character, answer: {"bindingId":"b"}');
  });
});

describe('logLeaks', () => {
  it('ties a log line carrying a secret to the request whose id it carries', () => {
    const log = [
      '{"level":30,"requestId":"fuzz-13-5","req":{"url":"/embed/t/sessions/s?rut=12345678-5"},"msg":"incoming request"}',
      '{"level":30,"requestId":"fuzz-13-6","msg":"request completed"}',
      'warning: key_secret_0123456789 on stderr',
    ].join('\n');
    const failures = logLeaks(log, detector, new Map([['fuzz-13-5', request]]));
    expect(failures.map((f) => [f.request?.index, f.detail.split(':')[0]])).toEqual([
      [5, 'RUT 1'],
      [undefined, 'API key'],
    ]);
    expect(failures[0].detail).toContain('?rut=«RUT 1»');
  });
});
