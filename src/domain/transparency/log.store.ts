// All SQL of the transparency log: the tree's stored nodes, its state row, checkpoints, and reads of `changes`.
import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { type NodeId, nodeKey } from './merkle.js';
import type { ChangeKind } from '../changes/change-log.js';

export interface LogState {
  tree_size: number;
  root_hash: Buffer;
}

export interface ChangeEntry {
  seq: number;
  created_at: string;
  kind: ChangeKind;
  body: Buffer;
}

const asBuffer = (v: unknown): Buffer => (Buffer.isBuffer(v) ? v : v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(String(v), 'utf8'));

export async function readState(db: Db): Promise<LogState> {
  const row = await db.selectFrom('log_state').select(['tree_size', 'root_hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { tree_size: Number(row.tree_size), root_hash: asBuffer(row.root_hash) };
}

/**
 * Takes the append lock and reads the state under it. The first statement is a write, so SQLite takes its write
 * lock now (waiting out other writers) instead of failing when a read snapshot turns stale; PostgreSQL locks the row.
 */
export async function lockState(db: Db, now: string): Promise<LogState> {
  await db.updateTable('log_state').set({ updated_at: now }).where('id', '=', 1).execute();
  return readState(db);
}

export async function saveState(db: Db, state: LogState, now: string): Promise<void> {
  await db.updateTable('log_state').set({ tree_size: state.tree_size, root_hash: state.root_hash, updated_at: now }).where('id', '=', 1).execute();
}

/** Stored nodes by nodeKey; one query whatever the number (a proof needs about 2·log₂ n). */
export async function readNodes(db: Db, ids: NodeId[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (let i = 0; i < ids.length; i += 200) {
    const chunk = ids.slice(i, i + 200);
    const rows = await db
      .selectFrom('log_nodes')
      .select(['level', 'idx', 'hash'])
      .where((eb) => eb.or(chunk.map((n) => eb.and([eb('level', '=', n.level), eb('idx', '=', n.index)]))))
      .execute();
    for (const r of rows) out.set(nodeKey({ level: Number(r.level), index: Number(r.idx) }), asBuffer(r.hash));
  }
  return out;
}

export async function insertNodes(db: Db, nodes: { level: number; index: number; hash: Buffer }[]): Promise<void> {
  for (let i = 0; i < nodes.length; i += 300) {
    const chunk = nodes.slice(i, i + 300);
    await db
      .insertInto('log_nodes')
      .values(chunk.map((n) => ({ level: n.level, idx: n.index, hash: n.hash })))
      .execute();
  }
}

/** The `changes` rows of the given seqs (any order, duplicates once), in seq order. */
export async function readChangesAt(db: Db, seqs: number[]): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  const unique = [...new Set(seqs)].sort((a, b) => a - b);
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db.selectFrom('changes').select(['seq', 'created_at', 'kind', 'body']).where('seq', 'in', unique.slice(i, i + 500)).orderBy('seq').execute();
    out.push(...rows.map((r) => ({ seq: Number(r.seq), created_at: r.created_at, kind: r.kind, body: asBuffer(r.body) })));
  }
  return out;
}

/** `changes` rows after `afterSeq`, in order. The table belongs to the change log; this only reads it. */
export async function readChanges(db: Db, afterSeq: number, limit: number): Promise<ChangeEntry[]> {
  const rows = await db
    .selectFrom('changes')
    .select(['seq', 'created_at', 'kind', 'body'])
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: Number(r.seq), created_at: r.created_at, kind: r.kind, body: asBuffer(r.body) }));
}

/** Whether `changes` has anything past `afterSeq` (the sequencer's cheap poll). */
export async function hasChangesAfter(db: Db, afterSeq: number): Promise<boolean> {
  const row = await db.selectFrom('changes').select('seq').where('seq', '>', afterSeq).orderBy('seq').limit(1).executeTakeFirst();
  return row !== undefined;
}

export interface CheckpointRow {
  id: number;
  tree_size: number;
  root_hash: Buffer;
  verifier_key: string;
  note: string;
  created_at: string;
}

export async function latestCheckpoint(db: Db): Promise<CheckpointRow | undefined> {
  const row = await db.selectFrom('log_checkpoints').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row && { ...row, tree_size: Number(row.tree_size), root_hash: asBuffer(row.root_hash) };
}

/** The newest checkpoint issued for one tree size, if any. */
export async function checkpointOfSize(db: Db, size: number): Promise<CheckpointRow | undefined> {
  const row = await db.selectFrom('log_checkpoints').selectAll().where('tree_size', '=', size).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row && { ...row, tree_size: Number(row.tree_size), root_hash: asBuffer(row.root_hash) };
}

export async function insertCheckpoint(db: Db, c: Omit<CheckpointRow, 'id'>): Promise<void> {
  await db.insertInto('log_checkpoints').values(c).execute();
}

/** The keys that have signed checkpoints, oldest first, with the range of sizes each signed. */
export async function signingHistory(db: Db): Promise<{ verifier_key: string; first_size: number; last_size: number; first_at: string }[]> {
  const rows = await db
    .selectFrom('log_checkpoints')
    .select((eb) => ['verifier_key', eb.fn.min('tree_size').as('first_size'), eb.fn.max('tree_size').as('last_size'), eb.fn.min('created_at').as('first_at')])
    .groupBy('verifier_key')
    .orderBy('first_at')
    .execute();
  return rows.map((r) => ({ verifier_key: r.verifier_key, first_size: Number(r.first_size), last_size: Number(r.last_size), first_at: String(r.first_at) }));
}

/** Links a contribution to the change entry that published it (in that entry's transaction). */
export async function linkContribution(db: Db, contributionId: number, seq: number): Promise<void> {
  await db.updateTable('contributions').set({ log_seq: seq }).where('id', '=', contributionId).execute();
}

/** linkContribution for a batch: one statement per 300 contributions, UPDATE … FROM a VALUES list. */
export async function linkContributions(db: Db, links: { contributionId: number; seq: number }[]): Promise<void> {
  for (let i = 0; i < links.length; i += 300) {
    const values = links.slice(i, i + 300).map((l) => sql`(cast(${l.contributionId} as integer), cast(${l.seq} as integer))`);
    await sql`with v(id, seq) as (values ${sql.join(values)})
      update contributions set log_seq = v.seq from v where contributions.id = v.id`.execute(db);
  }
}

/** Links a panel version to the change entry that published it (in that entry's transaction). */
export async function linkPanelVersion(db: Db, slug: string, version: number, seq: number): Promise<void> {
  await db
    .updateTable('panel_versions')
    .set({ log_seq: seq })
    .where('version', '=', version)
    .where('statement_id', '=', (eb) => eb.selectFrom('panel_statements').select('id').where('slug', '=', slug))
    .execute();
}

/** The stored nodes of one level with indexes [first, first + count), in order (a tile's hashes). */
export async function readLevel(db: Db, level: number, first: number, count: number): Promise<Buffer[]> {
  const rows = await db
    .selectFrom('log_nodes')
    .select(['idx', 'hash'])
    .where('level', '=', level)
    .where('idx', '>=', first)
    .where('idx', '<', first + count)
    .orderBy('idx')
    .execute();
  return rows.map((r) => asBuffer(r.hash));
}

export interface CosignatureRow {
  origin: string;
  tree_size: number;
  root_hash: Buffer;
  witness_key: string;
  line: string;
  signed_at: number;
  created_at: string;
}

/** Keeps a witness's newest cosignature of one tree size (a later one replaces it). */
export async function saveCosignature(db: Db, c: CosignatureRow): Promise<void> {
  await db
    .insertInto('log_cosignatures')
    .values(c)
    .onConflict((oc) => oc.columns(['origin', 'tree_size', 'witness_key']).doUpdateSet({ line: c.line, signed_at: c.signed_at, root_hash: c.root_hash, created_at: c.created_at }))
    .execute();
}

export async function cosignaturesOf(db: Db, origin: string, size: number, root: Buffer): Promise<CosignatureRow[]> {
  const rows = await db.selectFrom('log_cosignatures').selectAll().where('origin', '=', origin).where('tree_size', '=', size).orderBy('witness_key').execute();
  return rows
    .map((r) => ({ ...r, tree_size: Number(r.tree_size), signed_at: Number(r.signed_at), root_hash: asBuffer(r.root_hash) }))
    .filter((r) => r.root_hash.equals(root));
}

/** The largest tree size at least `k` of the given witnesses cosigned, or null. */
export async function cosignedSizes(db: Db, origin: string, witnessKeys: string[], k: number): Promise<number | null> {
  if (witnessKeys.length === 0) return null;
  const row = await db
    .selectFrom('log_cosignatures')
    .select('tree_size')
    .where('origin', '=', origin)
    .where('witness_key', 'in', witnessKeys)
    .groupBy('tree_size')
    .having((eb) => eb.fn.count('witness_key'), '>=', k)
    .orderBy('tree_size', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.tree_size) : null;
}

export async function witnessState(db: Db, witnessKey: string, origin: string): Promise<{ tree_size: number; last_error: string | null } | undefined> {
  const row = await db.selectFrom('log_witness_state').select(['tree_size', 'last_error']).where('witness_key', '=', witnessKey).where('origin', '=', origin).executeTakeFirst();
  return row && { tree_size: Number(row.tree_size), last_error: row.last_error };
}

export async function saveWitnessState(db: Db, s: { witness_key: string; origin: string; tree_size: number; last_error: string | null; updated_at: string }): Promise<void> {
  await db
    .insertInto('log_witness_state')
    .values(s)
    .onConflict((oc) => oc.columns(['witness_key', 'origin']).doUpdateSet({ tree_size: s.tree_size, last_error: s.last_error, updated_at: s.updated_at }))
    .execute();
}
