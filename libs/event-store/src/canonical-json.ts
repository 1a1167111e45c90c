/**
 * JSON with sorted keys and no whitespace. It follows JSON.stringify for
 * everything else (toJSON, undefined members dropped, undefined in arrays as
 * null), so encoding a value before it is stored gives the same result as
 * encoding what is read back.
 *
 * The event store no longer hashes this form (see integrity.ts: the chain
 * covers the stored JSON text); it stays for callers that need a
 * key-order-independent digest of a value (request hashes, projection digests).
 */
export function canonicalJson(value: unknown): string {
  return writeJson(value) ?? 'null';
}

/**
 * JSON.stringify's rules with sorted keys: undefined for what JSON omits
 * (undefined, functions, symbols). Loops rather than array helpers: this runs
 * on hot paths.
 */
function writeJson(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return writeJson(withToJson.toJSON());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out += ',';
      out += writeJson(value[i]) ?? 'null';
    }
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const member = writeJson(record[key]);
    if (member === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${member}`;
  }
  return `${out}}`;
}
