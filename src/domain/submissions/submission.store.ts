// All SQL about submissions. Reads of owned data take the owner: the contributor for their own work, the
// publishers for their inbox.
import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { WorkKind } from '../work-kinds.js';

const columns = [
  's.id',
  's.page_id',
  's.publisher_id',
  's.account_id',
  's.request_id',
  's.kind',
  's.summary',
  's.before_text',
  's.after_text',
  's.reason',
  's.sources',
  's.status',
  's.decided_at',
  's.decision_note',
  's.created_at',
  's.updated_at',
  's.quote_exact',
  's.quote_prefix',
  's.quote_suffix',
  's.claim',
  's.verdict',
  'p.content_hash as page_content_hash',
  'p.url as page_url',
  'p.title as page_title',
  'pub.slug as publisher_slug',
  'pub.name as publisher_name',
  'a.username',
  'a.name',
] as const;

const submissionsWithPage = (db: Db) =>
  db
    .selectFrom('submissions as s')
    .innerJoin('pages as p', 'p.id', 's.page_id')
    .innerJoin('publishers as pub', 'pub.id', 's.publisher_id')
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select(columns);

export type SubmissionRow = NonNullable<Awaited<ReturnType<typeof findSubmission>>>;

export const findSubmission = (db: Db, id: number) => submissionsWithPage(db).where('s.id', '=', id).executeTakeFirst();

/** Several submissions by id in one query (a batch of decisions), with the page topic their reputation needs. */
export async function findSubmissions(db: Db, ids: number[]) {
  const rows = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    rows.push(...(await submissionsWithPage(db).select(['p.topic as page_topic', 'p.host as page_host']).where('s.id', 'in', chunk).execute()));
  }
  return new Map(rows.map((r) => [r.id, r]));
}

export async function insertSubmission(
  db: Db,
  row: {
    page_id: number;
    publisher_id: number;
    account_id: number;
    request_id: number | null;
    kind: WorkKind;
    summary: string;
    before_text: string | null;
    after_text: string | null;
    reason: string;
    sources: string[];
    quote_exact: string | null;
    quote_prefix: string | null;
    quote_suffix: string | null;
    claim: string | null;
    verdict: number | null;
    now: string;
  },
): Promise<number> {
  const { now, sources, ...rest } = row;
  const r = await db
    .insertInto('submissions')
    .values({ ...rest, sources: JSON.stringify(sources), status: 'pending', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

type Status = SubmissionRow['status'];

const newestFirst = (base: ReturnType<typeof submissionsWithPage>, limit: number, offset: number) =>
  base.orderBy('s.id', 'desc').limit(limit).offset(offset).execute();

export async function listOwnSubmissions(db: Db, accountId: number, status: Status | undefined, limit: number, offset: number) {
  let q = submissionsWithPage(db).where('s.account_id', '=', accountId);
  let c = db.selectFrom('submissions').where('account_id', '=', accountId);
  if (status) {
    q = q.where('s.status', '=', status);
    c = c.where('status', '=', status);
  }
  const [rows, total] = await Promise.all([newestFirst(q, limit, offset), c.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()]);
  return { rows, total: Number(total.n) };
}

export async function listInbox(db: Db, publisherIds: number[], status: Status | undefined, limit: number, offset: number) {
  let q = submissionsWithPage(db).where('s.publisher_id', 'in', publisherIds);
  let c = db.selectFrom('submissions').where('publisher_id', 'in', publisherIds);
  if (status) {
    q = q.where('s.status', '=', status);
    c = c.where('status', '=', status);
  }
  const [rows, total] = await Promise.all([newestFirst(q, limit, offset), c.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()]);
  return { rows, total: Number(total.n) };
}

/** Decide or withdraw: moves only a pending submission; false when it was already decided. */
export async function settleSubmission(
  db: Db,
  id: number,
  to: { status: 'accepted' | 'rejected' | 'withdrawn'; decided_by: number | null; decision_note: string | null; now: string },
): Promise<boolean> {
  const r = await db
    .updateTable('submissions')
    .set({
      status: to.status,
      decided_by: to.decided_by,
      decided_at: to.status === 'withdrawn' ? null : to.now,
      decision_note: to.decision_note,
      updated_at: to.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** An accepted submission's public contribution, as inserted. */
export interface NewContribution {
  page_id: number;
  account_id: number;
  role: WorkKind;
  summary: string;
  change_from: string | null;
  change_to: string | null;
  submission_id: number;
  quote_exact: string | null;
  quote_prefix: string | null;
  quote_suffix: string | null;
  claim: string | null;
  verdict: number | null;
  /** The page version the work applies to: the page's version when it was accepted. */
  page_hash: string | null;
}

/** Contributions of accepted submissions, multi-row; returns each new id by its submission. */
export async function insertContributions(
  db: Db,
  rows: NewContribution[],
  now: string,
): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await db
      .insertInto('contributions')
      .values(rows.slice(i, i + 200).map((r) => ({ ...r, accepted_at: now, created_at: now, asserted_by: 'contributor' as const, consent: 'submitted' as const })))
      .returning(['id', 'submission_id'])
      .execute();
    for (const r of inserted) ids.set(r.submission_id!, r.id);
  }
  return ids;
}

/**
 * Decide many submissions in one statement per 300: each moves only if still pending (the same guard as
 * settleSubmission). Returns the ids that moved. `UPDATE … FROM` a VALUES list works on SQLite (3.33+) and
 * PostgreSQL alike; the casts give PostgreSQL the types of the bound values.
 */
export async function settleSubmissions(
  db: Db,
  moves: { id: number; status: 'accepted' | 'rejected'; decided_by: number; decision_note: string | null }[],
  now: string,
): Promise<Set<number>> {
  const moved = new Set<number>();
  for (let i = 0; i < moves.length; i += 300) {
    const values = moves
      .slice(i, i + 300)
      .map((m) => sql`(cast(${m.id} as integer), cast(${m.status} as text), cast(${m.decided_by} as integer), cast(${m.decision_note} as text))`);
    const r = await sql<{ id: number }>`
      with v(id, status, decided_by, note) as (values ${sql.join(values)})
      update submissions set status = v.status, decided_by = v.decided_by, decided_at = ${now}, decision_note = v.note, updated_at = ${now}
      from v where submissions.id = v.id and submissions.status = 'pending'
      returning submissions.id`.execute(db);
    for (const row of r.rows) moved.add(Number(row.id));
  }
  return moved;
}
