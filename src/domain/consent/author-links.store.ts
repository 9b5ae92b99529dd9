// All the SQL of author links: a publication's requests to name a CMS user as a person, and the person's answers.
// Reads of a person's own links take the person, and a publication's take the publication, so another's cannot be
// read by accident.
import type { AuthorLinkState, Db } from '../../db/schema.js';

const COLUMNS = [
  'l.id',
  'l.publisher_id',
  'l.account_id',
  'l.site',
  'l.user_id',
  'l.display_name',
  'l.state',
  'l.created_at',
  'l.decided_at',
  'a.username',
  'p.slug as publisher_slug',
  'p.name as publisher_name',
] as const;

const joined = (db: Db) =>
  db
    .selectFrom('author_links as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .innerJoin('publishers as p', 'p.id', 'l.publisher_id')
    .select(COLUMNS);

export type AuthorLinkRow = NonNullable<Awaited<ReturnType<ReturnType<typeof joined>['executeTakeFirst']>>>;

export const findLink = (db: Db, publisherId: number, site: string, userId: string, accountId: number) =>
  joined(db).where('l.publisher_id', '=', publisherId).where('l.site', '=', site).where('l.user_id', '=', userId).where('l.account_id', '=', accountId).executeTakeFirst();

export const publisherLink = (db: Db, publisherId: number, id: number) => joined(db).where('l.publisher_id', '=', publisherId).where('l.id', '=', id).executeTakeFirst();

export const ownLink = (db: Db, accountId: number, id: number) => joined(db).where('l.account_id', '=', accountId).where('l.id', '=', id).executeTakeFirst();

export async function countPending(db: Db, publisherId: number, accountId?: number): Promise<number> {
  let q = db.selectFrom('author_links').select((eb) => eb.fn.countAll<number>().as('n')).where('publisher_id', '=', publisherId).where('state', '=', 'pending');
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function insertLink(
  db: Db,
  row: { publisher_id: number; account_id: number; site: string; user_id: string; display_name: string; created_at: string },
): Promise<number> {
  const r = await db
    .insertInto('author_links')
    .values({ ...row, state: 'pending', decided_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Move a link of the person's from one of `from` to `to`; false when it was in none of them (answered meanwhile). */
export async function settleLink(db: Db, accountId: number, id: number, from: AuthorLinkState[], to: AuthorLinkState, now: string): Promise<boolean> {
  const r = await db
    .updateTable('author_links')
    .set({ state: to, decided_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export interface PublisherLinkFilter {
  site?: string;
  userId?: string;
  state?: AuthorLinkState;
}

export async function listPublisherLinks(db: Db, publisherId: number, f: PublisherLinkFilter, page: number, perPage: number) {
  let q = db.selectFrom('author_links as l').where('l.publisher_id', '=', publisherId);
  if (f.site !== undefined) q = q.where('l.site', '=', f.site);
  if (f.userId !== undefined) q = q.where('l.user_id', '=', f.userId);
  if (f.state !== undefined) q = q.where('l.state', '=', f.state);
  const [{ n }, items] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .innerJoin('publishers as p', 'p.id', 'l.publisher_id')
      .select(COLUMNS)
      .orderBy('l.id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
  ]);
  return { total: Number(n), items };
}

/** The person's links, newest first (a person has at most a few per publication: the list is bounded by the caps). */
export function listOwnLinks(db: Db, accountId: number, state?: AuthorLinkState) {
  let q = joined(db).where('l.account_id', '=', accountId);
  if (state !== undefined) q = q.where('l.state', '=', state);
  return q.orderBy('l.id', 'desc').limit(200).execute();
}
