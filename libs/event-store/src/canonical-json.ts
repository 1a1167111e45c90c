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
 * It walks the value with a stack of its own rather than by recursion, so no
 * nesting, however deep, can overflow the call stack; a value that contains
 * itself is refused with a TypeError, as JSON.stringify refuses it.
 */
export function canonicalJson(value: unknown): string {
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
