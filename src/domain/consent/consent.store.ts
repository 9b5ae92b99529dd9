// All the SQL of consent: claims, a person's standing answers to a publication, and withdrawn work.
// Reads of a person's own objects take the person (`accountId`), so another's cannot be read by accident.
import type { ClaimPreference, ClaimState } from '../../db/schema.js';
import type { Db } from '../../db/schema.js';

export const pairKey = (pageId: number, accountId: number) => `${pageId}:${accountId}`;

/** Every claim on these pages naming these people, by `page:account`. */
export async function claimsFor(db: Db, pageIds: number[], accountIds: number[]): Promise<Map<string, { id: number; state: ClaimState }>> {
  const out = new Map<string, { id: number; state: ClaimState }>();
  if (pageIds.length === 0 || accountIds.length === 0) return out;
  for (let i = 0; i < pageIds.length; i += 500) {
    const rows = await db
      .selectFrom('author_claims')
      .select(['id', 'page_id', 'account_id', 'state'])
      .where('page_id', 'in', pageIds.slice(i, i + 500))
      .where('account_id', 'in', accountIds)
      .execute();
    for (const r of rows) out.set(pairKey(r.page_id, r.account_id), { id: r.id, state: r.state });
  }
  return out;
}

/** Each person's standing answer to this publication, where they gave one. */
export async function preferencesOf(db: Db, publisherId: number, accountIds: number[]): Promise<Map<number, ClaimPreference>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('claim_preferences')
    .select(['account_id', 'preference'])
    .where('publisher_id', '=', publisherId)
    .where('account_id', 'in', accountIds)
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.preference]));
}

/** Which of these people are members of the publication now. */
export async function membersAmong(db: Db, publisherId: number, accountIds: number[]): Promise<Set<number>> {
  if (accountIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('publisher_members')
    .select('account_id')
    .where('publisher_id', '=', publisherId)
    .where('account_id', 'in', accountIds)
    .execute();
  return new Set(rows.map((r) => r.account_id));
}

/** Pending claims from one publication, per person. */
export async function pendingCounts(db: Db, publisherId: number, accountIds: number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('author_claims')
    .select(['account_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('publisher_id', '=', publisherId)
    .where('state', '=', 'pending')
    .where('account_id', 'in', accountIds)
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((r) => [r.account_id, Number(r.n)]));
}

/** How many author claims on a page wait for the named person's answer. */
export async function pendingOnPage(db: Db, pageId: number): Promise<number> {
  const r = await db
    .selectFrom('author_claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('page_id', '=', pageId)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Claims a publication made since a moment (its daily allowance). */
export async function claimsMadeSince(db: Db, publisherId: number, since: string): Promise<number> {
  const r = await db
    .selectFrom('author_claims')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('publisher_id', '=', publisherId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/** Returns the new claims' ids, in the order given. */
export async function insertClaims(
  db: Db,
  rows: { page_id: number; publisher_id: number; account_id: number; state: ClaimState }[],
  now: string,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await db
      .insertInto('author_claims')
      .values(rows.slice(i, i + 200).map((r) => ({ ...r, created_at: now, decided_at: r.state === 'pending' ? null : now })))
      .returning('id')
      .execute();
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

/** A claim with what the person needs to decide it: the page and the publication. */
function claimQuery(db: Db) {
  return db
    .selectFrom('author_claims as k')
    .innerJoin('pages as p', 'p.id', 'k.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'k.publisher_id')
    .select([
      'k.id',
      'k.state',
      'k.created_at',
      'k.decided_at',
      'k.account_id',
      'k.publisher_id',
      'p.id as page_id',
      'p.url as page_url',
      'p.title as page_title',
      'p.topic as page_topic',
      'pub.slug as publisher_slug',
      'pub.name as publisher_name',
    ]);
}
export type ClaimRow = Awaited<ReturnType<typeof findClaimOf>> & object;

export function listClaimsOf(db: Db, accountId: number, state?: ClaimState) {
  let q = claimQuery(db).where('k.account_id', '=', accountId);
  if (state) q = q.where('k.state', '=', state);
  return q.orderBy('k.id', 'desc').limit(200).execute();
}

/** A publication's claims on its pages (the publisher sees what is pending), newest first; one page's, or one state's. */
export function listClaimsOfPublisher(db: Db, publisherId: number, filter: { pageId?: number; state?: ClaimState } = {}) {
  let q = claimQuery(db)
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['a.username'])
    .where('k.publisher_id', '=', publisherId);
  if (filter.pageId !== undefined) q = q.where('k.page_id', '=', filter.pageId);
  if (filter.state !== undefined) q = q.where('k.state', '=', filter.state);
  return q.orderBy('k.id', 'desc').limit(500).execute();
}

export function findClaimOf(db: Db, accountId: number, id: number) {
  return claimQuery(db).where('k.id', '=', id).where('k.account_id', '=', accountId).executeTakeFirst();
}

/** Move a claim from pending; false when it was not pending any more (decided meanwhile). */
export async function settleClaim(db: Db, id: number, to: ClaimState, now: string): Promise<boolean> {
  const r = await db.updateTable('author_claims').set({ state: to, decided_at: now }).where('id', '=', id).where('state', '=', 'pending').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The page's claim for this person ends as `withdrawn` (made so when there was none: a standing permission's). */
export async function markClaimWithdrawn(db: Db, pageId: number, publisherId: number, accountId: number, now: string): Promise<void> {
  await db
    .insertInto('author_claims')
    .values({ page_id: pageId, publisher_id: publisherId, account_id: accountId, state: 'withdrawn', created_at: now, decided_at: now })
    .onConflict((oc) => oc.columns(['page_id', 'account_id']).doUpdateSet({ state: 'withdrawn', decided_at: now }))
    .execute();
}

export async function setPreference(db: Db, accountId: number, publisherId: number, preference: ClaimPreference, now: string): Promise<void> {
  await db
    .insertInto('claim_preferences')
    .values({ account_id: accountId, publisher_id: publisherId, preference, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'publisher_id']).doUpdateSet({ preference, created_at: now }))
    .execute();
}

export async function deletePreference(db: Db, accountId: number, publisherId: number): Promise<void> {
  await db.deleteFrom('claim_preferences').where('account_id', '=', accountId).where('publisher_id', '=', publisherId).execute();
}

export function listPreferencesOf(db: Db, accountId: number) {
  return db
    .selectFrom('claim_preferences as c')
    .innerJoin('publishers as p', 'p.id', 'c.publisher_id')
    .select(['p.slug', 'p.name', 'c.preference', 'c.created_at'])
    .where('c.account_id', '=', accountId)
    .orderBy('p.slug')
    .execute();
}

/** One public contribution of this person, with its page and publication (what a withdrawal entry names). */
export function findContributionOf(db: Db, accountId: number, id: number) {
  return db
    .selectFrom('contributions as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'p.publisher_id')
    .select([
      'c.id',
      'c.role',
      'c.summary',
      'c.accepted_at',
      'c.log_seq',
      'c.account_id',
      'c.submission_id',
      'p.id as page_id',
      'p.url as page_url',
      'p.title as page_title',
      'p.topic as page_topic',
      'p.publisher_id',
      'pub.slug as publisher_slug',
      'pub.name as publisher_name',
    ])
    .where('c.id', '=', id)
    .where('c.account_id', '=', accountId)
    .executeTakeFirst();
}
export type OwnContribution = NonNullable<Awaited<ReturnType<typeof findContributionOf>>>;

/** The contribution leaves every public read: its row moves to `withdrawn_contributions` (one statement each). */
export async function moveToWithdrawn(db: Db, c: OwnContribution, now: string): Promise<void> {
  await db
    .insertInto('withdrawn_contributions')
    .values({ id: c.id, page_id: c.page_id, account_id: c.account_id, role: c.role, accepted_at: c.accepted_at, withdrawn_at: now, log_seq: null })
    .execute();
  await db.deleteFrom('contributions').where('id', '=', c.id).execute();
}

/** The withdrawal's entry in the change log (and so the transparency log). */
export async function linkWithdrawal(db: Db, id: number, seq: number): Promise<void> {
  await db.updateTable('withdrawn_contributions').set({ log_seq: seq }).where('id', '=', id).execute();
}

/** A person's public contributions, newest first (at most 500): what they can take their name back from. */
export function listContributionsOf(db: Db, accountId: number) {
  return db
    .selectFrom('contributions as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'p.publisher_id')
    .select(['c.id', 'c.role', 'c.summary', 'c.accepted_at', 'c.asserted_by', 'c.consent', 'p.id as page_id', 'p.url as page_url', 'p.title as page_title', 'pub.name as publisher_name'])
    .where('c.account_id', '=', accountId)
    .orderBy('c.accepted_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(500)
    .execute();
}

/** Authorships named before consent existed (migration 0013 marked them); the service retracts them at start. */
export function listNotAsked(db: Db, limit: number) {
  return db.selectFrom('contributions').select(['id', 'account_id']).where('consent', '=', 'not_asked').orderBy('id').limit(limit).execute();
}

/**
 * How a person stands as an author of a page, for the conflict rule (consent/conflicts.ts): `author` while the record
 * names them (a claim confirmed, an authorship on it); `former_author` once they took their name back (the claim
 * ends `withdrawn`, and `withdrawn_contributions` keeps the row by reference until the account is erased);
 * `pending` while a claim waits for their answer. A declined claim names nobody.
 */
export type Authorship = 'author' | 'former_author' | 'pending';

/** How the person stands as an author of each of these pages (pages absent from the answer: not at all), in three reads. */
export async function authorshipsOf(db: Db, accountId: number, pageIds: number[]): Promise<Map<number, Authorship>> {
  const out = new Map<number, Authorship>();
  if (pageIds.length === 0) return out;
  const [claims, authorships, withdrawn] = await Promise.all([
    db
      .selectFrom('author_claims')
      .select(['page_id', 'state'])
      .where('account_id', '=', accountId)
      .where('page_id', 'in', pageIds)
      .where('state', 'in', ['pending', 'confirmed', 'withdrawn'])
      .execute(),
    db.selectFrom('contributions').select('page_id').where('account_id', '=', accountId).where('page_id', 'in', pageIds).where('role', '=', 'author').execute(),
    db
      .selectFrom('withdrawn_contributions')
      .select('page_id')
      .where('account_id', '=', accountId)
      .where('page_id', 'in', pageIds)
      .where('role', '=', 'author')
      .execute(),
  ]);
  // The strongest standing wins: on the record now, then named once, then asked.
  for (const c of claims) if (c.state === 'pending') out.set(c.page_id, 'pending');
  for (const r of [...claims.filter((c) => c.state === 'withdrawn'), ...withdrawn]) out.set(r.page_id, 'former_author');
  for (const r of [...claims.filter((c) => c.state === 'confirmed'), ...authorships]) out.set(r.page_id, 'author');
  return out;
}

/** Whether the person is named as an author of the page in any way `authorshipsOf` counts (pending included). */
export const isNamedAuthor = async (db: Db, pageId: number, accountId: number): Promise<boolean> => (await authorshipsOf(db, accountId, [pageId])).has(pageId);
