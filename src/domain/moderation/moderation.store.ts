// All SQL of reports, decisions, appeals, notifiers' standing and trusted flaggers. Notifiers' names and addresses
// are read only by the operators' pages and the mail they are owed; nothing here is public.
import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

export const REPORT_COLUMNS = [
  'id',
  'reference',
  'item_kind',
  'item_id',
  'field',
  'category',
  'explanation',
  'notifier_name',
  'notifier_email',
  'notifier_account_id',
  'source',
  'good_faith',
  'locale',
  'status',
  'decision_id',
  'unfounded',
  'created_at',
  'decided_at',
] as const;

export const DECISION_COLUMNS = [
  'id',
  'item_kind',
  'item_id',
  'field',
  'type',
  'category',
  'ground',
  'legal_reference',
  'terms_clause',
  'facts',
  'automated',
  'operator_id',
  'affected_account_id',
  'page_id',
  'appeal_of',
  'decided_at',
  'appeal_until',
  'log_seq',
] as const;

export const reportById = (db: Db, id: number) => db.selectFrom('reports').select(REPORT_COLUMNS).where('id', '=', id).executeTakeFirst();
export const decisionById = (db: Db, id: number) => db.selectFrom('moderation_decisions').select(DECISION_COLUMNS).where('id', '=', id).executeTakeFirst();
export type ReportRow = NonNullable<Awaited<ReturnType<typeof reportById>>>;
export type DecisionRow = NonNullable<Awaited<ReturnType<typeof decisionById>>>;

/** Open reports, trusted flaggers' first (Art. 22), then oldest. */
export const openReports = (db: Db, limit: number) =>
  db
    .selectFrom('reports')
    .select(REPORT_COLUMNS)
    .where('status', '=', 'open')
    .orderBy(sql`case when source = 'trusted_flagger' then 0 else 1 end`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();

export const reportsOnItem = (db: Db, kind: string, id: number) =>
  db.selectFrom('reports').select(REPORT_COLUMNS).where('item_kind', '=', kind).where('item_id', '=', id).orderBy('id').execute();
export const decisionsOnItem = (db: Db, kind: string, id: number) =>
  db.selectFrom('moderation_decisions').select(DECISION_COLUMNS).where('item_kind', '=', kind).where('item_id', '=', id).orderBy('id').execute();

/** The open reports on an item a decision settles (every open one on the same item). */
export const openReportsOnItem = (db: Db, kind: string, id: number) =>
  db.selectFrom('reports').select(REPORT_COLUMNS).where('item_kind', '=', kind).where('item_id', '=', id).where('status', '=', 'open').orderBy('id').execute();

export async function insertReport(trx: Db, row: Omit<ReportRow, 'id' | 'unfounded' | 'decision_id' | 'decided_at'>): Promise<number> {
  const r = await trx.insertInto('reports').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function insertDecision(trx: Db, row: Omit<DecisionRow, 'id' | 'log_seq'>): Promise<number> {
  const r = await trx.insertInto('moderation_decisions').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export const setDecisionSeq = (trx: Db, id: number, seq: number) => trx.updateTable('moderation_decisions').set({ log_seq: seq }).where('id', '=', id).execute();

export const settleReports = (trx: Db, ids: number[], decisionId: number, now: string, unfounded: boolean) =>
  ids.length === 0
    ? Promise.resolve()
    : trx.updateTable('reports').set({ status: 'decided', decision_id: decisionId, decided_at: now, unfounded: unfounded ? 1 : 0 }).where('id', 'in', ids).execute();

export const standingOf = (db: Db, notifier: string) =>
  db.selectFrom('notifier_standing').select(['notifier', 'unfounded', 'warned_at', 'suspended_until']).where('notifier', '=', notifier).executeTakeFirst();

export async function saveStanding(trx: Db, notifier: string, s: { unfounded: number; warned_at: string | null; suspended_until: string | null }, now: string): Promise<void> {
  await trx
    .insertInto('notifier_standing')
    .values({ notifier, ...s, updated_at: now })
    .onConflict((oc) => oc.column('notifier').doUpdateSet({ ...s, updated_at: now }))
    .execute();
}

/** A notifier's reports, by their account or else the address they gave; none for an anonymous notifier. */
export async function reportsByNotifier(db: Db, accountId: number | null, email: string | null) {
  if (accountId !== null) return db.selectFrom('reports').select(['id', 'status', 'unfounded']).where('notifier_account_id', '=', accountId).execute();
  if (email) return db.selectFrom('reports').select(['id', 'status', 'unfounded']).where('notifier_email', '=', email).execute();
  return [];
}
export const accountByUsername = (db: Db, username: string) => db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirst();
export const trustedFlagger = (db: Db, accountId: number) =>
  db.selectFrom('trusted_flaggers').select(['account_id', 'organisation']).where('account_id', '=', accountId).executeTakeFirst();
export const listTrustedFlaggers = (db: Db) =>
  db
    .selectFrom('trusted_flaggers as t')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.account_id', 'a.username', 't.organisation', 't.created_at'])
    .orderBy('a.username')
    .execute();
export async function addTrustedFlagger(db: Db, row: { account_id: number; organisation: string; added_by: number | null; created_at: string }): Promise<void> {
  await db
    .insertInto('trusted_flaggers')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ organisation: row.organisation }))
    .execute();
}
export const removeTrustedFlagger = (db: Db, accountId: number) => db.deleteFrom('trusted_flaggers').where('account_id', '=', accountId).execute();

export const appealById = (db: Db, id: number) =>
  db
    .selectFrom('appeals')
    .select(['id', 'decision_id', 'account_id', 'appellant', 'explanation', 'created_at', 'decided_by', 'decided_at', 'outcome', 'outcome_decision_id'])
    .where('id', '=', id)
    .executeTakeFirst();
export type AppealRow = NonNullable<Awaited<ReturnType<typeof appealById>>>;
export const appealsOf = (db: Db, decisionId: number) => db.selectFrom('appeals').select(['id', 'appellant', 'created_at', 'decided_at', 'outcome']).where('decision_id', '=', decisionId).orderBy('id').execute();
export const openAppeals = (db: Db) =>
  db.selectFrom('appeals').select(['id', 'decision_id', 'appellant', 'explanation', 'created_at']).where('decided_at', 'is', null).orderBy('created_at').orderBy('id').execute();
export async function insertAppeal(trx: Db, row: { decision_id: number; account_id: number | null; appellant: string; explanation: string; created_at: string }): Promise<number> {
  const r = await trx.insertInto('appeals').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}
export const settleAppeal = (trx: Db, id: number, row: { decided_by: number; decided_at: string; outcome: string; outcome_decision_id: number }) =>
  trx.updateTable('appeals').set(row).where('id', '=', id).where('decided_at', 'is', null).executeTakeFirst();

export async function insertWithheld(trx: Db, decisionId: number, rows: { table_name: string; column_name: string; row_id: number; text: string }[], deleteAfter: string): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await trx
      .insertInto('withheld_texts')
      .values(rows.slice(i, i + 200).map((r) => ({ ...r, decision_id: decisionId, delete_after: deleteAfter })))
      .execute();
  }
}

/** Withheld text whose appeal window has closed (and no appeal waits on its decision). */
export const expiredWithheld = (db: Db, now: string) =>
  db
    .selectFrom('withheld_texts as w')
    .select(['w.id', 'w.decision_id'])
    .where('w.delete_after', '<=', now)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('appeals as a').select('a.id').whereRef('a.decision_id', '=', 'w.decision_id').where('a.decided_at', 'is', null))))
    .execute();
export const deleteWithheld = (trx: Db, ids: number[]) => trx.deleteFrom('withheld_texts').where('id', 'in', ids).execute();

export async function suspendAccount(trx: Db, accountId: number, decisionId: number, until: string): Promise<void> {
  await trx
    .insertInto('account_suspensions')
    .values({ account_id: accountId, decision_id: decisionId, until })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ decision_id: decisionId, until }))
    .execute();
}
/** When the account's suspension ends, if it is suspended now. */
export const suspendedUntil = async (db: Db, accountId: number, now: string): Promise<string | null> =>
  (await db.selectFrom('account_suspensions').select('until').where('account_id', '=', accountId).where('until', '>', now).executeTakeFirst())?.until ?? null;
export const liftSuspension = (trx: Db, decisionId: number) => trx.deleteFrom('account_suspensions').where('decision_id', '=', decisionId).execute();

export const isOperator = async (db: Db, accountId: number) =>
  (await db.selectFrom('accounts').select('is_admin').where('id', '=', accountId).executeTakeFirst())?.is_admin === 1;

/** The decision entries of the change log between two instants (the transparency counts' source). */
export const decisionEntries = (db: Db, from: string, to: string) =>
  db.selectFrom('changes').select(['seq', 'body']).where('kind', '=', 'moderation.decided').where('created_at', '>=', from).where('created_at', '<', to).orderBy('seq').execute();

export const decisionsSince = (db: Db, since: string) => db.selectFrom('moderation_decisions').select(DECISION_COLUMNS).where('decided_at', '>=', since).orderBy('id').execute();

/**
 * The shared account that carries mail to notifiers without an account (the outbox keys every message by account:
 * mail_outbox.account_id), made the first time it is needed. Not an address anyone can own, no password, no profile.
 */
// An underscore no sign-up can choose (usernames are letters, digits and hyphens), so nobody can hold this name.
export const NOTIFIER_MAIL = { username: 'notifier_mail', name: 'Notifier' } as const;
export async function notifierMailAccount(trx: Db, now: string): Promise<number> {
  const found = await trx.selectFrom('accounts').select('id').where('username', '=', NOTIFIER_MAIL.username).executeTakeFirst();
  if (found) return found.id;
  const r = await trx
    .insertInto('accounts')
    .values({
      email: 'notifier-mail@credence.invalid',
      username: NOTIFIER_MAIL.username,
      name: NOTIFIER_MAIL.name,
      summary: '',
      topics: '[]',
      password_hash: '',
      created_at: now,
      updated_at: now,
      email_confirmed_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}
