import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { validationError } from '@ledger/platform';
import { substituteDecoded } from './base64-members';

/** Deeper than any request of the API nests (a grant body: 4 levels), far below what exhausts a recursive walker's stack. */
export const MAX_JSON_DEPTH = 32;

/** Keys and array elements in one body: hundreds in the largest request the API takes (a Multi-Consent decision of 20 items). */
export const MAX_JSON_VALUES = 10_000;

export type JsonShapeRefusal = 'too_deeply_nested' | 'too_many_values';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Why a JSON text must not be parsed: nested deeper than `maxDepth`
 * objects and arrays, or with more than `maxValues` keys and array elements
 * in all. Undefined when its shape is within both (it may still be
 * malformed: JSON.parse says so afterwards).
 *
 * One pass over the bytes that builds nothing, so a refused body costs no
 * more memory than its own bytes: the shape of a body, not its size, is what
 * made a 10 MB body of empty objects take gigabytes and minutes to refuse.
 * Structural characters are ASCII, and no byte of a multi-byte UTF-8
 * sequence is, so the bytes need no decoding.
 */
export function jsonShapeRefusal(body: Buffer, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): JsonShapeRefusal | undefined {
  let depth = 0;
  let values = 0;
  // Just after `{` or `[`: the next character says whether the container has a first member.
  let opened = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (byte === SPACE || byte === TAB || byte === LF || byte === CR) continue;
    if (opened) {
      opened = false;
      if (byte !== CLOSE_BRACE && byte !== CLOSE_BRACKET) values += 1;
    }
    if (byte === QUOTE) {
      i = closingQuote(body, i);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) return 'too_deeply_nested';
      opened = true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    } else if (byte === COMMA) {
      values += 1;
    }
    if (values > maxValues) return 'too_many_values';
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `start`, or the end of the body for an unterminated one. */
function closingQuote(body: Buffer, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = body.indexOf(QUOTE, from);
    if (quote === -1) return body.length;
    let backslashes = 0;
    while (body[quote - 1 - backslashes] === BACKSLASH && quote - 1 - backslashes > start) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

const REFUSALS: Record<JsonShapeRefusal, string> = {
  too_deeply_nested: `The JSON body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`,
  too_many_values: `The JSON body has more than ${MAX_JSON_VALUES} keys and array elements.`,
};

/**
 * The parser of every `application/json` body: Fastify's own (with its
 * `__proto__` and `constructor` poisoning refused), behind the shape check
 * above, so that nothing nested deeper or larger than the limits reaches
 * JSON.parse, class-transformer, class-validator or canonicalJson. A refusal
 * is 400 VALIDATION_ERROR with the reason `too_deeply_nested` or
 * `too_many_values`. On a route marked @EvidenceBytes(), the decoded bytes
 * then take the places of their placeholders.
 */
export function boundedJsonParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const refusal = jsonShapeRefusal(body);
    if (refusal) {
      done(validationError(REFUSALS[refusal], { reason: refusal }), undefined);
      return;
    }
    void parse(request, body.toString('utf8'), (error, parsed) => (error ? done(error, undefined) : done(null, substituteDecoded(request, parsed))));
  };
}
