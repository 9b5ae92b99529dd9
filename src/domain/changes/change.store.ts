// All SQL about the change log. Appends happen inside the caller's transaction; reads are plain.
import { PostgresAdapter, type Selectable, sql } from 'kysely';
import type { ChangesTable } from '../../db/schema.js';
import type { Db } from '../deps.js';

/** A row of the change log as stored (db/schema.ts). */
export type ChangeRow = Selectable<ChangesTable>;

/**
 * The next seq, under a lock held until the transaction ends: gapless, and commit order equals seq order. SQLite
 * has one writer at a time already; on PostgreSQL a table lock that conflicts with itself (and with inserts) but
 * not with readers serialises appenders only.
 */
export async function nextSeq(trx: Db): Promise<number> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter) await sql`lock table changes in share row exclusive mode`.execute(trx);
  const r = await trx
    .selectFrom('changes')
    .select((eb) => eb.fn.max('seq').as('max'))
    .executeTakeFirst();
  return Number(r?.max ?? 0) + 1;
}

export async function insertChange(trx: Db, row: ChangeRow): Promise<void> {
  await trx.insertInto('changes').values(row).execute();
}

/** Several entries, 8 values a row: 500 rows per statement stay under both databases' limits. */
export async function insertChanges(trx: Db, rows: ChangeRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('changes').values(rows.slice(i, i + 500)).execute();
}

/** Entries after a cursor, oldest first. */
export const listChangesAfter = (db: Db, after: number, limit: number): Promise<ChangeRow[]> =>
  db.selectFrom('changes').selectAll().where('seq', '>', after).orderBy('seq').limit(limit).execute();

/** The newest seq (0 for an empty log): the cheap read a follower polls. */
export async function lastSeq(db: Db): Promise<number> {
  const r = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.max('seq').as('max'))
    .executeTakeFirst();
  return Number(r?.max ?? 0);
}
