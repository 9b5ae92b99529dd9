// All SQL that reads a reported item and takes its text out of (or back into) the rows that hold it. A field's
// text lives in the item's own row and, for accepted work, in the submission behind it; copies of it live in the
// outbox events about its page (or, for a profile, the events that name the person: event_mentions) and in the
// webhook deliveries made from them. Those are found by reference, as erasure finds a person (mentions.store.ts),
// and within them only the keys that carry this field are compared with its text.
import { type Kysely, sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import type { ItemKind, ItemRef } from './rules.js';

/** A reported item: whose it is, where it shows, and its fields' text (private: the operator's page only). */
export interface ItemFacts {
  ref: ItemRef;
  pageId: number | null;
  pageUrl: string | null;
  publisherId: number | null;
  /** The person whose text it is (a contributor, a profile's owner); null for a publisher's own text. */
  accountId: number | null;
  fields: Record<string, string | null>;
  /** When the item was published (the export's content_date). */
  createdAt: string;
  /** A panel statement's public id (its answers' cache tags); null for every other kind. */
  panelSlug: string | null;
}

/** One stored column that holds a field's text. */
interface Target {
  table: 'contributions' | 'submissions' | 'page_notices' | 'accounts' | 'pages' | 'panel_versions';
  column: string;
  rowId: number;
}

/** The keys under which a field's text is copied into event payloads. */
export const PAYLOAD_KEYS: Record<string, string[]> = {
  'contribution:summary': ['summary'],
  'contribution:change_from': ['from', 'before'],
  'contribution:change_to': ['to', 'after'],
  'contribution:claim': ['claim'],
  'contribution:evidence_reason': ['reason'],
  'notice:reason': ['reason'],
  'profile:name': ['name'],
  'profile:summary': ['summary'],
  'page:title': ['title'],
  // A panel's events carry its question under `question`, and a change of it as `{from, to}` (panel.updated).
  'panel:question': ['question', 'from', 'to'],
};

export async function loadItem(db: Db, ref: ItemRef): Promise<ItemFacts | null> {
  const base = { ref, panelSlug: null };
  switch (ref.kind) {
    case 'contribution': {
      const r = await db
        .selectFrom('contributions as c')
        .innerJoin('pages as p', 'p.id', 'c.page_id')
        .leftJoin('submissions as s', 's.id', 'c.submission_id')
        .select(['c.page_id', 'p.url', 'p.publisher_id', 'c.account_id', 'c.summary', 'c.change_from', 'c.change_to', 'c.claim', 's.reason', 'c.created_at'])
        .where('c.id', '=', ref.id)
        .executeTakeFirst();
      if (!r) return null;
      return {
        ...base,
        pageId: r.page_id,
        pageUrl: r.url,
        publisherId: r.publisher_id,
        accountId: r.account_id,
        fields: { summary: r.summary, change_from: r.change_from, change_to: r.change_to, claim: r.claim, evidence_reason: r.reason },
        createdAt: r.created_at,
      };
    }
    case 'notice': {
      const r = await db
        .selectFrom('page_notices as n')
        .innerJoin('pages as p', 'p.id', 'n.page_id')
        .select(['n.page_id', 'p.url', 'n.publisher_id', 'n.reason', 'n.created_at'])
        .where('n.id', '=', ref.id)
        .executeTakeFirst();
      if (!r) return null;
      return { ...base, pageId: r.page_id, pageUrl: r.url, publisherId: r.publisher_id, accountId: null, fields: { reason: r.reason }, createdAt: r.created_at };
    }
    case 'profile': {
      const r = await db.selectFrom('accounts').select(['id', 'name', 'summary', 'created_at']).where('id', '=', ref.id).executeTakeFirst();
      if (!r) return null;
      return { ...base, pageId: null, pageUrl: null, publisherId: null, accountId: r.id, fields: { name: r.name, summary: r.summary }, createdAt: r.created_at };
    }
    case 'page': {
      const r = await db.selectFrom('pages').select(['id', 'url', 'publisher_id', 'title', 'created_at']).where('id', '=', ref.id).executeTakeFirst();
      if (!r) return null;
      return { ...base, pageId: r.id, pageUrl: r.url, publisherId: r.publisher_id, accountId: null, fields: { title: r.title }, createdAt: r.created_at };
    }
    case 'panel': {
      const r = await db
        .selectFrom('panel_statements as s')
        .innerJoin('panel_versions as v', (j) => j.onRef('v.statement_id', '=', 's.id').onRef('v.version', '=', 's.current_version'))
        .select(['s.slug', 's.created_at', 'v.question'])
        .where('s.id', '=', ref.id)
        .executeTakeFirst();
      if (!r) return null;
      return { ...base, panelSlug: r.slug, pageId: null, pageUrl: null, publisherId: null, accountId: null, fields: { question: r.question }, createdAt: r.created_at };
    }
  }
}

async function targetsOf(db: Db, kind: ItemKind, id: number, field: string): Promise<Target[]> {
  if (kind === 'contribution') {
    const c = await db.selectFrom('contributions').select('submission_id').where('id', '=', id).executeTakeFirst();
    const sub = c?.submission_id ?? null;
    const own: Record<string, string | null> = { summary: 'summary', change_from: 'change_from', change_to: 'change_to', claim: 'claim', evidence_reason: null };
    const behind: Record<string, string> = { summary: 'summary', change_from: 'before_text', change_to: 'after_text', claim: 'claim', evidence_reason: 'reason' };
    const out: Target[] = [];
    if (own[field]) out.push({ table: 'contributions', column: own[field], rowId: id });
    if (sub !== null && behind[field]) out.push({ table: 'submissions', column: behind[field], rowId: sub });
    return out;
  }
  if (kind === 'notice') return [{ table: 'page_notices', column: 'reason', rowId: id }];
  if (kind === 'profile') return [{ table: 'accounts', column: field, rowId: id }];
  if (kind === 'panel') {
    // Every version: a superseded one is still shown in the statement's history.
    const versions = await db.selectFrom('panel_versions').select('id').where('statement_id', '=', id).execute();
    return versions.map((v) => ({ table: 'panel_versions', column: 'question', rowId: v.id }));
  }
  return [{ table: 'pages', column: 'title', rowId: id }];
}

/** The events that can carry a copy of the item's text: its page's, or (a profile) those naming the person. */
async function eventIdsOf(db: Db, item: ItemFacts): Promise<number[]> {
  if (item.ref.kind === 'profile') return (await db.selectFrom('event_mentions').select('event_id').where('account_id', '=', item.ref.id).execute()).map((r) => r.event_id);
  if (item.ref.kind === 'panel') {
    // A panel's events belong to no page: they name the statement by its public id.
    const rows = await db.selectFrom('events').select(['id', 'payload']).where('page_id', 'is', null).where('type', 'like', 'panel.%').execute();
    return rows.filter((r) => (JSON.parse(r.payload) as { panel_id?: unknown }).panel_id === item.panelSlug).map((r) => r.id);
  }
  if (item.pageId === null) return [];
  return (await db.selectFrom('events').select('id').where('page_id', '=', item.pageId).execute()).map((r) => r.id);
}

/** The payload with `text` replaced by `by` under the given keys, everywhere in it; everything else as it was. */
export function replaceUnder(value: unknown, keys: string[], text: string, by: string): unknown {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return keys.includes(key) && v === text ? by : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, '');
}

/**
 * Every table a withholding writes or a restriction's kept copy lives in (targetsOf, withholdField, withholding.ts):
 * their freed space is scrubbed once kept text is forgotten, since PostgreSQL keeps a rewritten row's old version.
 */
export const WITHHELD_TABLES = [
  'contributions',
  'submissions',
  'page_notices',
  'accounts',
  'panel_versions',
  'pages',
  'events',
  'webhook_deliveries',
  'webhook_attempts',
  'search_documents',
  'withheld_texts',
  'change_openings',
  'withheld_openings',
  'withheld_fields',
  'changes',
] as const;

export interface Withheld {
  table_name: string;
  column_name: string;
  row_id: number;
  text: string;
}

type Loose = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Replace one field's text by `by` in every row that holds it, and answer what each row held before (kept in
 * withheld_texts to restore after an appeal). Recorded answers of touched deliveries are cleared: a receiver may
 * have echoed the payload.
 */
export async function withholdField(trx: Db, item: ItemFacts, field: string, by: string): Promise<Withheld[]> {
  const text = item.fields[field];
  if (text === null || text === undefined || text === '' || text === by) return [];
  const out: Withheld[] = [];
  const loose = trx as unknown as Loose;
  for (const t of await targetsOf(trx, item.ref.kind, item.ref.id, field)) {
    const row = await loose.selectFrom(t.table).select(sql.ref<string | null>(t.column).as('v')).where('id', '=', t.rowId).executeTakeFirst();
    const before = row?.v as string | null | undefined;
    if (typeof before !== 'string' || before === by) continue;
    await loose.updateTable(t.table).set({ [t.column]: by }).where('id', '=', t.rowId).execute();
    out.push({ table_name: t.table, column_name: t.column, row_id: t.rowId, text: before });
  }
  const keys = PAYLOAD_KEYS[`${item.ref.kind}:${field}`] ?? [];
  const eventIds = await eventIdsOf(trx, item);
  const rewrite = async (table: 'events' | 'webhook_deliveries', column: 'payload' | 'body', key: 'id' | 'event_id') => {
    for (let i = 0; i < eventIds.length; i += 500) {
      const rows = await loose
        .selectFrom(table)
        .select(['id', sql.ref<string>(column).as('text')])
        .where(sql.ref<number>(key), 'in', eventIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        const original = r.text as string;
        const replaced = JSON.stringify(replaceUnder(JSON.parse(original) as unknown, keys, text, by));
        if (replaced === original) continue;
        await loose.updateTable(table).set({ [column]: replaced }).where('id', '=', r.id as number).execute();
        if (table === 'webhook_deliveries') await trx.updateTable('webhook_attempts').set({ response_body: '', error: null }).where('delivery_id', '=', r.id as number).execute();
        out.push({ table_name: table, column_name: column, row_id: r.id as number, text: original });
      }
    }
  };
  await rewrite('events', 'payload', 'id');
  await rewrite('webhook_deliveries', 'body', 'event_id');
  return out;
}

/** Put every withheld text of a decision back where it was taken from. */
export async function restoreWithheld(trx: Db, decisionId: number): Promise<number> {
  const rows = await trx.selectFrom('withheld_texts').select(['table_name', 'column_name', 'row_id', 'text']).where('decision_id', '=', decisionId).orderBy('id', 'desc').execute();
  const loose = trx as unknown as Loose;
  for (const r of rows) await loose.updateTable(r.table_name).set({ [r.column_name]: r.text }).where('id', '=', r.row_id).execute();
  await trx.deleteFrom('withheld_texts').where('decision_id', '=', decisionId).execute();
  return rows.length;
}
