// Rows of the public change log (`changes`) made directly, for transparency-log tests that need many
// entries or exact bodies. Real entries come from the services; these follow the same contract: seq gapless from
// 1, body the canonical JSON bytes.
import { sql } from 'kysely';
import type { Db } from '../../src/domain/deps.js';

/** Appends `count` entries with canonical JSON bodies; answers their seqs. */
export async function addChanges(db: Db, count: number, kind = 'test.entry'): Promise<number[]> {
  const { rows } = await sql<{ m: number | string | null }>`select max(seq) as m from changes`.execute(db);
  let seq = Number(rows[0]?.m ?? 0);
  const out: number[] = [];
  const now = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    seq++;
    const body = JSON.stringify({ kind, n: seq, note: `entry ${seq}` });
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${seq}, ${now}, ${kind}, ${null}, ${null}, ${null}, ${null}, ${body})`.execute(db);
    out.push(seq);
  }
  return out;
}
