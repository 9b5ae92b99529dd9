// All SQL about the change log. Appends happen inside the caller's transaction; reads are plain.
import { PostgresAdapter, type Selectable, sql } from 'kysely';
import type { ChangeOpeningsTable, ChangesTable } from '../../db/schema.js';
import type { Db } from '../../db/schema.js';
import type { Opening } from './commitments.js';
import { withheldBody } from './served.js';

/** A row of the change log as stored (db/schema.ts). */
export type ChangeRow = Selectable<ChangesTable>;
/** The opening of one committed field of an entry, as stored (`value` is its canonical JSON). */
export type OpeningRow = Selectable<ChangeOpeningsTable>;
/** The openings of an entry that still exist, by the JSON Pointer of the commitment in its body. */
export type Openings = Record<string, Opening>;
/**
 * An entry as the feed and the log's readers serve it: its row (its body without any clear text a decision withheld),
 * its openings beside it, and what a decision withheld in it (JSON Pointer → the decision's id). `withheld_clear`: the
 * body served is not the entry's bytes (clear text was taken out), so a reader takes its leaf hash from the tree.
 */
export type OpenedChange = ChangeRow & { openings: Openings; withheld: Record<string, number>; withheld_clear: boolean };

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

/** Several entries, 8 values a row: 500 rows per statement stay under both databases' limits. */
export async function insertChanges(trx: Db, rows: ChangeRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('changes').values(rows.slice(i, i + 500)).execute();
}

export async function insertOpenings(trx: Db, rows: OpeningRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('change_openings').values(rows.slice(i, i + 500)).execute();
}

/** The openings of entries `first`…`last` that still exist, by seq. */
export async function openingsBetween(db: Db, first: number, last: number): Promise<Map<number, Openings>> {
  const out = new Map<number, Openings>();
  if (last < first) return out;
  const rows = await db
    .selectFrom('change_openings')
    .select(['seq', 'pointer', 'opening', 'value'])
    .where('seq', '>=', first)
    .where('seq', '<=', last)
    .execute();
  for (const r of rows) {
    const seq = Number(r.seq);
    const of = out.get(seq) ?? {};
    of[r.pointer] = { opening: r.opening, value: JSON.parse(r.value) as unknown };
    out.set(seq, of);
  }
  return out;
}

/** What decisions withheld in entries `first`…`last`, by seq: openings no longer served, and clear text taken out. */
export async function withheldBetween(db: Db, first: number, last: number): Promise<Map<number, { openings: Map<string, number>; clear: Map<string, number> }>> {
  const out = new Map<number, { openings: Map<string, number>; clear: Map<string, number> }>();
  if (last < first) return out;
  const at = (seq: number) => {
    let w = out.get(seq);
    if (!w) out.set(seq, (w = { openings: new Map(), clear: new Map() }));
    return w;
  };
  const [openings, clear] = await Promise.all([
    db.selectFrom('withheld_openings').select(['seq', 'pointer', 'decision_id']).where('seq', '>=', first).where('seq', '<=', last).execute(),
    db.selectFrom('withheld_fields').select(['seq', 'pointer', 'decision_id']).where('seq', '>=', first).where('seq', '<=', last).execute(),
  ]);
  for (const r of openings) at(Number(r.seq)).openings.set(r.pointer, Number(r.decision_id));
  for (const r of clear) at(Number(r.seq)).clear.set(r.pointer, Number(r.decision_id));
  return out;
}

/** `rows` (in seq order, any gaps) as public reads serve them: openings beside, withheld text out. */
export async function served<R extends { seq: number; body: string }>(db: Db, rows: readonly R[]): Promise<(R & { openings: Openings; withheld: Record<string, number>; withheld_clear: boolean })[]> {
  if (rows.length === 0) return [];
  const first = rows[0]!.seq;
  const last = rows.at(-1)!.seq;
  const [openings, withheld] = await Promise.all([openingsBetween(db, first, last), withheldBetween(db, first, last)]);
  return rows.map((r) => {
    const w = withheld.get(r.seq);
    if (!w) return { ...r, openings: openings.get(r.seq) ?? {}, withheld: {}, withheld_clear: false };
    const body = withheldBody(r.body, w.clear);
    return {
      ...r,
      body,
      openings: openings.get(r.seq) ?? {},
      withheld: Object.fromEntries([...w.openings, ...w.clear].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      withheld_clear: body !== r.body || w.clear.size > 0,
    };
  });
}

/**
 * Forget every opening of what names one person (erasure): their person slots and their profile's name and summary,
 * found by the account they name, served or withheld by a decision; the entries themselves never change.
 */
export async function deleteOpeningsOf(trx: Db, accountId: number): Promise<number> {
  // The count is of entries, as the erasure's answer says, not of openings (an entry may hold several of one person).
  const seqs = new Set<number>();
  for (const table of ['change_openings', 'withheld_openings'] as const) {
    for (const r of await trx.selectFrom(table).select('seq').where('account_id', '=', accountId).execute()) seqs.add(Number(r.seq));
    await trx.deleteFrom(table).where('account_id', '=', accountId).execute();
  }
  return seqs.size;
}

/**
 * What a watcher follows, by the entries' id columns, never their bodies: a contributor (their account),
 * a publication (its publisher), a domain (pages on it or its subdomains, and the domain's own verification
 * entries). Several are all required.
 */
export interface FeedFilter {
  accountId?: number;
  publisherId?: number;
  domain?: string;
}

/** Entries after a cursor, oldest first, each with its openings; only those the filter names when one is given. */
export async function listChangesAfter(db: Db, after: number, limit: number, filter: FeedFilter = {}): Promise<OpenedChange[]> {
  return withOpenings(db, await listChangeRowsAfter(db, after, limit, filter));
}

/** The same entries without their openings: the caches that follow the log find what to drop in the row alone. */
export async function listChangeRowsAfter(db: Db, after: number, limit: number, filter: FeedFilter = {}): Promise<ChangeRow[]> {
  let q = db.selectFrom('changes').selectAll().where('seq', '>', after);
  if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId);
  if (filter.publisherId !== undefined) q = q.where('publisher_id', '=', filter.publisherId);
  if (filter.domain !== undefined) {
    const d = filter.domain;
    q = q.where((eb) =>
      eb.or([
        eb('page_id', 'in', eb.selectFrom('pages').select('id').where((p) => p.or([p('host', '=', d), p('host', 'like', `%.${d}`)]))),
        eb.and([
          eb('kind', 'in', ['domain.verified', 'domain.moved', 'domain.revoked']),
          eb('publisher_id', 'in', eb.selectFrom('domains').select('publisher_id').where('domain', '=', d)),
        ]),
      ]),
    );
  }
  return q.orderBy('seq').limit(limit).execute();
}

/** `rows` (in seq order) with the openings that still exist beside each, and withheld text out. */
export const withOpenings = (db: Db, rows: readonly ChangeRow[]): Promise<OpenedChange[]> => served(db, rows);

export const accountIdByUsername = async (db: Db, username: string): Promise<number | undefined> =>
  (await db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirst())?.id;

export const publisherIdBySlug = async (db: Db, slug: string): Promise<number | undefined> =>
  (await db.selectFrom('publishers').select('id').where('slug', '=', slug).executeTakeFirst())?.id;

/** The newest seq (0 for an empty log): the cheap read a follower polls. */
export async function lastSeq(db: Db): Promise<number> {
  const r = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.max('seq').as('max'))
    .executeTakeFirst();
  return Number(r?.max ?? 0);
}
