// Public reads of contributors: reputation, expertise and accepted work. Never selects an email or a hash.
import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { FORMER_CONTRIBUTOR } from '../accounts/rules.js';

const publicAccount = ['a.id', 'a.username', 'a.name', 'a.summary', 'a.level', 'a.trust_score', 'a.contribution_score', 'a.accepted_count', 'a.created_at'] as const;

export type ContributorRow = NonNullable<Awaited<ReturnType<typeof findContributor>>>;

/** By numeric id or by username (SPEC §15). */
export function findContributor(db: Db, idOrUsername: string) {
  // Unconfirmed accounts are not public; the shared account of erased people's work is nobody's profile
  //.
  const q = db
    .selectFrom('accounts as a')
    .select(publicAccount)
    .where('a.email_confirmed_at', 'is not', null)
    .where('a.username', '!=', FORMER_CONTRIBUTOR.username);
  return /^[0-9]+$/.test(idOrUsername) && Number(idOrUsername) <= 2_147_483_647
    ? q.where('a.id', '=', Number(idOrUsername)).executeTakeFirst()
    : q.where('a.username', '=', idOrUsername.toLowerCase()).executeTakeFirst();
}

export async function topicsOf(db: Db, accountIds: number[]) {
  const out = new Map<number, { topic: string; authority: number; accepted: number }[]>();
  if (accountIds.length === 0) return out;
  const rows = await db
    .selectFrom('account_topics')
    .select(['account_id', 'topic', 'authority', 'accepted'])
    .where('account_id', 'in', accountIds)
    .orderBy('authority', 'desc')
    .orderBy('topic')
    .execute();
  for (const r of rows) out.set(r.account_id, [...(out.get(r.account_id) ?? []), { topic: r.topic, authority: r.authority, accepted: r.accepted }]);
  return out;
}

const workColumns = [
  'c.id',
  'c.account_id',
  'c.role',
  'c.summary',
  'c.change_from',
  'c.change_to',
  'c.accepted_at',
  'c.submission_id',
  'c.log_seq',
  'c.asserted_by',
  'c.consent',
  'p.id as page_id',
  'p.url as page_url',
  'p.title as page_title',
  'p.topic as page_topic',
  'pub.slug as publisher_slug',
  'pub.name as publisher_name',
  // What the answer depends on, for the cache tier's keys (http/cache-tier.ts); not shown.
  'pub.id as publisher_id',
] as const;

const acceptedWork = (db: Db) =>
  db
    .selectFrom('contributions as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'p.publisher_id')
    .select(workColumns);

export type WorkRow = Awaited<ReturnType<typeof listAcceptedWork>>[number];

export const listAcceptedWork = (db: Db, accountId: number, limit: number) =>
  acceptedWork(db).where('c.account_id', '=', accountId).orderBy('c.accepted_at', 'desc').orderBy('c.id', 'desc').limit(limit).execute();

/** The newest accepted work anywhere, with who did it (the home page's activity). */
export const listRecentWork = (db: Db, limit: number) =>
  acceptedWork(db)
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .select(['a.username', 'a.name'])
    .orderBy('c.accepted_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(limit)
    .execute();

/** The newest accepted contribution of each account, in one query. */
export async function latestWorkOf(db: Db, accountIds: number[]): Promise<Map<number, WorkRow>> {
  if (accountIds.length === 0) return new Map();
  const latest = db
    .selectFrom('contributions')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('account_id', 'in', accountIds)
    .groupBy('account_id');
  const rows = await acceptedWork(db).where('c.id', 'in', latest).execute();
  return new Map(rows.map((r) => [r.account_id, r]));
}

export async function searchContributors(
  db: Db,
  filter: { topic?: string | undefined; q?: string | undefined; order?: 'trust' | undefined },
  limit: number,
  offset: number,
) {
  let base = db.selectFrom('accounts as a').where('a.email_confirmed_at', 'is not', null).where('a.username', '!=', FORMER_CONTRIBUTOR.username);
  if (filter.topic) base = base.innerJoin('account_topics as t', (j) => j.onRef('t.account_id', '=', 'a.id').on('t.topic', '=', filter.topic!));
  if (filter.q) {
    const like = `%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) =>
      eb.or([eb(sql`lower(a.name)`, 'like', sql`${like} escape '\\'`), eb(sql`lower(a.username)`, 'like', sql`${like} escape '\\'`)]),
    );
  }
  // By topic: the index (topic, authority, account_id) gives this order directly, so a page is read, not sorted.
  const ordered = filter.topic
    ? base.orderBy(sql`t.authority`, 'desc').orderBy(sql`t.account_id`, 'desc')
    : filter.order === 'trust'
      ? // The home page's few: the order its list shows (trust, then accepted count).
        base.orderBy('a.trust_score', 'desc').orderBy('a.accepted_count', 'desc').orderBy('a.id')
      : base.orderBy('a.contribution_score', 'desc').orderBy('a.trust_score', 'desc').orderBy('a.id');
  const [rows, total] = await Promise.all([
    ordered.select(publicAccount).limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** One accepted contribution with what proves it: the evidence and the decision. */
export const findProof = (db: Db, contributionId: number) =>
  acceptedWork(db)
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .leftJoin('submissions as s', 's.id', 'c.submission_id')
    .select([
      'a.username',
      'a.name',
      'p.publisher_id',
      's.before_text',
      's.after_text',
      's.reason',
      's.sources',
      's.decision_note',
      's.decided_at',
      's.request_id',
      'c.quote_exact',
      'c.quote_prefix',
      'c.quote_suffix',
      'c.claim',
      'c.verdict',
      'c.page_hash',
      'c.page_changed_at',
      'c.correction_missing',
    ])
    .where('c.id', '=', contributionId)
    .executeTakeFirst();
