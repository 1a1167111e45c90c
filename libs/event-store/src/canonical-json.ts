import { createHash, randomUUID } from 'node:crypto';
import { Base64Bytes, SLICE_BYTES, nextTurn, sha256Hex } from '@ledger/platform';

/**
 * JSON with sorted keys and no whitespace. It follows JSON.stringify for
 * everything else (toJSON, undefined members dropped, undefined in arrays as
 * null), so encoding a value before it is stored gives the same result as
 * encoding what is read back.
 *
 * The event store no longer hashes this form (see integrity.ts: the chain
 * covers the stored JSON text); it stays for callers that need a
 * key-order-independent digest of a value (request hashes, projection digests).
 *
 * A value of plain objects, class instances and arrays nested at most
 * MAX_NATIVE_DEPTH deep (every projection document, every request body, as
 * parsed or as the validation pipe builds it) is copied with its keys in
 * sorted order where they are not, and written by JSON.stringify: the
 * native encoder is several times faster than the walk below, and the
 * rebuild of the read model encodes every document it writes (issue 18).
 * Anything else (deeper nesting, toJSON, boxed primitives, integer-like keys
 * out of order, a value that contains itself) goes through the walk, which
 * uses a stack of its own rather than recursion, so no nesting, however
 * deep, can overflow the call stack; a value that contains itself is refused
 * with a TypeError, as JSON.stringify refuses it.
 */
export function canonicalJson(value: unknown): string {
  const ordered = inKeyOrder(value, 0);
  // JSON.stringify gives undefined for what JSON cannot write at the top (undefined, a function): the walk writes null.
  return ordered === NOT_NATIVE ? walk(value) : (JSON.stringify(ordered) ?? 'null');
}

/** Deeper than this, the native encoder's recursion is not relied on; also where a value that contains itself is found out. */
const MAX_NATIVE_DEPTH = 64;
const NOT_NATIVE = Symbol('not native');
/** A key JavaScript enumerates before the others, in numeric order, wherever it was inserted. */
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * `value` with every object's keys in sorted order, so that JSON.stringify
 * writes its canonical form: the same object where they already are (a
 * document read back from its canonical text), a copy where not. NOT_NATIVE
 * where JSON.stringify could not be made to write it exactly as `walk` does.
 */
function inKeyOrder(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // toJSON (a Date) decides what is written: the walk asks it.
  if (depth > MAX_NATIVE_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_NATIVE;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = inKeyOrder(value[i], depth + 1);
      if (item === NOT_NATIVE) return NOT_NATIVE;
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  // Boxed primitives: JSON.stringify writes the primitive, the walk their own enumerable keys.
  if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt || value instanceof Symbol) return NOT_NATIVE;
  // A class instance (a request body as the validation pipe builds it) is written as a plain copy: its own enumerable keys, as both encoders write them.
  const prototype = Object.getPrototypeOf(value);
  const plain = prototype === Object.prototype || prototype === null;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
  if (!sorted) {
    keys.sort();
    // An object enumerates these first, in numeric order: "10" cannot be put before "9".
    if (keys.some((key) => ARRAY_INDEX.test(key))) return NOT_NATIVE;
  }
  // A member named __proto__ (JSON.parse makes one) cannot be copied by assignment.
  if (keys.includes('__proto__')) return NOT_NATIVE;
  let copy: Record<string, unknown> | undefined = sorted && plain ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const member = record[keys[i]];
    const ordered = inKeyOrder(member, depth + 1);
    if (ordered === NOT_NATIVE) return NOT_NATIVE;
    if (copy === undefined && ordered !== member) {
      // Sorted, but a member needs a copy: copy the members before it as they are.
      copy = {};
      for (let j = 0; j < i; j++) copy[keys[j]] = record[keys[j]];
    }
    if (copy !== undefined) copy[keys[i]] = ordered;
  }
  return copy ?? value;
}

/** canonicalJson by walking the value with a stack of its own. */
function walk(value: unknown): string {
  const open: Container[] = [];
  const ancestors = new Set<object>();
  let out = '';
  let next: unknown = encodable(value);
  for (;;) {
    if (typeof next === 'object' && next !== null) {
      if (ancestors.has(next)) throw new TypeError('canonicalJson: the value contains itself');
      ancestors.add(next);
      if (Array.isArray(next)) {
        out += '[';
        open.push({ value: next, keys: undefined, index: 0, written: 0 });
      } else {
        out += '{';
        open.push({ value: next, keys: Object.keys(next).sort(), index: 0, written: 0 });
      }
    } else {
      // An array element or the whole value: what JSON omits is written as null there.
      out += JSON.stringify(next) ?? 'null';
    }

    let found = false;
    while (!found && open.length > 0) {
      const container = open[open.length - 1];
      if (container.keys === undefined) {
        const items = container.value as unknown[];
        if (container.index < items.length) {
          if (container.index > 0) out += ',';
          next = encodable(items[container.index]);
          container.index += 1;
          found = true;
        }
      } else {
        const record = container.value as Record<string, unknown>;
        while (container.index < container.keys.length) {
          const key = container.keys[container.index];
          container.index += 1;
          const member = encodable(record[key]);
          if (isOmitted(member)) continue;
          out += `${container.written > 0 ? ',' : ''}${JSON.stringify(key)}:`;
          container.written += 1;
          next = member;
          found = true;
          break;
        }
      }
      if (!found) {
        out += container.keys === undefined ? ']' : '}';
        ancestors.delete(container.value);
        open.pop();
      }
    }
    if (!found) return out;
  }
}

/** An array or object being written: `keys` (sorted) for an object, undefined for an array. */
interface Container {
  value: object;
  keys: string[] | undefined;
  index: number;
  written: number;
}

/** The value JSON writes in place of `value`: what its toJSON returns, if it has one. */
function encodable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const withToJson = value as { toJSON?: () => unknown };
  return typeof withToJson.toJSON === 'function' ? withToJson.toJSON() : value;
}

/** What JSON leaves out of an object (and writes as null in an array). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/**
 * SHA-256 (hex) of `canonicalJson(value)`, the digest of a request body:
 * the same digest, but every Base64Bytes in the value (evidence bytes sent
 * base64) is fed to the hash in pieces instead of written out, so a body
 * carrying 15 MB of evidence is hashed without building 15 MB of text, and
 * about a slice of it per turn of the event loop, so hashing it never holds
 * other requests up.
 */
export async function canonicalJsonSha256(value: unknown): Promise<string> {
  const held: Base64Bytes[] = [];
  const marker = { prefix: '' };
  const text = canonicalJson(withPlaceholders(value, held, marker, 0));
  if (held.length === 0) return sha256Hex(text);
  // Each placeholder is written once, as a JSON string; where, depends on the keys' order.
  const found = held.map((bytes, index) => ({ bytes, quoted: JSON.stringify(`${marker.prefix}${index}`) })).map((h) => ({ ...h, at: text.indexOf(h.quoted) }));
  found.sort((a, b) => a.at - b.at);
  const hash = createHash('sha256');
  let from = 0;
  let sinceTurn = 0;
  for (const { bytes, quoted, at } of found) {
    hash.update(text.slice(from, at));
    for (const piece of bytes.jsonPieces()) {
      hash.update(piece);
      sinceTurn += piece.length;
      if (sinceTurn >= SLICE_BYTES) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    from = at + quoted.length;
  }
  hash.update(text.slice(from));
  return hash.digest('hex');
}

/**
 * `value` with each Base64Bytes replaced by a placeholder string no client
 * can have sent (a NUL and a fresh random id), copied only where one is.
 */
function withPlaceholders(value: unknown, held: Base64Bytes[], marker: { prefix: string }, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_NATIVE_DEPTH) return value;
  if (value instanceof Base64Bytes) {
    if (marker.prefix === '') marker.prefix = `\u0000base64-bytes:${randomUUID()}:`;
    held.push(value);
    return `${marker.prefix}${held.length - 1}`;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = withPlaceholders(value[i], held, marker, depth + 1);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const member = withPlaceholders(record[key], held, marker, depth + 1);
    if (member === record[key]) continue;
    copy ??= { ...record };
    // Defined, not assigned: a member named __proto__ stays a member.
    Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}
