/**
 * How many bytes each piece of `jsonPieces` encodes: a multiple of 3, so no
 * piece but the last ends in padding, and small enough that no piece is a
 * large string.
 */
const BYTES_PER_PIECE = 3 * 16 * 1024;

/**
 * What text that was not base64 is hashed as, whatever it was: such a
 * request is refused by validation, which may run after a request's hash is
 * taken (an Idempotency-Key's), and its text is not kept. Two such requests
 * that differ only there are one request to an Idempotency-Key, and are
 * refused alike.
 */
const NOT_BASE64 = JSON.stringify('\u0000not base64');

/**
 * Bytes a client sent base64-encoded in a JSON string (evidence's
 * `contentBase64`), decoded while the request body arrived so that the
 * service never holds the text and the bytes together: a 15 MB upload is
 * 11 MB of bytes, not 15 MB of text plus its copies plus the bytes.
 *
 * Only canonical base64 is decoded: the standard alphabet, the unused bits
 * of the last character zero, `=` only at the end (any number of them, or
 * none, as before decision 0066). Anything else is kept as "not base64",
 * with no bytes, for validation to refuse with the field's path.
 *
 * Its fields are private so that class-transformer, which copies a class
 * instance's own keys, never copies the bytes (see @DecodedBase64()).
 */
export class Base64Bytes {
  readonly #bytes: Buffer | undefined;
  readonly #padding: number;

  /** No bytes: text that was not canonical base64. */
  constructor(bytes?: Buffer, padding = 0) {
    this.#bytes = bytes !== undefined && bytes.length > 0 ? bytes : undefined;
    this.#padding = padding;
  }

  /** The decoded bytes; undefined when the text was not canonical base64 or was empty. */
  get bytes(): Buffer | undefined {
    return this.#bytes;
  }

  /**
   * The JSON string exactly as it was sent (its canonical spelling, with as
   * many `=` as were sent), quotes included, in pieces of about 64 KB: what
   * a request's hash is fed instead of the whole text, which is never built.
   * For text that was not base64, NOT_BASE64.
   */
  *jsonPieces(): Generator<string> {
    const bytes = this.#bytes;
    if (bytes === undefined) {
      yield NOT_BASE64;
      return;
    }
    yield '"';
    for (let start = 0; start < bytes.length; start += BYTES_PER_PIECE) {
      const piece = bytes.subarray(start, start + BYTES_PER_PIECE).toString('base64');
      yield start + BYTES_PER_PIECE < bytes.length ? piece : piece.replace(/=+$/, '');
    }
    yield '='.repeat(this.#padding);
    yield '"';
  }

  /** What the client sent, whole: JSON's meaning of the value (prefer `jsonPieces`, which never builds it). */
  toJSON(): string {
    return JSON.parse([...this.jsonPieces()].join('')) as string;
  }
}
