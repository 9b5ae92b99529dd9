// An independent RFC 9162 verifier for the tests: its own hashing, tree building and proof walking, written from
// the RFC (§2.1) and the C2SP signed-note spec, importing nothing from src/. The service's proofs must satisfy it.
import { createHash, createPublicKey, verify } from 'node:crypto';

const H = (...parts: (Buffer | number[])[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(Buffer.isBuffer(p) ? p : Buffer.from(p));
  return h.digest();
};
export const leaf = (data: Buffer) => H([0], data);
const node = (l: Buffer, r: Buffer) => H([1], l, r);

/** MTH(D[n]) straight from the RFC's recursive definition, over leaf hashes. */
export function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return H();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k << 1 < leaves.length) k <<= 1;
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** PATH(m, D[n]) from the definition, for comparing byte for byte. */
export function path(m: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  let k = 1;
  while (k << 1 < leaves.length) k <<= 1;
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) from the definition. */
export function proof(m: number, leaves: Buffer[]): Buffer[] {
  const sub = (mm: number, d: Buffer[], b: boolean): Buffer[] => {
    if (mm === d.length) return b ? [] : [mth(d)];
    let k = 1;
    while (k << 1 < d.length) k <<= 1;
    return mm <= k ? [...sub(mm, d.slice(0, k), b), mth(d.slice(k))] : [...sub(mm - k, d.slice(k), false), mth(d.slice(0, k))];
  };
  return m === 0 || m === leaves.length ? [] : sub(m, leaves, true);
}

/** RFC 9162 §2.1.3.2. */
export function checkInclusion(index: number, size: number, leafHash: Buffer, hashes: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of hashes) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = node(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2. */
export function checkConsistency(first: number, second: number, hashes: Buffer[], firstRoot: Buffer, secondRoot: Buffer): boolean {
  if (first === second) return hashes.length === 0 && firstRoot.equals(secondRoot);
  if (first === 0 || first > second || hashes.length === 0) return false;
  const list = Number.isInteger(Math.log2(first)) ? [firstRoot, ...hashes] : [...hashes];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = list[0]!;
  let sr = list[0]!;
  for (const c of list.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = node(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}

/** A C2SP checkpoint note checked against a verifier key `name+hash+base64(0x01||key)`: its size and root. */
export function openCheckpoint(note: string, verifierKey: string): { origin: string; size: number; root: Buffer } {
  // name+hash+key: the name has no '+', the hash is hex, the base64 key may hold '+'.
  const [, name, hashHex, keyB64] = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(verifierKey.trim()) ?? [];
  if (!name || !hashHex || !keyB64) throw new Error('not a verifier key');
  const keyBytes = Buffer.from(keyB64, 'base64');
  if (keyBytes[0] !== 1 || keyBytes.length !== 33) throw new Error('not an Ed25519 verifier key');
  const pub = keyBytes.subarray(1);
  const keyHash = H(Buffer.from(`${name}\n`), [1], pub).subarray(0, 4);
  if (keyHash.toString('hex') !== hashHex) throw new Error('key hash mismatch');
  const cut = note.indexOf('\n\n');
  const text = note.slice(0, cut + 1);
  const sigLine = note
    .slice(cut + 2)
    .split('\n')
    .find((l) => l.startsWith(`\u2014 ${name} `));
  if (!sigLine) throw new Error('no signature line for the key');
  const sig = Buffer.from(sigLine.split(' ')[2]!, 'base64');
  if (!sig.subarray(0, 4).equals(keyHash)) throw new Error('signature key hash mismatch');
  // SPKI DER for a raw Ed25519 key: 12 bytes of header, then the key.
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]);
  if (!verify(null, Buffer.from(text), createPublicKey({ key: spki, format: 'der', type: 'spki' }), sig.subarray(4))) {
    throw new Error('bad signature');
  }
  const [origin, size, root] = text.split('\n');
  return { origin: origin!, size: Number(size), root: Buffer.from(root!, 'base64') };
}
