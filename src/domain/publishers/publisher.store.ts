// All SQL about publishers, their members and their domains.
import { sql } from 'kysely';
import type { Dialect } from '../../db/client.js';
import type { Db } from '../../db/schema.js';

export async function insertPublisher(db: Db, row: { slug: string; name: string; created_at: string }): Promise<number> {
  const r = await db.insertInto('publishers').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export const findPublisherBySlug = (db: Db, slug: string) =>
  db.selectFrom('publishers').selectAll().where('slug', '=', slug).executeTakeFirst();

/** A publication's public face (slug, name), for the change log. */
export const findPublicPublisher = (db: Db, id: number) =>
  db.selectFrom('publishers').select(['slug', 'name']).where('id', '=', id).executeTakeFirstOrThrow();

/** A publication's public face and its verified domains in one read: registration checks URLs and logs both. */
export async function publisherWithDomains(db: Db, id: number): Promise<{ publisher: { slug: string; name: string }; domains: string[] }> {
  const rows = await db
    .selectFrom('publishers as p')
    .leftJoin('domains as d', (j) => j.onRef('d.publisher_id', '=', 'p.id').on('d.status', '=', 'verified'))
    .select(['p.slug', 'p.name', 'd.domain'])
    .where('p.id', '=', id)
    .execute();
  const first = rows[0];
  if (!first) throw new Error(`publisher ${id} does not exist`);
  return { publisher: { slug: first.slug, name: first.name }, domains: rows.flatMap((r) => (r.domain === null ? [] : [r.domain])) };
}

export type MemberRow = { publisher_id: number; account_id: number; role: 'owner' | 'editor'; created_at: string };

/**
 * Make someone a member with this role. One who already is keeps their role (`'keep'`: accepting an invitation
 * never demotes an owner) or takes the new one (`'set-role'`).
 */
export async function saveMember(db: Db, row: MemberRow, existing: 'set-role' | 'keep'): Promise<void> {
  // Remembered for good: a past member still links the publication to their others (reputation's sources).
  await db
    .insertInto('publisher_member_history')
    .values({ publisher_id: row.publisher_id, account_id: row.account_id, since: row.created_at })
    .onConflict((oc) => oc.columns(['publisher_id', 'account_id']).doNothing())
    .execute();
  await db
    .insertInto('publisher_members')
    .values(row)
    .onConflict((oc) => {
      const on = oc.columns(['publisher_id', 'account_id']);
      return existing === 'set-role' ? on.doUpdateSet({ role: row.role }) : on.doNothing();
    })
    .execute();
}

export const findMembership = (db: Db, publisherId: number, accountId: number) =>
  db
    .selectFrom('publisher_members')
    .select(['role'])
    .where('publisher_id', '=', publisherId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();

export const listMemberships = (db: Db, accountId: number) =>
  db
    .selectFrom('publisher_members as m')
    .innerJoin('publishers as p', 'p.id', 'm.publisher_id')
    .select(['p.id', 'p.slug', 'p.name', 'm.role'])
    .where('m.account_id', '=', accountId)
    .orderBy('p.slug')
    .execute();

export const listMembers = (db: Db, publisherId: number) =>
  db
    .selectFrom('publisher_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['a.username', 'a.name', 'm.role', 'm.created_at'])
    .where('m.publisher_id', '=', publisherId)
    .orderBy('m.created_at')
    .execute();

export const findDomain = (db: Db, publisherId: number, domain: string) =>
  db
    .selectFrom('domains')
    .selectAll()
    .where('publisher_id', '=', publisherId)
    .where('domain', '=', domain)
    .executeTakeFirst();

export const listDomains = (db: Db, publisherId: number) =>
  db.selectFrom('domains').selectAll().where('publisher_id', '=', publisherId).orderBy('domain').execute();

export async function insertDomain(
  db: Db,
  row: { publisher_id: number; domain: string; registrable_domain: string; token: string; created_at: string },
): Promise<void> {
  await db
    .insertInto('domains')
    .values({ ...row, status: 'pending', verified_at: null, verified_by: null })
    .execute();
}

/**
 * Mark a domain verified for one publisher. Any other publisher's verification of the same domain lapses in the
 * same transaction: whoever proves control now holds it (SPEC §1, one holder at a time).
 */
/**
 * Verify a domain for one publisher and take it from any other (one holder at a time). Run inside the caller's
 * transaction; returns the publishers that lost it.
 */
export async function markDomainVerified(
  trx: Db,
  publisherId: number,
  domain: string,
  by: 'dns' | 'file' | 'operator',
  now: string,
): Promise<number[]> {
  const displaced = await trx
    .updateTable('domains')
    .set({ status: 'pending', verified_at: null, verified_by: null })
    .where('domain', '=', domain)
    .where('publisher_id', '!=', publisherId)
    .where('status', '=', 'verified')
    .returning('publisher_id')
    .execute();
  await trx
    .updateTable('domains')
    .set({ status: 'verified', verified_at: now, verified_by: by })
    .where('publisher_id', '=', publisherId)
    .where('domain', '=', domain)
    .execute();
  return displaced.map((d) => d.publisher_id);
}

export async function verifiedDomainsOf(db: Db, publisherIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (publisherIds.length === 0) return out;
  const rows = await db
    .selectFrom('domains')
    .select(['publisher_id', 'domain'])
    .where('publisher_id', 'in', publisherIds)
    .where('status', '=', 'verified')
    .execute();
  for (const r of rows) out.set(r.publisher_id, [...(out.get(r.publisher_id) ?? []), r.domain]);
  return out;
}

export async function countPublishers(db: Db): Promise<number> {
  const r = await db.selectFrom('publishers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export const listPublishers = (db: Db, limit: number, offset: number) =>
  db.selectFrom('publishers').selectAll().orderBy('slug').limit(limit).offset(offset).execute();

/** Publications whose slug or name contains `q` (case-insensitive), by slug. */
export function searchPublishers(db: Db, q: string, limit: number) {
  const like = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db
    .selectFrom('publishers')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(name)`, 'like', sql`${like} escape '\\'`), eb(sql`lower(slug)`, 'like', sql`${like} escape '\\'`)]))
    .orderBy('slug')
    .limit(limit)
    .execute();
}

export async function countPagesByPublisher(db: Db, publisherIds: number[]): Promise<Map<number, number>> {
  if (publisherIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('pages')
    .select(['publisher_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('publisher_id', 'in', publisherIds)
    .groupBy('publisher_id')
    .execute();
  return new Map(rows.map((r) => [r.publisher_id, Number(r.n)]));
}

/** Accounts with accepted work on the publisher's pages, most contributions first, then by username. */
export const listPublisherContributors = (db: Db, publisherId: number, limit: number, after: { contributions: number; username: string } | null = null) =>
  contributorsOf(db, publisherId, after).limit(limit).execute();

/** The ranking query, from just after `after` (a cursor: the last row of the page before) when given. */
const contributorsOf = (db: Db, publisherId: number, after: { contributions: number; username: string } | null) => {
  const q = db
    .selectFrom('contributions as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .select([
      'a.id',
      'a.username',
      'a.name',
      'a.level',
      'a.trust_score',
      'a.contribution_score',
      (eb) => eb.fn.countAll<number>().as('contributions'),
    ])
    .where('p.publisher_id', '=', publisherId)
    .groupBy(['a.id', 'a.username', 'a.name', 'a.level', 'a.trust_score', 'a.contribution_score']);
  const from =
    after === null
      ? q
      : q.having((eb) =>
          eb.or([
            eb(eb.fn.countAll(), '<', after.contributions),
            eb.and([eb(eb.fn.countAll(), '=', after.contributions), eb('a.username', '>', after.username)]),
          ]),
        );
  return from.orderBy('contributions', 'desc').orderBy('a.username');
};

// ---- Membership changes and invitations ----

/**
 * Take the publication's write lock for the rest of this transaction: every change of membership takes it first, so
 * two of them (two owners demoting each other, both leaving) run one after the other and the second one reads what
 * the first one wrote. PostgreSQL: a row lock on the publication (`FOR UPDATE`; a waiting transaction's next
 * statement sees the first one's commit under READ COMMITTED). SQLite: a write as the transaction's first statement
 * takes the database's write lock at once (waiting up to busy_timeout), before anything is read; a deferred
 * transaction that read first could otherwise fail on upgrading when another process wrote in between.
 */
export async function lockPublisher(trx: Db, dialect: Dialect, publisherId: number): Promise<void> {
  if (dialect === 'postgres') {
    await trx.selectFrom('publishers').select('id').where('id', '=', publisherId).forUpdate().execute();
  } else {
    await trx.updateTable('publishers').set((eb) => ({ name: eb.ref('name') })).where('id', '=', publisherId).execute();
  }
}

export async function listOwnerIds(db: Db, publisherId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('publisher_members')
    .select('account_id')
    .where('publisher_id', '=', publisherId)
    .where('role', '=', 'owner')
    .execute();
  return rows.map((r) => r.account_id);
}

export async function deleteMember(db: Db, publisherId: number, accountId: number): Promise<void> {
  await db.deleteFrom('publisher_members').where('publisher_id', '=', publisherId).where('account_id', '=', accountId).execute();
}

/** A removed member's keys that act for the publication stop working at once. */
export async function revokePublisherKeysOf(db: Db, publisherId: number, accountId: number, now: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('publisher_id', '=', publisherId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** A removed member's webhooks of the publication pass to `heir` (an owner), who can keep, change or delete them. */
export async function handOverWebhooks(db: Db, publisherId: number, from: number, heir: number, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ account_id: heir, updated_at: now })
    .where('publisher_id', '=', publisherId)
    .where('account_id', '=', from)
    .execute();
}

export async function upsertInvitation(
  db: Db,
  row: { publisher_id: number; account_id: number; role: 'owner' | 'editor'; invited_by: number; created_at: string },
): Promise<void> {
  await db
    .insertInto('publisher_invitations')
    .values(row)
    .onConflict((oc) => oc.columns(['publisher_id', 'account_id']).doUpdateSet({ role: row.role, invited_by: row.invited_by }))
    .execute();
}

const invitationsWithNames = (db: Db) =>
  db
    .selectFrom('publisher_invitations as i')
    .innerJoin('publishers as p', 'p.id', 'i.publisher_id')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .innerJoin('accounts as b', 'b.id', 'i.invited_by')
    .select(['i.id', 'i.publisher_id', 'i.role', 'i.created_at', 'p.slug', 'p.name', 'a.username', 'a.name as account_name', 'b.username as invited_by']);

export const listInvitationsOfPublisher = (db: Db, publisherId: number) =>
  invitationsWithNames(db).where('i.publisher_id', '=', publisherId).orderBy('i.id').execute();

export const listInvitationsOfAccount = (db: Db, accountId: number) =>
  invitationsWithNames(db).where('i.account_id', '=', accountId).orderBy('i.id').execute();

export const findInvitation = (db: Db, accountId: number, id: number) =>
  invitationsWithNames(db).where('i.account_id', '=', accountId).where('i.id', '=', id).executeTakeFirst();

/** The invitation as stored (read again under the publication's lock: its role and inviter may have changed). */
export const findInvitationRow = (db: Db, accountId: number, id: number) =>
  db
    .selectFrom('publisher_invitations')
    .select(['publisher_id', 'role', 'invited_by'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();

export async function deleteInvitation(db: Db, publisherId: number, accountId: number): Promise<boolean> {
  const r = await db.deleteFrom('publisher_invitations').where('publisher_id', '=', publisherId).where('account_id', '=', accountId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Withdraw every invitation to this publication that `inviterId` made: an invitation is only as good as its inviter's
 * standing, so it goes when they leave, are removed or stop being an owner (the role that invites).
 */
export async function withdrawInvitationsBy(db: Db, publisherId: number, inviterId: number): Promise<void> {
  await db.deleteFrom('publisher_invitations').where('publisher_id', '=', publisherId).where('invited_by', '=', inviterId).execute();
}

export async function deleteInvitationById(db: Db, accountId: number, id: number): Promise<boolean> {
  const r = await db.deleteFrom('publisher_invitations').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The publications this account owns (owners manage every webhook and key of them). */
export async function ownedPublisherIds(db: Db, accountId: number): Promise<number[]> {
  const rows = await db.selectFrom('publisher_members').select('publisher_id').where('account_id', '=', accountId).where('role', '=', 'owner').execute();
  return rows.map((r) => r.publisher_id);
}

/** Publications the account owns now. */
export async function countOwned(db: Db, accountId: number): Promise<number> {
  const r = await db
    .selectFrom('publisher_members')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
