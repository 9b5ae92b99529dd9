// A reader of a log served as C2SP tlog-tiles, for the verifiers (`credence log:verify`): it fetches the hash tiles a
// proof needs for one tree size and computes RFC 9162 inclusion and consistency proofs from them, so a verifier
// needs nothing from the log but its checkpoint, tiles and entry bundles (all static, cacheable files).
import { type NodeId, consistencyRanges, inclusionRanges, nodeHash, rangeNodes } from '../domain/transparency/merkle.js';
import { TILE_HEIGHT, TILE_WIDTH, hashesAt, splitBundle, tilePath } from '../domain/transparency/tiles.js';

export type GetBytes = (path: string) => Promise<Uint8Array>;

export class TileReader {
  private readonly tiles = new Map<string, Promise<Buffer[]>>();

  /** `get` fetches a path under the log's prefix (e.g. `tile/0/000`); `size` is the verified checkpoint's. */
  constructor(
    private readonly get: GetBytes,
    readonly size: number,
  ) {}

  /** The hashes of tile (level, index) as this tree size has it (partial on the right edge). */
  tile(level: number, index: number): Promise<Buffer[]> {
    const width = Math.min(TILE_WIDTH, hashesAt(level, this.size) - index * TILE_WIDTH);
    if (width <= 0) return Promise.reject(new Error(`tile ${level}/${index} is past the tree of ${this.size}`));
    const path = tilePath({ level, index, width });
    let p = this.tiles.get(path);
    if (!p) {
      p = this.get(path).then((bytes) => {
        if (bytes.length !== width * 32) throw new Error(`${path} has ${bytes.length} bytes, not ${width * 32}`);
        const b = Buffer.from(bytes);
        return Array.from({ length: width }, (_, i) => b.subarray(i * 32, i * 32 + 32));
      });
      this.tiles.set(path, p);
    }
    return p;
  }

  /** The hash of a complete subtree (level, index) of the tree, from the tile holding its hashes. */
  async node(n: NodeId): Promise<Buffer> {
    const tileLevel = Math.floor(n.level / TILE_HEIGHT);
    const sub = n.level - tileLevel * TILE_HEIGHT;
    const first = n.index * 2 ** sub;
    const hashes = await this.tile(tileLevel, Math.floor(first / TILE_WIDTH));
    let row = hashes.slice(first % TILE_WIDTH, (first % TILE_WIDTH) + 2 ** sub);
    if (row.length !== 2 ** sub) throw new Error(`the tiles lack node ${n.level}:${n.index}`);
    while (row.length > 1) row = Array.from({ length: row.length / 2 }, (_, i) => nodeHash(row[2 * i]!, row[2 * i + 1]!));
    return row[0]!;
  }

  /** MTH(D[lo:hi]) from tiles. */
  async range(lo: number, hi: number): Promise<Buffer> {
    const parts = await Promise.all(rangeNodes(lo, hi).map((n) => this.node(n)));
    let acc = parts[parts.length - 1]!;
    for (let i = parts.length - 2; i >= 0; i--) acc = nodeHash(parts[i]!, acc);
    return acc;
  }

  inclusionProof(index: number): Promise<Buffer[]> {
    return Promise.all(inclusionRanges(index, this.size).map(([lo, hi]) => this.range(lo, hi)));
  }

  /** The proof that the tree of `first` entries is a prefix of this one. */
  consistencyProof(first: number): Promise<Buffer[]> {
    return Promise.all(consistencyRanges(first, this.size).map(([lo, hi]) => this.range(lo, hi)));
  }

  /** The entries of bundle `index` (partial on the right edge). */
  async bundle(index: number): Promise<Buffer[]> {
    const width = Math.min(TILE_WIDTH, this.size - index * TILE_WIDTH);
    const path = tilePath({ level: null, index, width });
    const entries = splitBundle(await this.get(path));
    if (entries.length !== width) throw new Error(`${path} holds ${entries.length} entries, not ${width}`);
    return entries;
  }
}
