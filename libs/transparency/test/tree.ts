import { Subtree, assembleProof, consistencyProofPlan, foldSubtrees, leafHash, nodeHash, rootPlan } from '../src';

/** A log's tree over `leaves` held in memory, for tests: roots and consistency proofs from merkle.ts's plans. */
export function memoryTree(leaves: readonly Buffer[]) {
  const hashes = new Map<string, Buffer>();
  const subtree = ({ level, index }: Subtree): Buffer => {
    const key = `${level}/${index}`;
    let hash = hashes.get(key);
    if (!hash) {
      hash = level === 0 ? leafHash(leaves[index]) : nodeHash(subtree({ level: level - 1, index: 2 * index }), subtree({ level: level - 1, index: 2 * index + 1 }));
      hashes.set(key, hash);
    }
    return hash;
  };
  return {
    root: (size: number) => foldSubtrees(rootPlan(size).map(subtree)),
    consistency: (from: number, to: number) => assembleProof(consistencyProofPlan(from, to), subtree),
  };
}
