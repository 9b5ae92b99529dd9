// All SQL about pages and their accepted contributions. Owned reads take the publisher.
import type { FixedQuery, FixedReader } from '../../db/client.js';
import type { Db } from '../../db/schema.js';
import type { AssertedBy, Consent, WorkKind } from '../../db/schema.js';
import type { Level } from '../reputation/scores.js';
import { embedKeyHash, prefixEnd } from './key-hash.js';

const pageColumns = [
  'p.id',
  'p.publisher_id',
  'p.url',
  'p.lookup_key',
  'p.embed_key',
  'p.host',
  'p.title',
  'p.topic',
  'p.created_at',
  'p.updated_at',
  'p.content_hash',
  'p.content_seen_at',
  'p.content_changed_at',
  'pub.slug as publisher_slug',
  'pub.name as publisher_name',
] as const;

const pagesWithPublisher = (db: Db) =>
  db.selectFrom('pages as p').innerJoin('publishers as pub', 'pub.id', 'p.publisher_id').select(pageColumns);

export type PageRow = Awaited<ReturnType<typeof findPageByLookupKey>> & {};

export const findPageByLookupKey = (db: Db, lookupKey: string) =>
  pagesWithPublisher(db).where('p.lookup_key', '=', lookupKey).executeTakeFirst();

export const findPageById = (db: Db, id: number) => pagesWithPublisher(db).where('p.id', '=', id).executeTakeFirst();

/** Pages sharing an embed key (SPEC §3: several may). */
export const findPagesByEmbedKey = (db: Db, embedKey: string) =>
  pagesWithPublisher(db).where('p.embed_key', '=', embedKey).orderBy('p.id').limit(50).execute();

export const listPublisherPages = (db: Db, publisherId: number, limit: number, offset: number) =>
  pagesWithPublisher(db)
    .where('p.publisher_id', '=', publisherId)
    // Newest first by when the page was registered (imports and the demo register pages with their own dates).
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

/** The publisher's pages newest first, from just below `beforeId` (a cursor: the last id of the page before). */
export const listPublisherPagesBefore = (db: Db, publisherId: number, beforeId: number | null, limit: number) => {
  let q = pagesWithPublisher(db).where('p.publisher_id', '=', publisherId);
  if (beforeId !== null) q = q.where('p.id', '<', beforeId);
  return q.orderBy('p.id', 'desc').limit(limit).execute();
};

export async function countPublisherPages(db: Db, publisherId: number): Promise<number> {
  const r = await db
    .selectFrom('pages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('publisher_id', '=', publisherId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The bare row for an upsert decision, inside the registering transaction. */
export const findPageForUpsert = (db: Db, lookupKey: string) =>
  db.selectFrom('pages').select(['id', 'publisher_id', 'title', 'topic', 'content_hash']).where('lookup_key', '=', lookupKey).executeTakeFirst();
/** The bare rows for upsert decisions, inside the registering transaction: one query for a whole batch. */
export async function findPagesForUpsert(db: Db, lookupKeys: string[]) {
  const rows = [];
  for (let i = 0; i < lookupKeys.length; i += 500) {
    const chunk = lookupKeys.slice(i, i + 500);
    rows.push(...(await db.selectFrom('pages').select(['id', 'publisher_id', 'lookup_key', 'url', 'title', 'topic', 'content_hash']).where('lookup_key', 'in', chunk).execute()));
  }
  return rows;
}

/** Every accepted contribution on some pages (who and in what role): known authors, and whose work moves topic. */
export async function contributorsOfPages(db: Db, pageIds: number[]) {
  const rows = [];
  for (let i = 0; i < pageIds.length; i += 500) {
    const chunk = pageIds.slice(i, i + 500);
    rows.push(...(await db.selectFrom('contributions').select(['page_id', 'account_id', 'role']).where('page_id', 'in', chunk).execute()));
  }
  return rows;
}

export interface NewPageRow {
  publisher_id: number;
  url: string;
  lookup_key: string;
  embed_key: string;
  host: string;
  title: string;
  topic: string;
  /** The page's version when the registration brought one. */
  content_hash: string | null;
}

/** Insert pages with multi-row statements; returns each new id by lookup key. */
export async function insertPages(db: Db, rows: NewPageRow[], now: string): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  // 9 values a row: 250 rows stay far below SQLite's and PostgreSQL's limits on bound values.
  for (let i = 0; i < rows.length; i += 250) {
    const inserted = await db
      .insertInto('pages')
      .values(rows.slice(i, i + 250).map((r) => ({ ...r, embed_key_hash: embedKeyHash(r.embed_key), content_seen_at: r.content_hash !== null ? now : null, created_at: now, updated_at: now })))
      .returning(['id', 'lookup_key'])
      .execute();
    for (const r of inserted) ids.set(r.lookup_key, r.id);
  }
  return ids;
}

export async function updatePage(
  db: Db,
  publisherId: number,
  id: number,
  patch: { title: string; topic: string; updated_at: string },
): Promise<void> {
  await db.updateTable('pages').set(patch).where('id', '=', id).where('publisher_id', '=', publisherId).execute();
}

export type RecordContributionRow = Awaited<ReturnType<typeof listAcceptedContributions>>[number];

/** Accepted contributions of several pages at once, oldest first, with the public face of each contributor. */
export function listAcceptedContributions(db: Db, pageIds: number[]) {
  return db
    .selectFrom('contributions as c')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .select([
      'c.id',
      'c.page_id',
      'c.role',
      'c.summary',
      'c.change_from',
      'c.change_to',
      'c.accepted_at',
      'c.quote_exact',
      'c.quote_prefix',
      'c.quote_suffix',
      'c.claim',
      'c.verdict',
      'c.page_hash',
      'c.page_changed_at',
      'c.correction_missing',
      'c.log_seq',
      'c.asserted_by',
      'c.consent',
      'a.id as account_id',
      'a.username',
      'a.name',
      'a.level',
      'a.trust_score',
    ])
    .where('c.page_id', 'in', pageIds.length ? pageIds : [-1])
    .orderBy('c.accepted_at')
    .orderBy('c.id')
    .execute();
}

/**
 * Name authors of pages: accepted `author` contributions, in multi-row statements, each linked to the change-log
 * entry that publishes it (`log_seq`); ids by `page:account`.
 */
export async function insertAuthors(
  db: Db,
  rows: { page_id: number; account_id: number; summary: string; log_seq: number; consent: 'confirmed' | 'standing_permission' }[],
  now: string,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (let i = 0; i < rows.length; i += 250) {
    const inserted = await db
      .insertInto('contributions')
      .values(
        rows.slice(i, i + 250).map((r) => ({
          page_id: r.page_id,
          account_id: r.account_id,
          role: 'author',
          summary: r.summary,
          change_from: null,
          change_to: null,
          accepted_at: now,
          created_at: now,
          submission_id: null,
          log_seq: r.log_seq,
          asserted_by: 'publisher' as const,
          consent: r.consent,
        })),
      )
      .returning(['id', 'page_id', 'account_id'])
      .execute();
    for (const r of inserted) ids.set(`${r.page_id}:${r.account_id}`, r.id);
  }
  return ids;
}

/** The page with the most accepted work, for showcases such as the embed demo. */
export async function findBusiestPage(db: Db) {
  const top = await db
    .selectFrom('contributions')
    .select(['page_id', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('page_id')
    .orderBy('n', 'desc')
    .orderBy('page_id')
    .limit(1)
    .executeTakeFirst();
  return top ? findPageById(db, top.page_id) : undefined;
}

/** One row of a record load: the page and its publisher, the verified flag, and one accepted contribution (or none). */
export interface RecordLoadRow extends PageRow {
  verified: number | boolean;
  /** The page's notices as a JSON array (any order). */
  notices: string;
  c_id: number | null;
  role: WorkKind | null;
  summary: string | null;
  change_from: string | null;
  change_to: string | null;
  accepted_at: string | null;
  quote_exact: string | null;
  quote_prefix: string | null;
  quote_suffix: string | null;
  claim: string | null;
  verdict: number | null;
  page_hash: string | null;
  page_changed_at: string | null;
  correction_missing: number | null;
  log_seq: number | null;
  asserted_by: AssertedBy | null;
  consent: Consent | null;
  account_id: number | null;
  username: string | null;
  name: string | null;
  level: Level | null;
  trust_score: number | null;
}

// The cold read path: a record is one fixed statement, run by the database's FixedReader (db/client.ts):
// prepared once, nothing built or compiled per request, on what is committed.
// The verified flag is hostUnderDomain (url-keys.ts) in SQL: the host is the domain or ends with "." + domain.
// On SQLite the value is bound as `+?`: better-sqlite3's SQLite is built with STAT4, which re-prepares a statement
// whenever a new value is bound to a parameter compared with an indexed column (the plan might depend on it). For
// this join that re-prepare was 85% of a cache miss (142 µs of 166 measured on 100,000 pages); the unary plus is a
// no-op on the value that hides it from the planner, and the index is still used (docs/performance.md).
// A page's notices ride along as one JSON array per row, so a record stays one statement; the record
// sorts them. One probe of page_notices_page per row.
const NOTICE_FIELDS = ['id', 'type', 'notice_date', 'reason', 'notice_url', 'created_at', 'log_seq'];
const noticesSql = {
  sqlite: `(select json_group_array(json_object(${NOTICE_FIELDS.map((f) => `'${f}', n.${f}`).join(', ')})) from page_notices n where n.page_id = p.id)`,
  postgres: `(select coalesce(json_agg(json_build_object(${NOTICE_FIELDS.map((f) => `'${f}', n.${f}`).join(', ')})), '[]'::json)::text from page_notices n where n.page_id = p.id)`,
};

const recordSql = (where: string, notices: string) => `select
  p.id, p.publisher_id, p.url, p.lookup_key, p.embed_key, p.host, p.title, p.topic, p.created_at, p.updated_at,
  p.content_hash, p.content_seen_at, p.content_changed_at,
  pub.slug as publisher_slug, pub.name as publisher_name,
  exists (select 1 from domains d where d.publisher_id = p.publisher_id and d.status = 'verified'
    and (p.host = d.domain or substr(p.host, length(p.host) - length(d.domain)) = '.' || d.domain)) as verified,
  ${notices} as notices,
  c.id as c_id, c.role, c.summary, c.change_from, c.change_to, c.accepted_at,
  c.quote_exact, c.quote_prefix, c.quote_suffix, c.claim, c.verdict, c.page_hash, c.page_changed_at, c.correction_missing, c.log_seq,
  c.asserted_by, c.consent,
  a.id as account_id, a.username, a.name, a.level, a.trust_score
from pages p
join publishers pub on pub.id = p.publisher_id
left join contributions c on c.page_id = p.id
left join accounts a on a.id = c.account_id
where ${where}
order by p.id, c.accepted_at, c.id`;

const fixed = (name: string, where: string): FixedQuery => ({
  name,
  sqlite: recordSql(where.replace(':value', '+?'), noticesSql.sqlite),
  postgres: recordSql(where.replace(':value', '$1'), noticesSql.postgres),
});

const RECORD_QUERIES = {
  lookup: fixed('record_by_lookup_key', 'p.lookup_key = :value'),
  id: fixed('record_by_id', 'p.id = :value'),
  // Several pages may share an embed key (SPEC §3); the service keeps the one with the newest accepted work.
  embed: fixed('record_by_embed_key', 'p.id in (select id from pages where embed_key = :value order by id limit 50)'),
};

/** The rows of the records a lookup key, a page id or an embed key names (empty when none), as committed. */
export function loadRecordRows(read: FixedReader, by: keyof typeof RECORD_QUERIES, value: string | number): Promise<RecordLoadRow[]> {
  return read<RecordLoadRow>(RECORD_QUERIES[by], [value]);
}

/** Pages whose embed key hash starts with `prefix` (a bucket of the extension's private lookup), id order. */
export const findPagesByHashPrefix = (db: Db, prefix: string) =>
  pagesWithPublisher(db).where('p.embed_key_hash', '>=', prefix).where('p.embed_key_hash', '<', prefixEnd(prefix)).orderBy('p.id').execute();

/** Every verified domain, sorted: the hosts the extension may ask about. */
export async function listVerifiedDomains(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('domains').select('domain').where('status', '=', 'verified').distinct().orderBy('domain').execute();
  return rows.map((r) => r.domain);
}
