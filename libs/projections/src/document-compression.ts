import { deflateSync, inflateSync } from 'node:zlib';
import type { AnyDocumentProjection } from './projection';

/**
 * A projection's documents stored deflated (zlib format), each started with
 * `dictionary`, an example document: what a document shares with it (field
 * names, the values of enumerations, the wording of a text) costs a few
 * bytes instead of its length (decision 0084).
 */
export interface DocumentCompression {
  dictionary: string;
}

/**
 * Deflate's window, 8 KB: it holds the dictionary and all but the longest
 * documents, and costs a quarter of the default's set-up on each call
 * (measured: the same size as a 32 KB window for consent documents, and 40 %
 * faster).
 */
const WINDOW_BITS = 13;
/** zlib keeps only the last window less 262 bytes of a dictionary. */
const MAX_DICTIONARY_BYTES = (1 << WINDOW_BITS) - 262;
/** The first byte of a zlib stream with this window (CMF: deflate, 8 KB), which no JSON text starts with. */
const DEFLATED = 0x58;

/**
 * How a projection's documents are held in Redis: their canonical JSON, or
 * that deflated when the projection asks for compression. Decoding tells the
 * two apart by the first byte, so a model written before its projection
 * compressed (a rolling deploy) is still read. zlib checks the dictionary:
 * a document deflated with another fails to decode instead of reading wrong.
 */
export class DocumentCodec {
  private readonly dictionary: Buffer | undefined;

  constructor(compression: DocumentCompression | undefined) {
    this.dictionary = compression && Buffer.from(compression.dictionary);
    if (this.dictionary && this.dictionary.length > MAX_DICTIONARY_BYTES) {
      throw new Error(`a document dictionary is at most ${MAX_DICTIONARY_BYTES} bytes, not ${this.dictionary.length}`);
    }
  }

  encode(text: string): Buffer {
    if (!this.dictionary) return Buffer.from(text);
    return deflateSync(text, { dictionary: this.dictionary, windowBits: WINDOW_BITS });
  }

  decode(stored: Buffer): string {
    if (stored[0] !== DEFLATED) return stored.toString('utf8');
    if (!this.dictionary) throw new Error('a deflated document in a model whose projection does not compress');
    return inflateSync(stored, { dictionary: this.dictionary, windowBits: WINDOW_BITS }).toString('utf8');
  }
}

const codecs = new WeakMap<AnyDocumentProjection, DocumentCodec>();

/** The projection's codec, made once. */
export function documentCodec(projection: AnyDocumentProjection): DocumentCodec {
  let codec = codecs.get(projection);
  if (!codec) {
    codec = new DocumentCodec(projection.compression);
    codecs.set(projection, codec);
  }
  return codec;
}
