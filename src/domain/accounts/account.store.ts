// All SQL about accounts and sessions.
import type { Dialect } from '../../db/client.js';
import type { Db } from '../../db/schema.js';

export async function insertAccount(
  db: Db,
  row: { email: string; username: string; name: string; password_hash: string; is_admin: number; now: string; email_confirmed_at: string | null; locale: string },
): Promise<number> {
  const { now, ...rest } = row;
  const r = await db
    .insertInto('accounts')
    .values({ ...rest, summary: '', topics: '[]', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export const findAccountByEmail = (db: Db, email: string) =>
  db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();

export const findAccountById = (db: Db, id: number) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

export const findAccountByUsername = (db: Db, username: string) =>
  db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();

/** The accounts people can name (as authors, panel experts): confirmed ones only. */
export async function findAccountIdsByUsernames(db: Db, usernames: string[]): Promise<Map<string, number>> {
  if (usernames.length === 0) return new Map();
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'username'])
    .where('username', 'in', usernames)
    .where('email_confirmed_at', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.username, r.id]));
}

export async function updateProfile(
  db: Db,
  accountId: number,
  patch: { name?: string; summary?: string; topics?: string; updated_at: string },
): Promise<void> {
  await db.updateTable('accounts').set(patch).where('id', '=', accountId).execute();
}

export async function setEmail(db: Db, accountId: number, email: string, now: string): Promise<void> {
  await db.updateTable('accounts').set({ email, updated_at: now }).where('id', '=', accountId).execute();
}

export async function confirmEmail(db: Db, accountId: number, now: string): Promise<void> {
  await db.updateTable('accounts').set({ email_confirmed_at: now }).where('id', '=', accountId).where('email_confirmed_at', 'is', null).execute();
}

export async function setAdmin(db: Db, accountId: number): Promise<void> {
  await db.updateTable('accounts').set({ is_admin: 1 }).where('id', '=', accountId).execute();
}

export async function insertSession(
  db: Db,
  row: { account_id: number; token_hash: string; created_at: string; expires_at: string; device: string },
): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export const findSessionByHash = (db: Db, tokenHash: string) =>
  db
    .selectFrom('sessions')
    .select(['id', 'account_id', 'expires_at', 'ended_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();

/** End one of the account's live sessions; false when it has none by that id. */
export async function endSession(db: Db, sessionId: number, accountId: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('id', '=', sessionId)
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** The account's sessions neither ended nor expired, newest first. */
export const liveSessions = (db: Db, accountId: number, now: string) =>
  db
    .selectFrom('sessions')
    .select(['id', 'device', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id', 'desc')
    .limit(100)
    .execute();

export async function setPasswordHash(db: Db, accountId: number, hash: string, now: string): Promise<void> {
  await db.updateTable('accounts').set({ password_hash: hash, updated_at: now }).where('id', '=', accountId).execute();
}

/** End every live session of an account, but `except` (the caller's own); how many ended. */
export async function endSessions(db: Db, accountId: number, now: string, except?: number): Promise<number> {
  let q = db.updateTable('sessions').set({ ended_at: now }).where('account_id', '=', accountId).where('ended_at', 'is', null);
  if (except !== undefined) q = q.where('id', '!=', except);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Hold the account's row for the rest of this transaction, so that two writes checking one of its caps (keys held,
 * requests held) run one after the other and the second counts what the first wrote. PostgreSQL: a row lock (a
 * waiting transaction's next statement sees the first one's commit under READ COMMITTED). SQLite: nothing to do,
 * every transaction holds the database's write lock from its BEGIN IMMEDIATE.
 */
export async function lockAccount(trx: Db, dialect: Dialect, accountId: number): Promise<void> {
  if (dialect === 'postgres') await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}
