import { Readable } from 'node:stream';
import Fastify, { FastifyInstance } from 'fastify';
import { Base64Bytes } from '@ledger/platform';
import { applyBase64Decoding } from './base64-members';
import { boundedJsonParser } from './bounded-json';

/** What the route received for each member: decoded bytes (hex) and their JSON text, or what else was there. */
type Seen = Record<string, unknown>;

function describeValue(value: unknown): unknown {
  if (value instanceof Base64Bytes) return value.bytes === undefined ? { notBase64: true } : { hex: value.bytes.toString('hex'), json: [...value.jsonPieces()].join('') };
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(describeValue);
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, describeValue(member)]));
}

async function service(bodyLimit?: number): Promise<FastifyInstance> {
  const fastify = Fastify();
  applyBase64Decoding(fastify);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, boundedJsonParser(fastify));
  fastify.post('/decoded', { config: { decodesBase64: true }, ...(bodyLimit ? { bodyLimit } : {}) }, async (request) => describeValue(request.body));
  fastify.post('/plain', async (request) => describeValue(request.body));
  await fastify.ready();
  return fastify;
}

/** The body sent in pieces of `size` bytes, so that every boundary falls somewhere inside a string, a key or an escape. */
function inPieces(text: string, size: number): Readable {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return Readable.from(pieces);
}

async function post(fastify: FastifyInstance, text: string, size = Number.MAX_SAFE_INTEGER, path = '/decoded'): Promise<{ status: number; body: Seen }> {
  const answer = await fastify.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) }, payload: inPieces(text, size) });
  return { status: answer.statusCode, body: answer.json() };
}

describe('base64 members decoded as the body arrives', () => {
  let fastify: FastifyInstance;
  beforeAll(async () => {
    fastify = await service();
  });
  afterAll(() => fastify.close());

  it('decodes contentBase64 at any depth, whatever the pieces the body arrives in, and passes the rest as it was', async () => {
    const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919 + (i >> 8)) % 256));
    const text = JSON.stringify({ a: 'contentBase64', items: [{ evidence: { kind: 'x', contentBase64: bytes.toString('base64'), n: 1 } }], 'b\\"': 'c' });
    for (const size of [1, 2, 3, 5, 7, 64, 1000, 65_536, Number.MAX_SAFE_INTEGER]) {
      const { status, body } = await post(fastify, text, size);
      expect(status).toBe(200);
      expect(body).toEqual({ a: 'contentBase64', items: [{ evidence: { kind: 'x', contentBase64: { hex: bytes.toString('hex'), json: JSON.stringify(bytes.toString('base64')) }, n: 1 } }], 'b\\"': 'c' });
    }
  });

  it('decodes digits that fill their blocks exactly, the last one ending the string', async () => {
    const bytes = Buffer.from(Array.from({ length: 2 * 49_152 }, (_, i) => (i * 13) % 251));
    const { body } = await post(fastify, JSON.stringify({ contentBase64: bytes.toString('base64') }), 65_536);
    expect(body.contentBase64).toEqual({ hex: bytes.toString('hex'), json: JSON.stringify(bytes.toString('base64')) });
  });

  it('keeps the padding as sent, none, the usual or more, in the text it hashes', async () => {
    for (const sent of ['QQ', 'QQ==', 'QQ=====', 'QUJD', 'QUJD=']) {
      const { body } = await post(fastify, `{"contentBase64":"${sent}"}`, 2);
      expect(body.contentBase64).toEqual({ hex: '41' + (sent.startsWith('QUJD') ? '4243' : ''), json: `"${sent}"` });
    }
  });

  it('reads the escapes JSON allows, in the key and in the digits', async () => {
    const { body } = await post(fastify, '{"content\\u0042ase64" : "Pz8\\/\\u0041A=="}', 3);
    expect(body.contentBase64).toEqual({ hex: Buffer.from('Pz8/AA==', 'base64').toString('hex'), json: '"Pz8/AA=="' });
  });

  it('marks text that is not canonical base64, for validation to refuse', async () => {
    for (const sent of ['', '=', 'Q', 'QR==', 'QUJ', 'QU JD', 'QQ==QQ', 'QQ\\n', '-_8', 'QUJD\\u00e9', 'QUJD\\"']) {
      const { status, body } = await post(fastify, `{"contentBase64":"${sent}"}`, 1);
      expect({ sent, status, value: body.contentBase64 }).toEqual({ sent, status: 200, value: { notBase64: true } });
    }
  });

  it('leaves a member that is not a string as JSON says, and refuses a body cut inside the digits as malformed', async () => {
    expect((await post(fastify, '{"contentBase64":12,"x":{"contentBase64":null}}')).body).toEqual({ contentBase64: 12, x: { contentBase64: null } });
    const cut = await post(fastify, '{"contentBase64":"QUJD');
    expect(cut.status).toBe(400);
  });

  it('decodes nothing on a route that is not marked', async () => {
    expect((await post(fastify, '{"contentBase64":"QUJD"}', 2, '/plain')).body).toEqual({ contentBase64: 'QUJD' });
  });

  it("counts the bytes received, not those passed on, against the route's body limit", async () => {
    const small = await service(1_000);
    const text = JSON.stringify({ contentBase64: Buffer.alloc(3_000).toString('base64') });
    const answer = await small.inject({ method: 'POST', url: '/decoded', headers: { 'content-type': 'application/json' }, payload: inPieces(text, 100) });
    expect(answer.statusCode).toBe(413);
    await small.close();
  });
});
