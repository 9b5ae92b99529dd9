// The tree code against an independent RFC 9162 implementation (test/transparency/rfc9162.ts): every proof for
// every index and size up to 48 is the RFC's own, byte for byte, and passes the independent verifier.
import { describe, expect, it } from 'vitest';
import * as rfc from '../../../test/transparency/rfc9162.js';
import {
  appendLeaves,
  consistencyRanges,
  foldRange,
  frontierOf,
  inclusionRanges,
  leafHash,
  nodeKey,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from './merkle.js';

function build(count: number, batches: number[] = [count]) {
  const data = Array.from({ length: count }, (_, i) => Buffer.from(`{"n":${i}}`));
  const leaves = data.map((d) => leafHash(d));
  const nodes = new Map<string, Buffer>();
  let size = 0;
  let frontier: Buffer[] = [];
  for (const b of batches) {
    const grown = appendLeaves(size, frontier, leaves.slice(size, size + b));
    for (const n of grown.made) nodes.set(nodeKey(n), n.hash);
    // The stored frontier is what the next append reads back.
    expect(frontierOf(grown.size).map((n) => nodes.get(nodeKey(n)))).toEqual(grown.frontier);
    size = grown.size;
    frontier = grown.frontier;
  }
  return { data, leaves, nodes, root: rootOf(frontier) };
}

describe('RFC 9162 Merkle tree', () => {
  it('hashes leaves and the empty tree as the RFC does', () => {
    expect(leafHash(Buffer.from('x')).equals(rfc.leaf(Buffer.from('x')))).toBe(true);
    expect(rootOf([]).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('appends in any batches to the same root as the RFC definition', () => {
    for (const n of [1, 2, 3, 7, 8, 9, 31, 64, 65, 100]) {
      const whole = build(n);
      expect(whole.root.equals(rfc.mth(whole.leaves))).toBe(true);
      const ones = build(n, Array.from({ length: n }, () => 1));
      expect(ones.root.equals(whole.root)).toBe(true);
      const odd = build(n, [Math.ceil(n / 3), Math.ceil(n / 3), n - 2 * Math.ceil(n / 3)].filter((x) => x > 0));
      expect(odd.root.equals(whole.root)).toBe(true);
    }
  });

  it('builds inclusion and consistency proofs equal to the RFC and accepted by an independent verifier', () => {
    const { leaves, nodes } = build(48);
    for (let size = 1; size <= 48; size++) {
      const root = rfc.mth(leaves.slice(0, size));
      expect(foldRange(0, size, nodes).equals(root)).toBe(true);
      for (let m = 0; m < size; m++) {
        const hashes = inclusionRanges(m, size).map(([lo, hi]) => foldRange(lo, hi, nodes));
        expect(hashes).toEqual(rfc.path(m, leaves.slice(0, size)));
        expect(rfc.checkInclusion(m, size, leaves[m]!, hashes, root)).toBe(true);
        expect(verifyInclusion(m, size, leaves[m]!, hashes, root)).toBe(true);
        // A different leaf does not verify.
        expect(rfc.checkInclusion(m, size, leaves[(m + 1) % 48]!, hashes, root)).toBe(false);
      }
      for (let first = 1; first <= size; first++) {
        const hashes = consistencyRanges(first, size).map(([lo, hi]) => foldRange(lo, hi, nodes));
        expect(hashes).toEqual(rfc.proof(first, leaves.slice(0, size)));
        const firstRoot = rfc.mth(leaves.slice(0, first));
        expect(rfc.checkConsistency(first, size, hashes, firstRoot, root)).toBe(true);
        expect(verifyConsistency(first, size, hashes, firstRoot, root)).toBe(true);
        if (first < size) expect(verifyConsistency(first, size, hashes, root, root)).toBe(false);
      }
    }
  });
});
