// All SQL about publisher requests. Writes that move a state say which state they move from, so two callers
// racing for the same move cannot both win.
import { type ExpressionBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Db } from '../../db/schema.js';
import type { WorkKind } from '../work-kinds.js';

const requestColumns = [
  'r.id',
  'r.publisher_id',
  'r.page_id',
  'r.kind',
  'r.topic',
  'r.title',
  'r.brief',
  'r.status',
  'r.taken_by',
  'r.taken_at',
  'r.created_at',
  'r.updated_at',
  'p.url as page_url',
  'p.title as page_title',
  'pub.slug as publisher_slug',
  'pub.name as publisher_name',
  't.username as taken_by_username',
] as const;

const requestsWithPage = (db: Db) =>
  db
    .selectFrom('requests as r')
    .innerJoin('pages as p', 'p.id', 'r.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'r.publisher_id')
    .leftJoin('accounts as t', 't.id', 'r.taken_by')
    .select(requestColumns);

export type RequestRow = NonNullable<Awaited<ReturnType<typeof findRequest>>>;

export const findRequest = (db: Db, id: number) => requestsWithPage(db).where('r.id', '=', id).executeTakeFirst();

/** Requests of a publication still in the marketplace or being worked on: open or taken. */
export async function countActiveRequests(db: Db, publisherId: number): Promise<number> {
  const r = await db
    .selectFrom('requests')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('publisher_id', '=', publisherId)
    .where('status', 'in', ['open', 'taken'])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertRequest(
  db: Db,
  row: { publisher_id: number; page_id: number; kind: WorkKind; topic: string; title: string; brief: string; created_by: number; now: string },
): Promise<number> {
  const { now, ...rest } = row;
  const r = await db
    .insertInto('requests')
    .values({ ...rest, status: 'open', taken_by: null, taken_at: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The requests of the publications named (the caller's own: a key's one, or every one a person belongs to). */
export async function listPublisherRequests(db: Db, publisherIds: number[], limit: number, offset: number) {
  if (publisherIds.length === 0) return { rows: [], total: 0 };
  const [rows, total] = await Promise.all([
    requestsWithPage(db).where('r.publisher_id', 'in', publisherIds).orderBy('r.id', 'desc').limit(limit).offset(offset).execute(),
    db
      .selectFrom('requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('publisher_id', 'in', publisherIds)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function listOpenRequests(
  db: Db,
  filter: { topic?: string | undefined; kind?: WorkKind | undefined },
  limit: number,
  offset: number,
) {
  let q = db.selectFrom('requests as r').where('r.status', '=', 'open');
  if (filter.topic) q = q.where('r.topic', '=', filter.topic);
  if (filter.kind) q = q.where('r.kind', '=', filter.kind);
  const [ids, total] = await Promise.all([
    q.select('r.id').orderBy('r.id', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const rows = ids.length
    ? await requestsWithPage(db)
        .where(
          'r.id',
          'in',
          ids.map((r) => r.id),
        )
        .orderBy('r.id', 'desc')
        .execute()
    : [];
  return { rows, total: Number(total.n) };
}

/**
 * Requests a specialist holds now, newest first, each with when the holder last submitted work on it that waits for
 * the publisher (null when none): such a take does not run out, so its page must not say it will.
 */
export const listTakenBy = (db: Db, accountId: number) =>
  requestsWithPage(db)
    .select((eb) =>
      eb
        .selectFrom('submissions as s')
        .select((sb) => sb.fn.max('s.created_at').as('latest'))
        .whereRef('s.request_id', '=', 'r.id')
        .whereRef('s.account_id', '=', 'r.taken_by')
        .where('s.status', '=', 'pending')
        .as('work_submitted_at'),
    )
    .where('r.taken_by', '=', accountId)
    .where('r.status', '=', 'taken')
    .orderBy('r.id', 'desc')
    .limit(100)
    .execute();

export type TakenRow = Awaited<ReturnType<typeof listTakenBy>>[number];

/** Move a request between states; returns false when it was not in `from` (someone else moved it first). */
export async function moveRequest(
  db: Db,
  id: number,
  from: RequestRow['status'][],
  to: { status: RequestRow['status']; taken_by?: number | null; taken_at?: string | null; updated_at: string },
  takenBy?: number,
): Promise<boolean> {
  let q = db.updateTable('requests').set(to).where('id', '=', id).where('status', 'in', from);
  if (takenBy !== undefined) q = q.where('taken_by', '=', takenBy);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A publication's requests open or taken, with their page's host (at most ACTIVE_REQUESTS_MAX): a moved domain's. */
export const activeRequestsWithHost = (db: Db, publisherId: number) =>
  db
    .selectFrom('requests as r')
    .innerJoin('pages as p', 'p.id', 'r.page_id')
    .select(['r.id', 'r.status', 'r.taken_by', 'p.url', 'p.host'])
    .where('r.publisher_id', '=', publisherId)
    .where('r.status', 'in', ['open', 'taken'])
    .orderBy('r.id')
    .execute();

// ---- Holding requests: the cap and the take's expiry ----

/** Whether the taker has work pending on the request: then the take holds (the publisher is deciding). */
const noPendingWork = (eb: ExpressionBuilder<DB, 'requests'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('submissions as s')
        .select(sql`1`.as('one'))
        .whereRef('s.request_id', '=', 'requests.id')
        .whereRef('s.account_id', '=', 'requests.taken_by')
        .where('s.status', '=', 'pending'),
    ),
  );

/**
 * Requests the account holds: what the cap counts. A take with work pending on it still counts (submitting junk must
 * not free a place); the place frees when the publisher decides the work (accepting fulfils the request, rejecting
 * reopens it), or the take is released, expires or is cancelled: each moves the request out of `taken`.
 */
export async function countHeld(db: Db, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('requests')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('taken_by', '=', accountId)
    .where('status', '=', 'taken')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Takes made at or before `cutoff` with no work pending: the ones to expire, oldest first. */
export const findStaleTakes = (db: Db, cutoff: string, limit: number) =>
  db
    .selectFrom('requests')
    .select(['id', 'publisher_id', 'taken_by', 'taken_at'])
    .where('status', '=', 'taken')
    .where('taken_at', '<=', cutoff)
    .where(noPendingWork)
    .orderBy('taken_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/**
 * Reopen one stale take and record that it expired, in one transaction's worth of statements (the caller's). The
 * move names the take it ends (taken by, taken at) and checks again that no work is pending, so a sweep running
 * twice, on two instances at once, or after the specialist released, submitted or took it again moves nothing:
 * false then.
 */
export async function expireTake(trx: Db, take: { id: number; publisher_id: number; taken_by: number; taken_at: string }, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('requests')
    .set({ status: 'open', taken_by: null, taken_at: null, updated_at: now })
    .where('id', '=', take.id)
    .where('status', '=', 'taken')
    .where('taken_by', '=', take.taken_by)
    .where('taken_at', '=', take.taken_at)
    .where(noPendingWork)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  await trx
    .insertInto('request_take_expiries')
    .values({ request_id: take.id, publisher_id: take.publisher_id, account_id: take.taken_by, taken_at: take.taken_at, expired_at: now })
    .onConflict((oc) => oc.columns(['request_id', 'taken_at']).doNothing())
    .execute();
  return true;
}

const expiriesWithRequest = (db: Db) =>
  db
    .selectFrom('request_take_expiries as x')
    .innerJoin('requests as r', 'r.id', 'x.request_id')
    .innerJoin('pages as p', 'p.id', 'r.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'x.publisher_id')
    .innerJoin('accounts as a', 'a.id', 'x.account_id')
    .select(['x.id', 'x.request_id', 'x.taken_at', 'x.expired_at', 'r.title', 'r.status', 'p.title as page_title', 'p.url as page_url', 'pub.name as publisher_name', 'a.username']);

export type TakeExpiryRow = Awaited<ReturnType<typeof listExpiriesOfAccount>>[number];

/** The account's takes that expired since `since`, newest first (its /me page). */
export const listExpiriesOfAccount = (db: Db, accountId: number, since: string, limit: number) =>
  expiriesWithRequest(db).where('x.account_id', '=', accountId).where('x.expired_at', '>=', since).orderBy('x.id', 'desc').limit(limit).execute();

/** Takes of the publisher's requests that expired since `since`, newest first (its dashboard). */
export const listExpiriesOfPublisher = (db: Db, publisherId: number, since: string, limit: number) =>
  expiriesWithRequest(db).where('x.publisher_id', '=', publisherId).where('x.expired_at', '>=', since).orderBy('x.id', 'desc').limit(limit).execute();
