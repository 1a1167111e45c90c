import { createHash, hash } from 'node:crypto';

/**
 * The Merkle tree of RFC 6962 section 2.1 (RFC 9162 section 2.1): SHA-256,
 * leaves hashed with a 0x00 prefix and interior nodes with 0x01, so that no
 * leaf can pass for a node. Proofs are computed from complete subtrees only
 * (a left-aligned run of 2^level leaves), the unit a log keeps and serves
 * in tiles: a proof for a tree of any size needs O(log n) of them, named in
 * advance by a plan, fetched in one go, then assembled.
 */

export const HASH_SIZE = 32;

/** The root of the empty tree: the hash of the empty string. */
export const EMPTY_ROOT = createHash('sha256').digest();

/*
 * One-shot `crypto.hash` over the prefixed input rather than a `createHash`
 * object per hash: each Hash object is a native handle the young-generation
 * garbage collector has to process, and a proof or a build makes thousands
 * (with them, every scavenge during inclusion proofs took 12 ms, the p99 of a
 * proof 30 ms; bench/README.md, ledger log).
 */
export function leafHash(leaf: Uint8Array): Buffer {
  return hash('sha256', Buffer.concat([LEAF_PREFIX, leaf]), 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) return hash('sha256', Buffer.concat([NODE_PREFIX, left, right]), 'buffer');
  // crypto.hash is synchronous: one input buffer serves every call.
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_SIZE);
  return hash('sha256', NODE_INPUT, 'buffer');
}

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);
const NODE_INPUT = Buffer.concat([NODE_PREFIX, Buffer.alloc(2 * HASH_SIZE)]);

/** A complete subtree: the 2^level leaves from index * 2^level on. Level 0 is a leaf. */
export interface Subtree {
  level: number;
  index: number;
}

/**
 * The complete subtrees the range [start, end) is made of, left to right:
 * the largest aligned ones first. `start` must be aligned to the range's
 * largest power of two, as every range of the RFC's recursion is.
 */
export function subtreesOf(start: number, end: number): Subtree[] {
  const subtrees: Subtree[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level += 1;
    subtrees.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return subtrees;
}

/**
 * One hash of a proof, as the complete subtrees it folds: MTH of a range
 * that is itself complete is one subtree; the right edge of a tree whose
 * size is not a power of two is several, hashed right to left.
 */
export type ProofItem = Subtree[];

/** MTH(D[start:end]) from the hashes of its complete subtrees, in `subtreesOf` order. */
export function foldSubtrees(hashes: readonly Uint8Array[]): Buffer {
  if (hashes.length === 0) return EMPTY_ROOT;
  let hash: Buffer = Buffer.from(hashes[hashes.length - 1]);
  for (let i = hashes.length - 2; i >= 0; i -= 1) hash = nodeHash(hashes[i], hash);
  return hash;
}

/** The largest power of two smaller than n (n > 1). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 9162 2.1.3.1 PATH(m, D[n]): the items of the inclusion proof of leaf `index` in a tree of `size`, leaf to root. */
export function inclusionProofPlan(index: number, size: number): ProofItem[] {
  checkSize(size);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf index ${index} is not in a tree of size ${size}`);
  const path = (m: number, start: number, n: number): ProofItem[] => {
    if (n === 1) return [];
    const k = split(n);
    return m < k ? [...path(m, start, k), subtreesOf(start + k, start + n)] : [...path(m - k, start + k, n - k), subtreesOf(start, start + k)];
  };
  return path(index, 0, size);
}

/** RFC 9162 2.1.4.1 PROOF(m, D[n]): the items of the consistency proof from a tree of `size1` to one of `size2`. */
export function consistencyProofPlan(size1: number, size2: number): ProofItem[] {
  checkSize(size1);
  checkSize(size2);
  if (size1 === 0 || size1 > size2) throw new RangeError(`no consistency proof from a tree of size ${size1} to one of size ${size2}`);
  const subproof = (m: number, start: number, n: number, complete: boolean): ProofItem[] => {
    if (m === n) return complete ? [] : [subtreesOf(start, start + n)];
    const k = split(n);
    return m <= k
      ? [...subproof(m, start, k, complete), subtreesOf(start + k, start + n)]
      : [...subproof(m - k, start + k, n - k, false), subtreesOf(start, start + k)];
  };
  return subproof(size1, 0, size2, true);
}

/** The root of a tree of `size`, as the complete subtrees it is made of. */
export function rootPlan(size: number): ProofItem {
  checkSize(size);
  return subtreesOf(0, size);
}

/** The distinct subtrees a plan needs, to be fetched in one read. */
export function subtreesNeeded(items: readonly ProofItem[]): Subtree[] {
  const seen = new Map<string, Subtree>();
  for (const item of items) for (const subtree of item) seen.set(`${subtree.level}/${subtree.index}`, subtree);
  return [...seen.values()];
}

/** A plan's proof, from the hashes of its subtrees. */
export function assembleProof(items: readonly ProofItem[], hashOf: (subtree: Subtree) => Uint8Array): Buffer[] {
  return items.map((item) => foldSubtrees(item.map(hashOf)));
}

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`not a tree size: ${size}`);
}

/** A proof that does not verify: why, for an auditor's report. */
export class ProofError extends Error {
  override name = 'ProofError';
}

/**
 * RFC 9162 2.1.3.2: the root an inclusion proof leads to from the leaf hash,
 * or a ProofError when the proof cannot belong to a tree of that size.
 */
export function rootFromInclusionProof(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Buffer {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) throw new ProofError(`leaf index ${index} is not in a tree of size ${size}`);
  checkHashes([leaf, ...proof]);
  let fn = index;
  let sn = size - 1;
  let hash: Buffer = Buffer.from(leaf);
  for (const sibling of proof) {
    if (sn === 0) throw new ProofError('the proof is longer than the path to the root');
    if (fn % 2 === 1 || fn === sn) {
      hash = nodeHash(sibling, hash);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      hash = nodeHash(hash, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new ProofError('the proof is shorter than the path to the root');
  return hash;
}

export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): void {
  if (!rootFromInclusionProof(index, size, leaf, proof).equals(root)) throw new ProofError('the inclusion proof leads to another root');
}

/**
 * RFC 9162 2.1.4.2: checks that the tree of `size2` with `root2` extends the
 * tree of `size1` with `root1`; a ProofError says why not. No proof from the
 * empty tree exists (it is consistent with every tree, so one would prove
 * nothing); two trees of one size are consistent when their roots are equal.
 */
export function verifyConsistency(size1: number, size2: number, proof: readonly Uint8Array[], root1: Uint8Array, root2: Uint8Array): void {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) throw new ProofError(`no tree of size ${size2} extends one of size ${size1}`);
  if (size1 === 0) throw new ProofError('a consistency proof from the empty tree proves nothing');
  if (size1 === size2) {
    if (proof.length > 0) throw new ProofError('trees of the same size need an empty proof');
    if (!Buffer.from(root1).equals(root2)) throw new ProofError('trees of the same size have different roots');
    return;
  }
  if (proof.length === 0) throw new ProofError('the proof is empty');
  checkHashes([root1, root2, ...proof]);
  // A first tree that is a complete subtree is its own first node.
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]);
  let sr: Buffer = Buffer.from(path[0]);
  for (const c of path.slice(1)) {
    if (sn === 0) throw new ProofError('the proof is longer than the path to the root');
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new ProofError('the proof is shorter than the path to the root');
  if (!fr.equals(root1)) throw new ProofError('the proof does not lead to the first root');
  if (!sr.equals(root2)) throw new ProofError('the proof does not lead to the second root');
}

function checkHashes(hashes: readonly Uint8Array[]): void {
  if (hashes.some((hash) => hash.length !== HASH_SIZE)) throw new ProofError(`a hash is not ${HASH_SIZE} bytes`);
}
