import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  EMPTY_ROOT,
  ProofError,
  Subtree,
  assembleProof,
  consistencyProofPlan,
  foldSubtrees,
  inclusionProofPlan,
  leafHash,
  nodeHash,
  rootPlan,
  subtreesNeeded,
  verifyConsistency,
  verifyInclusion,
} from './merkle';

const VECTORS = join(__dirname, '..', 'testdata', 'rfc6962');
const b64 = (text: string) => Buffer.from(text, 'base64');

function vectors<T>(kind: 'inclusion' | 'consistency'): Array<[string, T]> {
  const cases: Array<[string, T]> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) cases.push([path.slice(VECTORS.length + 1), JSON.parse(readFileSync(path, 'utf8')) as T]);
    }
  };
  walk(join(VECTORS, kind));
  return cases;
}

interface InclusionCase {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  wantErr: boolean;
}
interface ConsistencyCase {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  wantErr: boolean;
}

/** A tree held whole, for the properties: the hash of any complete subtree, computed from its leaves. */
function treeOf(leaves: Uint8Array[]) {
  const hashes = leaves.map(leafHash);
  const subtree = ({ level, index }: Subtree): Buffer => {
    const at = index * 2 ** level;
    if (level === 0) return hashes[at];
    return nodeHash(subtree({ level: level - 1, index: 2 * index }), subtree({ level: level - 1, index: 2 * index + 1 }));
  };
  return { hashes, subtree, root: (size: number) => foldSubtrees(rootPlan(size).map(subtree)) };
}

/** MTH as RFC 9162 2.1.1 defines it, recursively over the leaf hashes, to check the subtree decomposition against. */
function mth(hashes: Buffer[]): Buffer {
  if (hashes.length === 0) return EMPTY_ROOT;
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(mth(hashes.slice(0, k)), mth(hashes.slice(k)));
}

describe('the RFC 6962 vectors (transparency-dev/merkle test data)', () => {
  const inclusion = vectors<InclusionCase>('inclusion');
  const consistency = vectors<ConsistencyCase>('consistency');

  it('are all read', () => {
    expect(inclusion.length + consistency.length).toBe(196);
  });

  it.each(inclusion)('inclusion %s', (_name, c) => {
    const check = () => verifyInclusion(c.leafIdx, c.treeSize, b64(c.leafHash), (c.proof ?? []).map(b64), b64(c.root));
    if (c.wantErr) expect(check).toThrow(ProofError);
    else expect(check).not.toThrow();
  });

  it.each(consistency)('consistency %s', (_name, c) => {
    const check = () => verifyConsistency(c.size1, c.size2, (c.proof ?? []).map(b64), b64(c.root1), b64(c.root2));
    if (c.wantErr) expect(check).toThrow(ProofError);
    else expect(check).not.toThrow();
  });
});

describe('proofs over random trees', () => {
  const leaves = fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 1, maxLength: 70 });

  it('compute the root RFC 9162 defines, from complete subtrees', () => {
    fc.assert(
      fc.property(leaves, (data) => {
        const tree = treeOf(data);
        return tree.root(data.length).equals(mth(tree.hashes));
      }),
    );
  });

  it('give an inclusion proof that verifies for every leaf, and fails with any bit changed', () => {
    fc.assert(
      fc.property(leaves, fc.nat(), fc.nat(), (data, pick, bit) => {
        const tree = treeOf(data);
        const size = data.length;
        const index = pick % size;
        const plan = inclusionProofPlan(index, size);
        const proof = assembleProof(plan, tree.subtree);
        expect(subtreesNeeded(plan).length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size + 1)));
        verifyInclusion(index, size, tree.hashes[index], proof, tree.root(size));
        if (proof.length === 0) return true;
        const tampered = proof.map((hash) => Buffer.from(hash));
        const flip = bit % (tampered.length * 256);
        tampered[Math.floor(flip / 256)][Math.floor((flip % 256) / 8)] ^= 1 << (flip % 8);
        expect(() => verifyInclusion(index, size, tree.hashes[index], tampered, tree.root(size))).toThrow(ProofError);
        return true;
      }),
    );
  });

  it('give a consistency proof that verifies between any two sizes, and fails with any bit changed or another root', () => {
    fc.assert(
      fc.property(leaves, fc.nat(), fc.nat(), fc.nat(), (data, a, b, bit) => {
        const tree = treeOf(data);
        const size2 = 1 + (a % data.length);
        const size1 = 1 + (b % size2);
        const proof = assembleProof(consistencyProofPlan(size1, size2), tree.subtree);
        verifyConsistency(size1, size2, proof, tree.root(size1), tree.root(size2));
        if (size1 === size2) return true;
        const tampered = proof.map((hash) => Buffer.from(hash));
        const flip = bit % (tampered.length * 256);
        tampered[Math.floor(flip / 256)][Math.floor((flip % 256) / 8)] ^= 1 << (flip % 8);
        expect(() => verifyConsistency(size1, size2, tampered, tree.root(size1), tree.root(size2))).toThrow(ProofError);
        const forked = treeOf(data.map((leaf, i) => (i === size1 - 1 ? Buffer.concat([leaf, Buffer.from([1])]) : leaf)));
        expect(() => verifyConsistency(size1, size2, proof, forked.root(size1), tree.root(size2))).toThrow(ProofError);
        return true;
      }),
    );
  });

  it('refuse to plan what no tree has', () => {
    expect(() => inclusionProofPlan(3, 3)).toThrow(RangeError);
    expect(() => consistencyProofPlan(0, 3)).toThrow(RangeError);
    expect(() => consistencyProofPlan(4, 3)).toThrow(RangeError);
    expect(rootPlan(0)).toEqual([]);
    expect(foldSubtrees([])).toEqual(EMPTY_ROOT);
  });
});
