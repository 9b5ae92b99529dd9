// All SQL about declared interests. Every read of one person's interests takes the account.
import type { Db } from '../../db/schema.js';
import type { InterestKind, InterestSubject } from '../../db/schema.js';

const columns = ['i.id', 'i.account_id', 'i.subject', 'i.name', 'i.publisher_id', 'i.kind', 'i.note', 'i.declared_at', 'i.ended_at', 'p.slug as publisher_slug'] as const;

const interests = (db: Db) => db.selectFrom('declared_interests as i').leftJoin('publishers as p', 'p.id', 'i.publisher_id').select(columns);

export type InterestRow = Awaited<ReturnType<typeof listInterests>>[number];

/** Interests of some accounts, current ones only unless `withEnded`, oldest first. */
export function listInterests(db: Db, accountIds: number[], withEnded = false) {
  let q = interests(db).where('i.account_id', 'in', accountIds.length ? accountIds : [-1]);
  if (!withEnded) q = q.where('i.ended_at', 'is', null);
  return q.orderBy('i.id').execute();
}

/** The current interest of an account in a publication, if any. */
export const findPublicationInterest = (db: Db, accountId: number, publisherId: number) =>
  interests(db).where('i.account_id', '=', accountId).where('i.publisher_id', '=', publisherId).where('i.ended_at', 'is', null).orderBy('i.id').executeTakeFirst();

export async function insertInterest(
  db: Db,
  row: { account_id: number; subject: InterestSubject; name: string; publisher_id: number | null; kind: InterestKind; note: string; declared_at: string },
): Promise<number> {
  return (await db.insertInto('declared_interests').values({ ...row, ended_at: null }).returning('id').executeTakeFirstOrThrow()).id;
}

/** End one of the account's current interests; false when it has none by that id. */
export async function endInterest(db: Db, accountId: number, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('declared_interests')
    .set({ ended_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
