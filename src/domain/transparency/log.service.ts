// The transparency log over the public change log: appending `changes` entries to the Merkle tree and
// signing checkpoints (done by the sequencer, after commit), and answering checkpoints, proofs and entries.
//
// Entry i (from 0) of the log is the `changes` row with seq = i + 1; its leaf is SHA-256(0x00 || body), the body
// being the row's exact canonical JSON bytes.
import { invalid, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import * as store from './log.store.js';
import { type Openings, served } from '../changes/change.store.js';
import {
  EMPTY_ROOT,
  appendLeaves,
  consistencyRanges,
  foldRange,
  frontierOf,
  inclusionRanges,
  leafHash,
  nodeKey,
  nodesFor,
  rootOf,
} from './merkle.js';
import { checkpointText } from './note.js';
import type { ChangeKind } from '../changes/change-log.js';

/** Entries appended per transaction: a long backlog is taken in steps, so no transaction holds the lock for long. */
export const APPEND_BATCH = 2_000;
/** Entries answered per call to the entries route. */
export const MAX_ENTRIES = 1_000;

export interface IntegrateResult {
  /** The tree size after this pass. */
  size: number;
  /** Entries appended by this pass. */
  appended: number;
  /** Whether this pass signed a checkpoint. */
  signed: boolean;
  /**
   * The seq the log waits for when a later one is committed: a row not committed yet (for a moment), or one deleted
   * from `changes` (for ever: the log cannot grow past it, and the sequencer says so).
   */
  waitingFor?: number;
}

/**
 * One pass of the sequencer: append every committed `changes` entry the tree does not hold yet (in steps of
 * APPEND_BATCH, each its own transaction under the state row's lock) and sign a checkpoint when the tree grew, or
 * when the newest checkpoint was signed by another key (after a rotation). Safe to run in several processes at
 * once: the lock makes them take turns, and a turn that finds nothing to do writes nothing.
 */
export async function integrate(deps: Deps, opts: { batch?: number } = {}): Promise<IntegrateResult> {
  const batch = opts.batch ?? APPEND_BATCH;
  const signer = deps.transparency.signer();
  let appended = 0;
  let signed = false;
  let waitingFor: number | undefined;
  let size = (await store.readState(deps.db)).tree_size;
  for (;;) {
    // A cheap read first, without the lock: most passes find nothing.
    const [more, latest] = await Promise.all([store.hasChangesAfter(deps.db, size), store.latestCheckpoint(deps.db)]);
    const needsSignature = !latest || latest.tree_size !== size || latest.verifier_key !== signer.verifierKey;
    if (!more && !needsSignature) break;
    const step = await deps.db.transaction().execute(async (trx) => {
      const now = deps.clock.now().toISOString();
      const state = await store.lockState(trx, now);
      const rows = await store.readChanges(trx, state.tree_size, batch);
      // Only the gapless prefix: `changes` commits in seq order, so a gap is a row not committed yet.
      const fresh: store.ChangeEntry[] = [];
      for (const r of rows) {
        if (r.seq !== state.tree_size + fresh.length + 1) break;
        fresh.push(r);
      }
      let next = state;
      if (fresh.length > 0) {
        const edgeIds = frontierOf(state.tree_size);
        const nodes = await store.readNodes(trx, edgeIds);
        const edge = edgeIds.map((n) => {
          const h = nodes.get(nodeKey(n));
          if (!h) throw new Error(`transparency log: tree node ${nodeKey(n)} is missing`);
          return h;
        });
        const grown = appendLeaves(
          state.tree_size,
          edge,
          fresh.map((r) => leafHash(r.body)),
        );
        await store.insertNodes(trx, grown.made);
        next = { tree_size: grown.size, root_hash: rootOf(grown.frontier) };
        await store.saveState(trx, next, now);
      }
      const last = await store.latestCheckpoint(trx);
      let didSign = false;
      if (!last || last.tree_size !== next.tree_size || last.verifier_key !== signer.verifierKey) {
        const note = signer.sign(checkpointText({ origin: deps.transparency.origin, size: next.tree_size, root: next.root_hash }));
        await store.insertCheckpoint(trx, { tree_size: next.tree_size, root_hash: next.root_hash, verifier_key: signer.verifierKey, note, created_at: now });
        didSign = true;
      }
      const gap = rows.length > fresh.length ? state.tree_size + fresh.length + 1 : undefined;
      return { size: next.tree_size, appended: fresh.length, signed: didSign, gap, full: rows.length === batch && fresh.length === batch };
    });
    size = step.size;
    appended += step.appended;
    signed ||= step.signed;
    if (step.gap !== undefined) {
      waitingFor = step.gap;
      break;
    }
    if (!step.full) break;
  }
  return { size, appended, signed, ...(waitingFor !== undefined ? { waitingFor } : {}) };
}

export interface PublishedCheckpoint {
  size: number;
  root: Buffer;
  note: string;
  verifierKey: string;
  createdAt: string;
}

/** The newest signed checkpoint; 404 before the sequencer's first pass. */
export async function currentCheckpoint(deps: Deps): Promise<PublishedCheckpoint> {
  const c = await store.latestCheckpoint(deps.db);
  if (!c) throw notFound('Checkpoint');
  return { size: c.tree_size, root: c.root_hash, note: c.note, verifierKey: c.verifier_key, createdAt: c.created_at };
}

/** The signed checkpoint of one tree size, when one was issued (sizes the sequencer passed over have none). */
export async function checkpointNoteOf(deps: Deps, size: number): Promise<string | null> {
  return (await store.checkpointOfSize(deps.db, size))?.note ?? null;
}

export async function verifierKeys(deps: Deps) {
  const current = deps.transparency.signer();
  const history = await store.signingHistory(deps.db);
  return { origin: deps.transparency.origin, current: current.verifierKey, publicKey: current.publicKey, keyHash: current.keyHash, history };
}

/** The tree size a proof is asked against: the newest checkpoint's unless given, and never past it. */
async function checkedSize(deps: Deps, field: string, given: number | undefined): Promise<number> {
  const c = await store.latestCheckpoint(deps.db);
  const published = c?.tree_size ?? 0;
  if (given === undefined) return published;
  if (given > published) throw invalid(field, `must be at most ${published}, the size of the newest checkpoint`);
  return given;
}

export interface InclusionProof {
  index: number;
  treeSize: number;
  leafHash: Buffer;
  hashes: Buffer[];
}

/** RFC 9162 inclusion proof of entry `index` in the tree of `treeSize` entries (the newest checkpoint's by default). */
export async function inclusionProof(deps: Deps, index: number, treeSize?: number): Promise<InclusionProof> {
  const size = await checkedSize(deps, 'tree_size', treeSize);
  if (index >= size) throw invalid('index', size === 0 ? 'the log has no entries yet' : `must be less than the tree size ${size}`);
  const ranges = inclusionRanges(index, size);
  const nodes = await store.readNodes(deps.db, [...nodesFor(ranges), { level: 0, index }]);
  return {
    index,
    treeSize: size,
    leafHash: nodes.get(nodeKey({ level: 0, index }))!,
    hashes: ranges.map(([lo, hi]) => foldRange(lo, hi, nodes)),
  };
}

/**
 * RFC 9162 inclusion proofs of several entries in the tree of `size` entries (every index below it), their nodes
 * read in one pass: what a bucket of the extension's lookup asks for at once.
 */
export async function inclusionProofs(deps: Deps, indexes: number[], size: number): Promise<Map<number, Buffer[]>> {
  const ranges = new Map(indexes.map((i) => [i, inclusionRanges(i, size)]));
  const nodes = await store.readNodes(deps.db, nodesFor([...ranges.values()].flat()));
  return new Map([...ranges].map(([i, rs]) => [i, rs.map(([lo, hi]) => foldRange(lo, hi, nodes))]));
}

export interface ConsistencyProof {
  first: number;
  second: number;
  hashes: Buffer[];
}

/** RFC 9162 consistency proof between tree sizes `first` ≤ `second` (the newest checkpoint's by default). */
export async function consistencyProof(deps: Deps, first: number, second?: number): Promise<ConsistencyProof> {
  const size = await checkedSize(deps, 'second', second);
  if (first > size) throw invalid('first', `must be at most ${size}`);
  const ranges = consistencyRanges(first, size);
  const nodes = await store.readNodes(deps.db, nodesFor(ranges));
  return { first, second: size, hashes: ranges.map(([lo, hi]) => foldRange(lo, hi, nodes)) };
}

/** The root of the tree of `size` entries (any size up to the newest checkpoint's), from stored nodes. */
export async function rootAt(deps: Deps, size: number): Promise<Buffer> {
  if (size === 0) return EMPTY_ROOT;
  const nodes = await store.readNodes(deps.db, frontierOf(size));
  return foldRange(0, size, nodes);
}

export interface LogEntry {
  index: number;
  seq: number;
  createdAt: string;
  kind: ChangeKind;
  body: Buffer;
  /** The openings of its commitments that still exist, beside the bytes, never in them. */
  openings: Openings;
  /** What decisions withheld in it: JSON Pointer → decision id. */
  withheld: Record<string, number>;
  /** Set when `body` is not the entry's bytes (clear text withheld): its leaf hash, from the stored tree. */
  leafHash: Buffer | null;
}

/**
 * Entry `index` as `changes` holds it now, whether or not a checkpoint covers it yet (a proof page shows it; the
 * reader's check compares it with the entry bundle the signed root vouches for); null when there is none.
 */
export async function entryAt(deps: Deps, index: number): Promise<LogEntry | null> {
  const [r] = await store.readChanges(deps.db, index, 1);
  if (!r || r.seq !== index + 1) return null;
  const [e] = await servedEntries(deps, [r]);
  return e!;
}

/** Stored rows as public reads serve them: withheld text out, and the leaf hash beside a body that is not the entry's bytes. */
async function servedEntries(deps: Deps, rows: readonly { seq: number; created_at: string; kind: ChangeKind; body: Buffer }[]): Promise<LogEntry[]> {
  const out = await served(
    deps.db,
    rows.map((r) => ({ ...r, body: r.body.toString('utf8'), bytes: r.body })),
  );
  const altered = out.filter((e) => e.withheld_clear).map((e) => e.seq - 1);
  const leaves = altered.length > 0 ? await store.readNodes(deps.db, altered.map((index) => ({ level: 0, index }))) : new Map<string, Buffer>();
  return out.map((e) => ({
    index: e.seq - 1,
    seq: e.seq,
    createdAt: e.created_at,
    kind: e.kind,
    body: e.withheld_clear ? Buffer.from(e.body, 'utf8') : e.bytes,
    openings: e.openings,
    withheld: e.withheld,
    leafHash: e.withheld_clear ? (leaves.get(nodeKey({ level: 0, index: e.seq - 1 })) ?? leafHash(e.bytes)) : null,
  }));
}

/** Entries [start, start + limit) of the tree of the newest checkpoint, as `changes` holds them now. */
export async function entries(deps: Deps, start: number, limit: number): Promise<{ entries: LogEntry[]; treeSize: number }> {
  const size = await checkedSize(deps, 'tree_size', undefined);
  if (start > size) throw invalid('start', `must be at most the tree size ${size}`);
  const count = Math.min(limit, MAX_ENTRIES, size - start);
  const rows = count > 0 ? await store.readChanges(deps.db, start, count) : [];
  return { treeSize: size, entries: await servedEntries(deps, rows) };
}
