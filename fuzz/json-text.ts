/**
 * Request bodies as text. Hostile shapes (nesting thousands deep, tens of
 * thousands of keys, `__proto__` as an own key, numbers JSON can write but
 * JavaScript cannot hold) cannot be built as objects and handed to
 * JSON.stringify, so they travel as ready-made text inside an otherwise
 * ordinary value.
 */
export class RawJson {
  constructor(
    readonly text: string,
    /** How the value reads in a reproduction: `{"a":{"a":… (depth 100000)`. */
    readonly description: string,
  ) {}
}

export type JsonLike = null | boolean | number | string | RawJson | JsonLike[] | { [key: string]: JsonLike };

export function toJsonText(value: JsonLike): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A value as an `application/x-www-form-urlencoded` field or a query value: text as is, anything else as its JSON. */
export function toFieldText(value: JsonLike): string {
  return typeof value === 'string' ? value : toJsonText(value);
}

/** Objects nested `depth` deep: `{"a":{"a":…1…}}`. */
export function deeplyNested(depth: number): RawJson {
  return new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, `{"a":{"a":… (objects nested ${depth} deep)`);
}

/** Arrays nested `depth` deep: `[[[…]]]`. */
export function deeplyNestedArrays(depth: number): RawJson {
  return new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`, `[[[… (arrays nested ${depth} deep)`);
}

/** One object with `count` distinct keys. */
export function manyKeys(count: number): RawJson {
  return new RawJson(`{${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')}}`, `{"k0":0,"k1":1,… (${count} keys)`);
}

/** One array of `count` elements, each `element` (JSON text). */
export function longArray(count: number, element = '0'): RawJson {
  return new RawJson(`[${Array(count).fill(element).join(',')}]`, `[${element},${element},… (${count} elements)`);
}

/** A string of `length` characters. */
export function longString(length: number, unit = 'x'): RawJson {
  return new RawJson(JSON.stringify(unit.repeat(Math.ceil(length / unit.length)).slice(0, length)), `"${unit}${unit}${unit}…" (${length} characters)`);
}
