// All SQL of search: the match against the index (FTS5's `search_index` on SQLite, the `search_documents` tsvector
// table on PostgreSQL; both kept by triggers, migration 0021) and the public rows each hit stands for.
import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { FORMER_CONTRIBUTOR } from '../accounts/rules.js';
import { fts5Query, tsQuery } from './terms.js';

/** The index's kinds, by their stored number. */
export const KINDS = ['page', 'contributor', 'publisher', 'panel'] as const;
export type SearchKind = (typeof KINDS)[number];

export interface Hit {
  kind: SearchKind;
  ref: number;
}

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
const codes = (kinds: readonly SearchKind[]) => sql.join(kinds.map((k) => sql.lit(KINDS.indexOf(k))));

/**
 * The documents matching every term, best first: BM25 on SQLite (a title word weighs more than one of the URL,
 * username or slug), ts_rank on PostgreSQL (title words weigh A, the rest B, divided by the document's length). Ties
 * by kind and id, so pages are stable.
 */
export async function match(db: Db, terms: string[], kinds: readonly SearchKind[], limit: number, offset: number): Promise<Hit[]> {
  if (isPostgres(db)) {
    const rows = await sql<{ kind: number; ref: number }>`select kind, ref from search_documents, to_tsquery('simple', ${tsQuery(terms)}) as q
      where document @@ q and kind in (${codes(kinds)})
      order by ts_rank(document, q, 1) desc, kind, ref limit ${limit} offset ${offset}`.execute(db);
    return rows.rows.map((r) => ({ kind: KINDS[Number(r.kind)]!, ref: Number(r.ref) }));
  }
  const rows = await sql<{ id: number }>`select rowid as id from search_index
    where search_index match ${fts5Query(terms)} and rowid % 4 in (${codes(kinds)})
    order by bm25(search_index, 10.0, 3.0), rowid limit ${limit} offset ${offset}`.execute(db);
  return rows.rows.map((r) => ({ kind: KINDS[Number(r.id) % 4]!, ref: Math.floor(Number(r.id) / 4) }));
}

/** How many documents of each kind match every term. */
export async function countByKind(db: Db, terms: string[]): Promise<Record<SearchKind, number>> {
  const out = { page: 0, contributor: 0, publisher: 0, panel: 0 };
  const rows = isPostgres(db)
    ? (
        await sql<{ kind: number; n: number }>`select kind, count(*) as n from search_documents where document @@ to_tsquery('simple', ${tsQuery(terms)})
          group by kind`.execute(db)
      ).rows
    : (await sql<{ kind: number; n: number }>`select rowid % 4 as kind, count(*) as n from search_index where search_index match ${fts5Query(terms)} group by 1`.execute(db)).rows;
  for (const r of rows) out[KINDS[Number(r.kind)]!] = Number(r.n);
  return out;
}

/** Pages by id, with their publication. */
export const pagesByIds = (db: Db, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('pages as p')
        .innerJoin('publishers as pub', 'pub.id', 'p.publisher_id')
        .select(['p.id', 'p.title', 'p.url', 'p.topic', 'pub.slug as publisher_slug', 'pub.name as publisher_name'])
        .where('p.id', 'in', ids)
        .execute();

/** Public people by id: confirmed, and not the shared former contributor (the index holds no one else either). */
export const peopleByIds = (db: Db, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('accounts as a')
        .select(['a.id', 'a.username', 'a.name', 'a.level', 'a.trust_score'])
        .where('a.id', 'in', ids)
        .where('a.email_confirmed_at', 'is not', null)
        .where('a.username', '!=', FORMER_CONTRIBUTOR.username)
        .execute();

export const publishersByIds = (db: Db, ids: number[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('publishers').select(['id', 'slug', 'name']).where('id', 'in', ids).execute();

/** Panel statements by id, with their issued current version's question and topic. */
export const panelsByIds = (db: Db, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('panel_statements as s')
        .innerJoin('panel_versions as v', (j) => j.onRef('v.statement_id', '=', 's.id').onRef('v.version', '=', 's.current_version'))
        .select(['s.id', 's.slug', 'v.question', 'v.topic', 'v.version'])
        .where('s.id', 'in', ids)
        .where('v.status', '=', 'issued')
        .execute();
