// The log as C2SP tlog-tiles (https://c2sp.org/tlog-tiles): hash tiles and entry bundles, read from the stored
// complete subtrees (log_nodes) and `changes`. Hash i of tile (L, N) is MTH(D[(N·256+i)·256^L : (N·256+i+1)·256^L]),
// the stored node (level 8·L, index N·256+i); an entry bundle is the entries' bytes, each after its length as a
// big-endian uint16. Entries are opaque bytes here: nothing is read from them.
import { DomainError, invalid, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import * as store from './log.store.js';
import { withheldBetween } from '../changes/change.store.js';
import { withheldBody } from '../changes/served.js';

export const TILE_WIDTH = 256;
export const TILE_HEIGHT = 8;
/** The largest entry a bundle can carry (its length is a uint16). */
export const MAX_BUNDLED_ENTRY = 0xffff;

export interface TileRef {
  /** The tile's level; null for an entry bundle. */
  level: number | null;
  index: number;
  /** 256 for a full tile, 1…255 for a partial one. */
  width: number;
}

/** Encodes a tile index as tlog-tiles path elements: 1234067 → x001/x234/067. */
export function encodeIndex(n: number): string {
  const parts: string[] = [];
  let rest = n;
  do {
    parts.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return parts.map((p, i) => (i < parts.length - 1 ? `x${p}` : p)).join('/');
}

/** The path of a tile under the log's prefix: `tile/L/N[.p/W]` or `tile/entries/N[.p/W]`. */
export function tilePath(t: TileRef): string {
  return `tile/${t.level === null ? 'entries' : t.level}/${encodeIndex(t.index)}${t.width < TILE_WIDTH ? `.p/${t.width}` : ''}`;
}

/** Parses what follows `tile/`; null when it is not a tile path (the route answers 404 then, as a file server would). */
export function parseTilePath(rest: string): TileRef | null {
  const m = /^(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(rest);
  if (!m) return null;
  const level = m[1] === 'entries' ? null : Number(m[1]);
  if (level !== null && level > 63) return null;
  const digits = `${(m[2] ?? '').replace(/[x/]/g, '')}${m[3]}`;
  // No redundant leading groups ("x000/001" is not 1's path); the index must stay an exact integer.
  if (digits.length > 3 && digits.startsWith('000')) return null;
  if (digits.length > 15) return null;
  const width = m[4] === undefined ? TILE_WIDTH : Number(m[4]);
  if (width < 1 || width >= TILE_WIDTH + (m[4] === undefined ? 1 : 0)) return null;
  return { level, index: Number(digits), width };
}

/** How many hashes of level L the tree of `size` entries has (complete subtrees of 256^L leaves). */
export const hashesAt = (level: number, size: number): number => Math.floor(size / TILE_WIDTH ** level);

/** Whether the tile exists in the tree of `size` entries (any partial width up to what the tree holds). */
export function tileExists(t: TileRef, size: number): boolean {
  const available = hashesAt(t.level ?? 0, size) - t.index * TILE_WIDTH;
  return available >= t.width;
}

/** The bytes of a hash tile, from stored nodes. */
export async function hashTile(deps: Deps, t: TileRef & { level: number }): Promise<Buffer> {
  const size = (await store.latestCheckpoint(deps.db))?.tree_size ?? 0;
  if (!tileExists(t, size)) throw notFound('Tile');
  const first = t.index * TILE_WIDTH;
  const hashes = await store.readLevel(deps.db, t.level * TILE_HEIGHT, first, t.width);
  if (hashes.length !== t.width) throw new Error(`transparency log: tile ${tilePath(t)} is missing stored nodes`);
  return Buffer.concat(hashes);
}

/**
 * The bytes of an entry bundle, from `changes`, and whether a decision withheld clear text in one of its entries: such
 * an entry is bundled as public reads serve it (the text replaced by `{"withheld": <decision id>}`), so its bytes no
 * longer hash to its leaf; the level-0 hash tile holds that leaf hash, and /v1/log/entries says which entries these are
 * (docs/decisions/free-text-in-the-log.md). Such a bundle may change again (a restore), so it is not immutable.
 */
export async function entryBundle(deps: Deps, t: TileRef): Promise<{ bytes: Buffer; withheld: boolean }> {
  const size = (await store.latestCheckpoint(deps.db))?.tree_size ?? 0;
  if (!tileExists({ ...t, level: 0 }, size)) throw notFound('Entry bundle');
  const first = t.index * TILE_WIDTH;
  const rows = await store.readChanges(deps.db, first, t.width);
  const gap = rows.findIndex((r, i) => r.seq !== first + i + 1);
  if (gap >= 0 || rows.length !== t.width) {
    // A deleted `changes` row: the log cannot serve the bundle, and says which entry is gone.
    throw new DomainError('not_found', `Entry ${first + (gap >= 0 ? gap : rows.length)} is missing from the log`);
  }
  const withheld = await withheldBetween(deps.db, first + 1, first + t.width);
  const parts: Buffer[] = [];
  for (const r of rows) {
    const clear = withheld.get(r.seq)?.clear;
    const body = clear && clear.size > 0 ? Buffer.from(withheldBody(r.body.toString('utf8'), clear), 'utf8') : r.body;
    if (body.length > MAX_BUNDLED_ENTRY) throw invalid('entry', `entry ${r.seq - 1} is larger than an entry bundle can carry`);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(body.length);
    parts.push(len, body);
  }
  return { bytes: Buffer.concat(parts), withheld: [...withheld.values()].some((w) => w.clear.size > 0) };
}

/** Splits an entry bundle into its entries; throws when it is malformed. */
export function splitBundle(bytes: Uint8Array): Buffer[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    if (at + 2 > buf.length) throw new Error('truncated entry bundle');
    const len = buf.readUInt16BE(at);
    if (at + 2 + len > buf.length) throw new Error('truncated entry bundle');
    out.push(buf.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return out;
}
