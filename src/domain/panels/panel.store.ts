// All SQL about panel statements, their versions and their panellists.
import { type Expression, expressionBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Db } from '../../db/schema.js';

export const findStatementBySlug = (db: Db, slug: string) =>
  db.selectFrom('panel_statements').selectAll().where('slug', '=', slug).executeTakeFirst();

export async function insertStatement(db: Db, row: { slug: string; topic: string; now: string }): Promise<number> {
  const r = await db
    .insertInto('panel_statements')
    .values({ slug: row.slug, topic: row.topic, current_version: 1, created_at: row.now, updated_at: row.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** Make `to` the current version, only if `from` still is; false when someone else moved it first. */
export async function advanceStatement(
  db: Db,
  id: number,
  move: { from: number; to: number; topic: string; now: string },
): Promise<boolean> {
  const r = await db
    .updateTable('panel_statements')
    .set({ current_version: move.to, topic: move.topic, updated_at: move.now })
    .where('id', '=', id)
    .where('current_version', '=', move.from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertVersion(
  db: Db,
  row: {
    statement_id: number;
    version: number;
    topic: string;
    question: string;
    answer: string;
    certainty: string;
    vote_agree: number;
    vote_dissent: number;
    revisit_by: string;
    reopen_triggers: string[];
    issued_at: string;
  },
): Promise<number> {
  const r = await db
    .insertInto('panel_versions')
    .values({ ...row, status: 'issued', reopen_triggers: JSON.stringify(row.reopen_triggers) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function insertEntries(
  db: Db,
  versionId: number,
  entries: { name: string; role: string; vote: string; account_id: number | null }[],
): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('panel_entries')
    .values(entries.map((e, position) => ({ version_id: versionId, position, ...e })))
    .execute();
}

/** The only change a version ever sees after it is written. */
export async function supersedeVersion(db: Db, statementId: number, version: number): Promise<void> {
  await db
    .updateTable('panel_versions')
    .set({ status: 'superseded' })
    .where('statement_id', '=', statementId)
    .where('version', '=', version)
    .where('status', '=', 'issued')
    .execute();
}

const versionColumns = [
  'v.id',
  'v.statement_id',
  'v.version',
  'v.status',
  'v.topic',
  'v.question',
  'v.answer',
  'v.certainty',
  'v.vote_agree',
  'v.vote_dissent',
  'v.revisit_by',
  'v.reopen_triggers',
  'v.issued_at',
  'v.log_seq',
  's.slug',
  's.current_version',
] as const;

const versionsWithStatement = (db: Db) =>
  db.selectFrom('panel_versions as v').innerJoin('panel_statements as s', 's.id', 'v.statement_id').select(versionColumns);

export type VersionRow = Awaited<ReturnType<typeof findVersion>> & {};

/** One version of a statement by its public id; the current one when `version` is undefined. One query, so the
 * version and `current_version` come from the same moment. */
export const findVersion = (db: Db, slug: string, version: number | undefined) => {
  const q = versionsWithStatement(db).where('s.slug', '=', slug);
  return (version === undefined ? q.whereRef('v.version', '=', 's.current_version') : q.where('v.version', '=', version)).executeTakeFirst();
};

/** Every version of a statement, oldest first (the web page shows the history). */
export const listVersionsOf = (db: Db, slug: string) =>
  versionsWithStatement(db).where('s.slug', '=', slug).orderBy('v.version').execute();

/** Current versions, newest issue first, optionally of one topic. */
export const listCurrentVersions = (db: Db, opts: { topic: string | undefined; limit: number; offset: number }) => {
  let q = versionsWithStatement(db).whereRef('v.version', '=', 's.current_version');
  if (opts.topic !== undefined) q = q.where('s.topic', '=', opts.topic);
  return q.orderBy('s.updated_at', 'desc').orderBy('s.id', 'desc').limit(opts.limit).offset(opts.offset).execute();
};

export async function countStatements(db: Db, topic: string | undefined): Promise<number> {
  let q = db.selectFrom('panel_statements').select((eb) => eb.fn.countAll<number>().as('n'));
  if (topic !== undefined) q = q.where('topic', '=', topic);
  const r = await q.executeTakeFirstOrThrow();
  return Number(r.n);
}

export type EntryRow = Awaited<ReturnType<typeof listEntries>>[number];

/** Panellists of several versions at once, in each version's order, with the username of a linked account. */
export function listEntries(db: Db, versionIds: number[]) {
  return db
    .selectFrom('panel_entries as e')
    .leftJoin('accounts as a', 'a.id', 'e.account_id')
    .select(['e.version_id', 'e.position', 'e.name', 'e.role', 'e.vote', 'e.account_id', 'a.username'])
    .where('e.version_id', 'in', versionIds.length ? versionIds : [-1])
    .orderBy('e.version_id')
    .orderBy('e.position')
    .execute();
}

/**
 * A panellist on the current version of any statement (SPEC §13 `expert`; docs/decisions/panel-statements.md). The current
 * version is the one with status `issued`: superseding a version ends its panellists' standing.
 */
/** Whether an account sits on an issued panel, as an expression (the reputation update returns it with the row). */
export const panellistOf = (accountId: Expression<number>) =>
  expressionBuilder<DB, never>().exists(
    expressionBuilder<DB, never>()
      .selectFrom('panel_entries as e')
      .innerJoin('panel_versions as v', 'v.id', 'e.version_id')
      .select('e.version_id')
      .where('e.account_id', '=', accountId)
      .where('v.status', '=', 'issued'),
  );

export async function isPanellist(db: Db, accountId: number): Promise<boolean> {
  const r = await db
    .selectFrom('panel_entries as e')
    .innerJoin('panel_versions as v', 'v.id', 'e.version_id')
    .select('e.version_id')
    .where('e.account_id', '=', accountId)
    .where('v.status', '=', 'issued')
    .limit(1)
    .executeTakeFirst();
  return r !== undefined;
}

// ---- Sources and review flags ----

export async function insertSources(db: Db, versionId: number, sources: { url: string; lookup_key: string }[]): Promise<void> {
  if (sources.length === 0) return;
  await db.insertInto('panel_sources').values(sources.map((s, position) => ({ version_id: versionId, position, ...s }))).execute();
}

export const listSources = (db: Db, versionIds: number[]) =>
  db.selectFrom('panel_sources').select(['version_id', 'url']).where('version_id', 'in', versionIds.length ? versionIds : [-1]).orderBy('version_id').orderBy('position').execute();

export type FlagRow = Awaited<ReturnType<typeof listFlags>>[number];

export const listFlags = (db: Db, versionIds: number[]) =>
  db
    .selectFrom('panel_flags')
    .select(['version_id', 'reason', 'source_url', 'page_id', 'link', 'flagged_at'])
    .where('version_id', 'in', versionIds.length ? versionIds : [-1])
    .orderBy('version_id')
    .orderBy('id')
    .execute();

/** The current versions citing a page (by its lookup key), issued before `before` when given. */
export function currentVersionsCiting(db: Db, lookupKey: string, before?: string) {
  let q = db
    .selectFrom('panel_sources as src')
    .innerJoin('panel_versions as v', 'v.id', 'src.version_id')
    .innerJoin('panel_statements as s', 's.id', 'v.statement_id')
    .select(['v.id', 'v.version', 'v.topic', 's.slug', 'src.url'])
    .where('src.lookup_key', '=', lookupKey)
    .whereRef('v.version', '=', 's.current_version');
  if (before !== undefined) q = q.where('v.issued_at', '<', before);
  return q.orderBy('v.id').execute();
}

/** The current versions citing any of the pages (by lookup key), with their questions: a record's "cited by". */
export function currentVersionsCitingAny(db: Db, lookupKeys: string[]) {
  return db
    .selectFrom('panel_sources as src')
    .innerJoin('panel_versions as v', 'v.id', 'src.version_id')
    .innerJoin('panel_statements as s', 's.id', 'v.statement_id')
    .select(['src.lookup_key', 's.slug', 'v.question'])
    .where('src.lookup_key', 'in', lookupKeys.length ? lookupKeys : [''])
    .whereRef('v.version', '=', 's.current_version')
    .orderBy('s.slug')
    .execute();
}

export async function insertFlag(db: Db, row: { version_id: number; reason: FlagRow['reason']; source_url: string; page_id: number | null; link: string; flagged_at: string }): Promise<void> {
  await db.insertInto('panel_flags').values(row).execute();
}

/** Current versions past their revisit date without a stored `revisit_due` flag. */
export const dueRevisits = (db: Db, today: string) =>
  db
    .selectFrom('panel_versions as v')
    .innerJoin('panel_statements as s', 's.id', 'v.statement_id')
    .select(['v.id', 'v.version', 'v.topic', 's.slug'])
    .whereRef('v.version', '=', 's.current_version')
    .where('v.revisit_by', '<', today)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('panel_flags as f').select('f.id').whereRef('f.version_id', '=', 'v.id').where('f.reason', '=', 'revisit_due'))))
    .orderBy('v.id')
    .limit(100)
    .execute();

/**
 * Take the version for telling its revisit, inside the transaction: true when no `revisit_due` flag exists yet. The
 * version's row is locked first (PostgreSQL) so two processes cannot both tell it; SQLite has one writer.
 */
export async function claimRevisit(trx: Db, versionId: number): Promise<boolean> {
  await trx.updateTable('panel_versions').set((eb) => ({ revisit_by: eb.ref('revisit_by') })).where('id', '=', versionId).execute();
  const told = await trx.selectFrom('panel_flags').select('id').where('version_id', '=', versionId).where('reason', '=', 'revisit_due').executeTakeFirst();
  return !told;
}
