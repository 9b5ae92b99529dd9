// All SQL about pages and their accepted contributions. Owned reads take the publisher.
import type { Db } from '../deps.js';

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
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

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

export async function insertPage(
  db: Db,
  row: {
    publisher_id: number;
    url: string;
    lookup_key: string;
    embed_key: string;
    host: string;
    title: string;
    topic: string;
    content_hash: string | null;
    now: string;
  },
): Promise<number> {
  const { now, ...rest } = row;
  const r = await db
    .insertInto('pages')
    .values({ ...rest, content_seen_at: rest.content_hash !== null ? now : null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
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

/** A contributor's public name, for the change log. */
export const findPublicContributorName = (db: Db, accountId: number) =>
  db.selectFrom('accounts').select(['username', 'name']).where('id', '=', accountId).executeTakeFirstOrThrow();

/** Authors already on a page, so registering the same authors again is a skip. */
export async function authorIdsOf(db: Db, pageId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('contributions')
    .select('account_id')
    .where('page_id', '=', pageId)
    .where('role', '=', 'author')
    .execute();
  return new Set(rows.map((r) => r.account_id));
}

export async function insertAuthor(
  db: Db,
  row: { page_id: number; account_id: number; summary: string; now: string },
): Promise<number> {
  const r = await db
    .insertInto('contributions')
    .values({
      page_id: row.page_id,
      account_id: row.account_id,
      role: 'author',
      summary: row.summary,
      change_from: null,
      change_to: null,
      accepted_at: row.now,
      created_at: row.now,
      submission_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
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
