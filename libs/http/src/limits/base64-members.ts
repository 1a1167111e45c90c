import { randomUUID } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Base64Bytes } from '@ledger/platform';
import { extendRouteConfig } from '../route-config';
import { EVIDENCE_BODY_LIMIT_BYTES } from './body-limit';

/** The member whose string a route marked @EvidenceBytes() decodes as it arrives: evidence's bytes. */
export const BASE64_MEMBER = 'contentBase64';

/**
 * The route takes evidence bytes base64 in `contentBase64` members: its body
 * may be up to EVIDENCE_BODY_LIMIT_BYTES, and each such string is decoded
 * while the body arrives, so the route's DTO receives a Base64Bytes (see
 * @DecodedBase64()) and the service never holds the text.
 */
export const EvidenceBytes = (): MethodDecorator => extendRouteConfig({ bodyLimit: EVIDENCE_BODY_LIMIT_BYTES, decodesBase64: true });

/** What the body stream of a request decoded, by the placeholder that stands for each in the text JSON.parse reads. */
const decodedOf = new WeakMap<FastifyRequest, Map<string, Base64Bytes>>();

/**
 * Installs the decoding on the routes marked @EvidenceBytes(): a
 * `preParsing` hook (Fastify's place for a transformed body stream) through
 * which the body passes to the JSON parser with each `contentBase64` string
 * replaced by a short placeholder; `substituteDecoded` then puts the decoded
 * bytes where the placeholders are. Fastify still applies the route's body
 * limit and checks Content-Length against the bytes that came in
 * (`receivedEncodedLength`).
 */
export function applyBase64Decoding(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (!route.config?.decodesBase64) return;
    const hooks = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [
      ...hooks,
      async (request, _reply, payload) => {
        const decoded = new Map<string, Base64Bytes>();
        decodedOf.set(request, decoded);
        const decoding = new Base64MemberDecoder(decoded);
        payload.on('error', (error) => decoding.destroy(error));
        return payload.pipe(decoding);
      },
    ];
  });
}

/** `body` as parsed, with the decoded bytes where the request's placeholders are (the body as is for any other route). */
export function substituteDecoded(request: FastifyRequest, body: unknown): unknown {
  const decoded = decodedOf.get(request);
  if (decoded === undefined || decoded.size === 0) return body;
  return substitute(body, decoded);
}

function substitute(value: unknown, decoded: Map<string, Base64Bytes>): unknown {
  if (typeof value === 'string') return decoded.get(value) ?? value;
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  // A parsed body is plain objects and arrays, at most MAX_JSON_DEPTH deep (checked before parsing).
  for (const key of Object.keys(record)) record[key] = substitute(record[key], decoded);
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const EQUALS = 0x3d;
const SLASH = 0x2f;
const U = 0x75;

const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** A key longer than this is not `contentBase64`, however it is escaped (`\u0063` is 6 bytes a letter). */
const LONGEST_KEY_BYTES = 6 * BASE64_MEMBER.length;

/** Base64 digits gathered before they are decoded, a multiple of 4. */
const DIGITS_PER_DECODE = 64 * 1024;

/**
 * A JSON body in, the same body out with the string of every
 * `contentBase64` member replaced by a placeholder, its digits decoded
 * meanwhile into Base64Bytes in `decoded`. Nothing of the body is held but
 * the text around those strings and the decoded bytes.
 *
 * It follows JSON's structure only as far as telling keys from values needs:
 * strings (with their escapes) and the colon after a key. A body that is not
 * JSON passes through to the JSON parser, which refuses it.
 */
class Base64MemberDecoder extends Transform {
  /** What Fastify compares with the body limit and Content-Length: the bytes received, not those passed on. */
  receivedEncodedLength = 0;
  private readonly placeholderPrefix = `\u0000base64:${randomUUID()}:`;
  private state: 'between' | 'string' | 'content' = 'between';
  /** In a string, the bytes of an escape begun in one chunk and ended in another (`\`, `\u00`...). */
  private escape: number[] = [];
  /** The string just closed, when short enough to be a key; null when longer. */
  private lastString: number[] | null = null;
  private stringBytes: number[] | null = [];
  /** The last string closed was the key `contentBase64` and its colon followed: its value, if a string, is decoded. */
  private afterKey: 'none' | 'string' | 'colon' = 'none';
  private content = new ContentDecoder();

  constructor(private readonly decoded: Map<string, Base64Bytes>) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    const out: Buffer[] = [];
    let passFrom = 0;
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i];
      if (this.state === 'content') {
        const end = this.content.take(chunk, i);
        if (end === -1) {
          i = chunk.length;
          passFrom = chunk.length;
          break;
        }
        i = end;
        passFrom = end + 1;
        this.state = 'between';
        out.push(Buffer.from(JSON.stringify(this.placeholderFor(this.content.finish()))));
        this.content = new ContentDecoder();
        continue;
      }
      if (this.state === 'string') {
        this.inString(byte);
        continue;
      }
      if (isWhitespace(byte)) continue;
      if (byte === QUOTE) {
        if (this.afterKey === 'colon') {
          out.push(chunk.subarray(passFrom, i));
          this.state = 'content';
          this.afterKey = 'none';
          continue;
        }
        this.state = 'string';
        this.stringBytes = [];
        this.afterKey = 'none';
        continue;
      }
      this.afterKey = byte === COLON && this.afterKey === 'string' ? 'colon' : 'none';
    }
    if (this.state !== 'content') out.push(chunk.subarray(passFrom));
    callback(null, out.length === 1 ? out[0] : Buffer.concat(out));
  }

  override _flush(callback: TransformCallback): void {
    // An unterminated content string: what was decoded is dropped, and the JSON parser refuses the text.
    if (this.state === 'content') this.push(Buffer.from('"'));
    callback();
  }

  /** One byte of a string that is not decoded (a key, or any other value): only its end and, for a short one, its text matter. */
  private inString(byte: number): void {
    if (this.escape.length > 0 || byte === BACKSLASH) {
      this.escape.push(byte);
      this.stringBytes?.push(byte);
      if (escapeComplete(this.escape)) this.escape = [];
    } else if (byte === QUOTE) {
      this.state = 'between';
      this.lastString = this.stringBytes;
      this.afterKey = this.lastString !== null && isBase64MemberName(this.lastString) ? 'string' : 'none';
    } else {
      this.stringBytes?.push(byte);
    }
    if (this.stringBytes !== null && this.stringBytes.length > LONGEST_KEY_BYTES) this.stringBytes = null;
  }

  private placeholderFor(bytes: Base64Bytes): string {
    const placeholder = `${this.placeholderPrefix}${this.decoded.size}`;
    this.decoded.set(placeholder, bytes);
    return placeholder;
  }
}

/** Whether the bytes of an escape (from its backslash) are all there: `\"`, `\n`... or `\u` and four more. */
function escapeComplete(escape: number[]): boolean {
  return escape.length >= 2 && (escape[1] !== U || escape.length === 6);
}

/** Whether a string's raw bytes (escapes included) spell `contentBase64`. */
function isBase64MemberName(raw: number[]): boolean {
  if (!raw.includes(BACKSLASH)) return raw.length === BASE64_MEMBER.length && Buffer.from(raw).toString('latin1') === BASE64_MEMBER;
  try {
    return JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) === BASE64_MEMBER;
  } catch {
    return false;
  }
}

/**
 * The digits of one base64 string as they arrive, decoded in blocks; the
 * escapes JSON allows for them (`\/`, `\u0041`) read as the characters they
 * stand for. A block is base64 when Node's decoder gives back exactly its
 * bytes and encoding them writes exactly its text: the standard alphabet
 * only (Node's decoder would skip a space and take `-` and `_`), and in the
 * last block zero unused bits. Anything else makes the string "not base64":
 * its bytes are then only skipped to its end.
 */
class ContentDecoder {
  private readonly blocks: Buffer[] = [];
  private digits = Buffer.allocUnsafe(DIGITS_PER_DECODE);
  private held = 0;
  private padding = 0;
  private valid = true;
  private escape: number[] = [];

  /** Takes the string's bytes from `start`: the index of its closing quote, or -1 when the chunk ends first. */
  take(chunk: Buffer, start: number): number {
    let i = start;
    while (i < chunk.length) {
      if (this.escape.length === 0 && this.valid && this.padding === 0) {
        // Almost every byte: a run up to the next quote, escape or padding, copied as it is and checked when decoded.
        const end = Math.min(endOfRun(chunk, i, QUOTE), endOfRun(chunk, i, BACKSLASH), endOfRun(chunk, i, EQUALS));
        this.run(chunk, i, end);
        i = end;
        if (i === chunk.length) return -1;
      }
      const byte = chunk[i];
      if (this.escape.length > 0 || byte === BACKSLASH) {
        this.escape.push(byte);
        if (escapeComplete(this.escape)) {
          this.character(escapedCharacter(this.escape));
          this.escape = [];
        }
      } else if (byte === QUOTE) {
        return i;
      } else {
        this.character(byte);
      }
      i += 1;
    }
    return -1;
  }

  finish(): Base64Bytes {
    if (this.valid && this.held > 0) this.decodeHeld();
    // No digits at all is not base64 either.
    return this.valid && this.blocks.length > 0 ? new Base64Bytes(Buffer.concat(this.blocks), this.padding) : new Base64Bytes();
  }

  /** `chunk[from..to)`, before any padding. */
  private run(chunk: Buffer, from: number, to: number): void {
    while (from < to && this.valid) {
      const count = Math.min(to - from, DIGITS_PER_DECODE - this.held);
      chunk.copy(this.digits, this.held, from, from + count);
      this.held += count;
      from += count;
      if (this.held === DIGITS_PER_DECODE) this.decodeHeld();
    }
  }

  /** One character of the string, by its code (-1 for an escape that stands for no ASCII character). */
  private character(code: number): void {
    if (!this.valid) return;
    if (code === EQUALS) {
      this.padding += 1;
    } else if (code < 0 || this.padding > 0) {
      // No character base64 has, or a digit after padding.
      this.refuse();
    } else {
      this.digits[this.held] = code;
      this.held += 1;
      if (this.held === DIGITS_PER_DECODE) this.decodeHeld();
    }
  }

  /** Decodes the digits held (a multiple of 4 but in the last block), or finds they are not base64. */
  private decodeHeld(): void {
    const text = this.digits.toString('latin1', 0, this.held);
    const bytes = Buffer.from(text, 'base64');
    this.held = 0;
    if (bytes.length === 0 || bytes.toString('base64').replace(/=+$/, '') !== text) return this.refuse();
    this.blocks.push(bytes);
  }

  /** What was decoded is let go at once. */
  private refuse(): void {
    this.valid = false;
    this.blocks.length = 0;
  }
}

/** Where the first `byte` from `from` is, or the chunk's end: a native search, not a loop over bytes. */
function endOfRun(chunk: Buffer, from: number, byte: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 ? chunk.length : at;
}

/** The character a complete escape stands for, or a byte that is no base64 digit when it stands for none. */
function escapedCharacter(escape: number[]): number {
  if (escape[1] === SLASH) return SLASH;
  if (escape[1] !== U) return -1;
  const hex = Buffer.from(escape.slice(2)).toString('latin1');
  return /^[0-9a-fA-F]{4}$/.test(hex) && Number.parseInt(hex, 16) < 0x80 ? Number.parseInt(hex, 16) : -1;
}
