// RFC 9162 §2.1 Merkle tree hashing over the public log, on complete subtrees kept in the database.
//
// A complete subtree is addressed by (level, index): it covers leaves [index·2^level, (index+1)·2^level). Every
// complete subtree of the tree is stored once, when its last leaf is appended (leaves are level 0), so appending
// costs O(1) amortised writes and at most log₂ n reads, and the hash of any range the RFC's recursion names is the
// right-to-left fold of at most log₂ n stored nodes. A proof first names the nodes it needs (pure, below), reads
// them in one query, then folds them.
import { createHash } from 'node:crypto';

export const HASH_SIZE = 32;

export function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH({d}) = SHA-256(0x00 || d). */
export const leafHash = (entry: Uint8Array): Buffer => sha256(LEAF_PREFIX, entry);
/** MTH(D[n]) = SHA-256(0x01 || MTH(left) || MTH(right)). */
export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer => sha256(NODE_PREFIX, left, right);
/** The hash of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT = sha256();

export interface NodeId {
  level: number;
  index: number;
}

export const nodeKey = (n: NodeId) => `${n.level}:${n.index}`;

export const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.round(Math.log2(n)) === n;

/** The largest power of two strictly less than n (n ≥ 2), the RFC's k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees whose fold is MTH(D[lo:hi]), largest (leftmost) first. The RFC's recursion only names
 * ranges whose start is aligned to a power of two at least as large as the range, so the greedy split is exact.
 */
export function rangeNodes(lo: number, hi: number): NodeId[] {
  const out: NodeId[] = [];
  let at = lo;
  while (at < hi) {
    let level = 0;
    // The largest aligned block starting at `at` that fits in [at, hi).
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= hi) level++;
    out.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return out;
}

/** A proof as the ranges whose hashes it lists, in order (leaf side first). */
export type Range = [lo: number, hi: number];

/** RFC 9162 §2.1.3.1 PATH(m, D[lo:hi]). */
export function inclusionRanges(m: number, size: number): Range[] {
  const out: Range[] = [];
  const path = (lo: number, hi: number) => {
    if (hi - lo <= 1) return;
    const k = splitPoint(hi - lo);
    if (m < lo + k) {
      path(lo, lo + k);
      out.push([lo + k, hi]);
    } else {
      path(lo + k, hi);
      out.push([lo, lo + k]);
    }
  };
  path(0, size);
  return out;
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]) = SUBPROOF(m, D[0:n], true), for 0 < m ≤ n. */
export function consistencyRanges(m: number, size: number): Range[] {
  const out: Range[] = [];
  if (m === size || m === 0) return out;
  const sub = (mm: number, lo: number, hi: number, b: boolean) => {
    const n = hi - lo;
    if (mm === n) {
      if (!b) out.push([lo, hi]);
      return;
    }
    const k = splitPoint(n);
    if (mm <= k) {
      sub(mm, lo, lo + k, b);
      out.push([lo + k, hi]);
    } else {
      sub(mm - k, lo + k, hi, false);
      out.push([lo, lo + k]);
    }
  };
  sub(m, 0, size, true);
  return out;
}

/** Every stored node the ranges need, without repeats. */
export function nodesFor(ranges: Range[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const [lo, hi] of ranges) for (const n of rangeNodes(lo, hi)) seen.set(nodeKey(n), n);
  return [...seen.values()];
}

/** MTH(D[lo:hi]) from stored nodes (a map by nodeKey). */
export function foldRange(lo: number, hi: number, nodes: ReadonlyMap<string, Buffer>): Buffer {
  if (hi <= lo) return EMPTY_ROOT;
  const parts = rangeNodes(lo, hi).map((n) => {
    const h = nodes.get(nodeKey(n));
    if (!h) throw new Error(`tree node ${nodeKey(n)} is missing`);
    return h;
  });
  let acc = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) acc = nodeHash(parts[i]!, acc);
  return acc;
}

/**
 * The right edge of a tree of `size` leaves: its complete subtrees, largest first. Appending needs only these, and
 * their fold is the root.
 */
export const frontierOf = (size: number): NodeId[] => rangeNodes(0, size);

/**
 * Appends leaves to a tree given its frontier, returning every complete subtree made (to store) and the new
 * frontier. Pure: the store reads the frontier once and writes the nodes in one batch.
 */
export function appendLeaves(
  size: number,
  frontier: Buffer[],
  leaves: Buffer[],
): { made: { level: number; index: number; hash: Buffer }[]; frontier: Buffer[]; size: number } {
  // A stack of (level, hash) for the right edge, largest first, as frontierOf(size) lists it.
  const edge = frontierOf(size).map((n, i) => ({ level: n.level, hash: frontier[i]! }));
  const made: { level: number; index: number; hash: Buffer }[] = [];
  let n = size;
  for (const leaf of leaves) {
    made.push({ level: 0, index: n, hash: leaf });
    let level = 0;
    let hash = leaf;
    let index = n;
    // While this subtree is a right child, it completes its parent with the left sibling on the edge.
    while (index % 2 === 1) {
      const left = edge.pop()!;
      hash = nodeHash(left.hash, hash);
      level++;
      index = (index - 1) / 2;
      made.push({ level, index, hash });
    }
    edge.push({ level, hash });
    n++;
  }
  return { made, frontier: edge.map((e) => e.hash), size: n };
}

/** The root of a tree from its frontier. */
export function rootOf(frontier: Buffer[]): Buffer {
  if (frontier.length === 0) return EMPTY_ROOT;
  let acc = frontier[frontier.length - 1]!;
  for (let i = frontier.length - 2; i >= 0; i--) acc = nodeHash(frontier[i]!, acc);
  return acc;
}

// Verification (RFC 9162 §2.1.3.2 and §2.1.4.2), for `credence log:verify` and the service's own checks.

/** Whether `proof` shows the leaf at `index` in the tree of `size` leaves with `root`. */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, proof: Uint8Array[], root: Uint8Array): boolean {
  if (index >= size || index < 0) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** Whether `proof` shows the tree of `size1` leaves with `root1` is a prefix of the one of `size2` with `root2`. */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (size1 > size2 || size1 < 0) return false;
  if (size1 === size2) return proof.length === 0 && Buffer.from(root1).equals(root2);
  if (size1 === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  let path: Buffer[] = proof.map((p) => Buffer.from(p));
  // If size1 is an exact power of two, its root is the first node of the path.
  if (isPowerOfTwo(size1)) path = [Buffer.from(root1), ...path];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = path[0]!;
  let sr: Buffer = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(root1) && sr.equals(root2) && sn === 0;
}
