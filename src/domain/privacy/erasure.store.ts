// All SQL of erasure: what an account's erasure moves, redacts or deletes across the tables that hold
// something of a person, and how freed space is scrubbed so the database files keep none of it.
import { createHash } from 'node:crypto';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { FORMER_CONTRIBUTOR, FORMER_PANEL_MEMBER } from '../accounts/rules.js';
import { type Person, redactPerson } from './mentions.js';
import { eventsNaming, mailNaming } from './mentions.store.js';

export const usernameHash = (username: string) => createHash('sha256').update(username.toLowerCase()).digest('hex');

export async function isRetiredUsername(db: Db, username: string): Promise<boolean> {
  const r = await db.selectFrom('retired_usernames').select('username_hash').where('username_hash', '=', usernameHash(username)).executeTakeFirst();
  return r !== undefined || username.toLowerCase() === FORMER_CONTRIBUTOR.username;
}

/** The shared account of erased people's work, made the first time it is needed (inside the erasing transaction). */
export async function formerContributorId(trx: Db, now: string): Promise<number> {
  const found = await trx.selectFrom('accounts').select('id').where('username', '=', FORMER_CONTRIBUTOR.username).executeTakeFirst();
  if (found) return found.id;
  const r = await trx
    .insertInto('accounts')
    .values({
      // Not an address anyone can own (RFC 2606 `.invalid`), and an empty hash no password verifies against.
      email: `${FORMER_CONTRIBUTOR.username}@credence.invalid`,
      username: FORMER_CONTRIBUTOR.username,
      name: FORMER_CONTRIBUTOR.name,
      summary: '',
      topics: '[]',
      password_hash: '',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** The publications whose only owner is this account. */
export async function soleOwnerships(db: Db, accountId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('publisher_members as m')
    .innerJoin('publishers as p', 'p.id', 'm.publisher_id')
    .select('p.slug')
    .where('m.account_id', '=', accountId)
    .where('m.role', '=', 'owner')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('publisher_members as o')
            .select('o.account_id')
            .whereRef('o.publisher_id', '=', 'm.publisher_id')
            .where('o.role', '=', 'owner')
            .where('o.account_id', '!=', accountId),
        ),
      ),
    )
    .orderBy('p.slug')
    .execute();
  return rows.map((r) => r.slug);
}

/** Hand the person's place in the record to the shared former contributor, and release what they held. */
export async function reassignWork(trx: Db, accountId: number, formerId: number, now: string) {
  const released = await trx
    .updateTable('requests')
    .set({ status: 'open', taken_by: null, taken_at: null, updated_at: now })
    .where('taken_by', '=', accountId)
    .where('status', '=', 'taken')
    .executeTakeFirst();
  await trx.updateTable('requests').set({ taken_by: formerId }).where('taken_by', '=', accountId).execute();
  await trx.updateTable('requests').set({ created_by: formerId }).where('created_by', '=', accountId).execute();
  await trx.updateTable('submissions').set({ decided_by: formerId }).where('decided_by', '=', accountId).execute();
  // Accepted work stays the pages' history; everything else they submitted was theirs alone.
  const dropped = await trx.deleteFrom('submissions').where('account_id', '=', accountId).where('status', '!=', 'accepted').executeTakeFirst();
  await trx.updateTable('submissions').set({ account_id: formerId }).where('account_id', '=', accountId).execute();
  const work = await trx.updateTable('contributions').set({ account_id: formerId }).where('account_id', '=', accountId).executeTakeFirst();
  await trx.updateTable('panel_entries').set({ name: FORMER_PANEL_MEMBER, account_id: null }).where('account_id', '=', accountId).execute();
  return { releasedRequests: Number(released.numUpdatedRows), droppedSubmissions: Number(dropped.numDeletedRows), keptWork: Number(work.numUpdatedRows) };
}

/** Pending submissions, to tell their publishers they are gone. */
export const pendingSubmissionsOf = (db: Db, accountId: number) =>
  db.selectFrom('submissions').select('id').where('account_id', '=', accountId).where('status', '=', 'pending').execute();

/** The JSON text that redactMentions rewrites in each table. */
interface JsonTexts {
  events: 'payload';
  mail_outbox: 'facts';
  webhook_deliveries: 'body';
}

/**
 * Take the person back out of every stored payload that names them, found by reference: the events whose mentions
 * name them (and every webhook delivery made from those events) and the mail about them waiting for or sent to
 * others. In each, only the slots that name a person are rewritten (mentions.ts); answers recorded for those
 * deliveries are cleared, since a receiver may have echoed the payload. Nothing else is read, so no other person's
 * or publication's payload can change. Answers the ids of the mail messages that named them.
 */
export async function redactMentions(trx: Db, accountId: number, person: Person): Promise<{ touched: number; mailIds: number[] }> {
  const eventIds = (await eventsNaming(trx, accountId)).map((r) => r.event_id);
  const mailIds = (await mailNaming(trx, accountId)).map((r) => r.mail_id);
  let touched = 0;
  // Seen as one shape (its id, this text): the three typed tables share no query Kysely can type generically.
  const db = trx as unknown as Kysely<Record<string, { id: number; text: string }>>;
  const redactRows = async <T extends keyof JsonTexts>(table: T, column: JsonTexts[T], key: 'id' | 'event_id', ids: number[], afterUpdate?: (id: number) => Promise<unknown>) => {
    const name: string = table;
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.selectFrom(name).select(['id', sql.ref<string>(column).as('text')]).where(sql.ref<number>(key), 'in', ids.slice(i, i + 500)).execute();
      for (const r of rows) {
        const redacted = JSON.stringify(redactPerson(JSON.parse(r.text) as unknown, person));
        if (redacted === r.text) continue;
        await db.updateTable(name).set(sql.ref(column), redacted).where('id', '=', r.id).execute();
        await afterUpdate?.(r.id);
        touched++;
      }
    }
  };
  await redactRows('events', 'payload', 'id', eventIds);
  await redactRows('webhook_deliveries', 'body', 'event_id', eventIds, (id) =>
    trx.updateTable('webhook_attempts').set({ response_body: '', error: null }).where('delivery_id', '=', id).execute(),
  );
  // Mail about them written to someone else (a publisher told who took its request): its facts.
  await redactRows('mail_outbox', 'facts', 'id', mailIds);
  return { touched, mailIds };
}

/** The mail written to the account itself (its rows go with the account; their files too). */
export const mailTo = async (db: Db, accountId: number) =>
  (await db.selectFrom('mail_outbox').select('id').where('account_id', '=', accountId).execute()).map((r) => r.id);

/** Failed log-in counts keyed by the address's hash (login-throttle.ts). */
export async function forgetThrottle(trx: Db, emailHash: string): Promise<void> {
  await trx.deleteFrom('login_throttle').where('key', 'like', `pair:${emailHash}:%`).execute();
}

export async function retireUsername(trx: Db, username: string, now: string): Promise<void> {
  await trx.insertInto('retired_usernames').values({ username_hash: usernameHash(username), retired_at: now }).onConflict((oc) => oc.doNothing()).execute();
}

export async function recordErasure(trx: Db, row: { account_id: number; account_created_at: string; erased_at: string }): Promise<void> {
  await trx.insertInto('erasures').values(row).onConflict((oc) => oc.column('account_id').doNothing()).execute();
}

export const listErasures = (db: Db) => db.selectFrom('erasures').select(['account_id', 'account_created_at', 'erased_at']).orderBy('id').execute();

/** Webhooks they set up go with them; deliveries and attempts follow by cascade. */
export async function deleteWebhooksOf(trx: Db, accountId: number): Promise<number> {
  const r = await trx.deleteFrom('webhooks').where('account_id', '=', accountId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * The account row; sessions, keys, memberships (present and past), invitations, claims, author links, preferences, topics, and their mail (outbox,
 * links, notice settings) go by cascade.
 */
export async function deleteAccount(trx: Db, accountId: number): Promise<void> {
  await trx.deleteFrom('api_keys').where('account_id', '=', accountId).execute();
  await deleteOAuthRecordsOf(trx, accountId);
  await trx.deleteFrom('accounts').where('id', '=', accountId).execute();
}

/**
 * The authorization server's records that name the account (oauth_records: its sessions, grants, codes and tokens):
 * those under its connections' grants, and any other whose payload names it as oidc-provider writes it
 * (`"accountId":"<id>"`, the closing quote keeping 12 from matching 123). Its connections go by cascade.
 */
export async function deleteOAuthRecordsOf(trx: Db, accountId: number): Promise<void> {
  const grants = trx.selectFrom('oauth_connections').select('grant_id').where('account_id', '=', accountId);
  await trx
    .deleteFrom('oauth_records')
    .where((eb) => eb.or([eb('grant_id', 'in', grants), eb('payload', 'like', `%"accountId":"${accountId}"%`)]))
    .execute();
}

/** The tables an erasure rewrites or deletes from: their freed space is scrubbed after it commits. */
export const ERASED_TABLES = [
  'accounts',
  'sessions',
  'api_keys',
  'publisher_members',
  'publisher_member_history',
  'publisher_invitations',
  'account_topics',
  'author_claims',
  'claim_preferences',
  'author_links',
  'withdrawn_contributions',
  'request_take_expiries',
  'submissions',
  'panel_entries',
  'change_openings',
  'withheld_openings',
  'events',
  'event_mentions',
  'mail_mentions',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
  'login_throttle',
  'mail_outbox',
  'mail_tokens',
  'mail_preferences',
  'declared_interests',
  'oauth_records',
  'oauth_connections',
  // The search index (its rows are kept by triggers on accounts: migration 0021); SQLite's is scrubbed as it goes.
  'search_documents',
] as const;

/**
 * Make deleted bytes unreadable in the database files (of `tables`: an erasure's by default), once the change committed. SQLite overwrites freed content
 * as it goes (`secure_delete`, set on every connection: db/client.ts), and a checkpoint moves the write-ahead log's
 * pages into the file and truncates the log. PostgreSQL keeps old row versions until a vacuum, and a plain vacuum
 * can leave their bytes in a page's free space: VACUUM FULL rewrites each table (and its indexes and TOAST) anew.
 */
export async function scrubFreedSpace(db: Db, tables: readonly string[] = ERASED_TABLES): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of tables) await sql`vacuum full ${sql.table(table)}`.execute(db);
  } else {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  }
}
