// All SQL about mail: the outbox, single-use links, turned-off notice kinds and held usernames. Every row that names
// an address belongs to an account (account_id), so erasing the account erases them.
import { sql } from 'kysely';
import type { Dialect } from '../../db/client.js';
import type { Db } from '../../db/schema.js';

export interface OutboxInsert {
  account_id: number;
  kind: string;
  to_address: string;
  locale: string;
  thread: string | null;
  facts: unknown[];
  message_id: string;
  next_attempt_at: string;
  created_at: string;
}

export async function insertOutbox(db: Db, row: OutboxInsert): Promise<number> {
  const r = await db
    .insertInto('mail_outbox')
    .values({ ...row, facts: JSON.stringify(row.facts), status: 'pending', attempts: 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/**
 * A notice of this thread still waiting to be sent, held for the rest of the transaction (PostgreSQL: a row lock;
 * SQLite: the transaction holds the write lock), so a fact joins it or a new message is made, never both or
 * neither. A row a sender has claimed is not joined: its content may be on the wire already.
 */
export async function joinableNotice(db: Db, dialect: Dialect, accountId: number, thread: string, now: string) {
  let q = db
    .selectFrom('mail_outbox')
    .select(['id', 'facts'])
    .where('account_id', '=', accountId)
    .where('thread', '=', thread)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('lease_owner', 'is', null)
    .where('next_attempt_at', '>', now)
    .orderBy('id', 'desc')
    .limit(1);
  if (dialect === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Add facts to a waiting notice; false when a sender claimed it meanwhile. */
export async function appendFacts(db: Db, id: number, facts: unknown[]): Promise<boolean> {
  const r = await db
    .updateTable('mail_outbox')
    .set({ facts: JSON.stringify(facts) })
    .where('id', '=', id)
    .where('lease_owner', 'is', null)
    .where('attempts', '=', 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function dueMail(db: Db, now: string, limit: number, skip: number[]): Promise<number[]> {
  let q = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
  if (skip.length > 0) q = q.where('id', 'not in', skip);
  const rows = await q.orderBy('next_attempt_at').orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Claim one message for this sender until `until`; false when another sender holds it or it is done. */
export async function claimMail(db: Db, id: number, owner: string, now: string, until: string): Promise<boolean> {
  const r = await db
    .updateTable('mail_outbox')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export const mailById = (db: Db, id: number) => db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();

/** Sent: its links are forgotten (they live on only in the recipient's mailbox). */
export async function markSent(db: Db, id: number, owner: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: now, facts: '[]', lease_owner: null, lease_until: null, last_error: null, attempts: sql`attempts + 1` })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function markFailed(
  db: Db,
  id: number,
  owner: string,
  patch: { attempts: number; next_attempt_at: string; last_error: string; give_up: boolean },
): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({
      attempts: patch.attempts,
      next_attempt_at: patch.next_attempt_at,
      last_error: patch.last_error.slice(0, 500),
      lease_owner: null,
      lease_until: null,
      ...(patch.give_up ? { status: 'failed' as const, facts: '[]' } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** The embedded database serves one process: leases found at start were left by a process that died. */
export async function clearLeases(db: Db): Promise<void> {
  await db.updateTable('mail_outbox').set({ lease_owner: null, lease_until: null }).where('lease_owner', 'is not', null).execute();
}

export async function pruneSent(db: Db, before: string): Promise<void> {
  await db.deleteFrom('mail_outbox').where('status', 'in', ['sent', 'failed']).where('created_at', '<', before).execute();
}

// Links: `confirm` and `reset` work once; `unsubscribe` (its `email` column names the notice kind) any number of times.

export async function insertToken(
  db: Db,
  row: { account_id: number; purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal'; token_hash: string; email: string | null; created_at: string; expires_at: string },
): Promise<void> {
  await db.insertInto('mail_tokens').values(row).execute();
}

/**
 * Spend a link: marks it used and returns it when it was live (unused, unexpired, of this purpose); null otherwise.
 * One statement, so of two uses at once only one gets the row.
 */
export async function spendToken(db: Db, purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal', tokenHash: string, now: string) {
  const r = await db
    .updateTable('mail_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'account_id', 'email'])
    .executeTakeFirst();
  return r ?? null;
}

export const liveToken = (db: Db, purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal', tokenHash: string, now: string) =>
  db
    .selectFrom('mail_tokens')
    .select(['id', 'account_id', 'email'])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();

/** Every other live link of the purpose ends (a new reset link, or a used one, voids the older ones). */
export async function voidTokens(db: Db, accountId: number, purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal', now: string): Promise<void> {
  await db.updateTable('mail_tokens').set({ used_at: now }).where('account_id', '=', accountId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

// Notice preferences.

export async function offKinds(db: Db, accountId: number): Promise<string[]> {
  const rows = await db.selectFrom('mail_preferences').select('kind').where('account_id', '=', accountId).execute();
  return rows.map((r) => r.kind);
}

export async function setKind(db: Db, accountId: number, kind: string, enabled: boolean, now: string): Promise<void> {
  if (enabled) {
    await db.deleteFrom('mail_preferences').where('account_id', '=', accountId).where('kind', '=', kind).execute();
    return;
  }
  await db
    .insertInto('mail_preferences')
    .values({ account_id: accountId, kind, updated_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'kind']).doNothing())
    .execute();
}

// Held usernames.

export async function holdUsername(db: Db, username: string, now: string): Promise<void> {
  await db
    .insertInto('username_holds')
    .values({ username, created_at: now })
    .onConflict((oc) => oc.column('username').doNothing())
    .execute();
}

export async function usernameHeld(db: Db, username: string): Promise<boolean> {
  return Boolean(await db.selectFrom('username_holds').select('username').where('username', '=', username).executeTakeFirst());
}
