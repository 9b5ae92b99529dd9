// The change log: every change to public data appends one immutable entry in the transaction of the
// change. Entries are the public face of the change only (docs/changes.md lists each kind's fields); the feed shows
// them as stored, and every process's record cache follows them (follower.ts).
import { slicer } from '../batch.js';
import type { ChangeKind } from '../../db/vocabulary.js';
import type { Db, TextKind } from '../../db/schema.js';
import type { Change } from './change.js';
import { canonicalJson } from '../../db/canonical-json.js';
import { type ChangeRow, type OpeningRow, insertChanges, insertOpenings, nextSeq } from './change.store.js';
import { commit } from './commitments.js';
import { eventsForPeopleNamed } from '../events/own-webhooks.js';

export type { ChangeKind };
export type { Change, ChangeIds } from './change.js';

/**
 * The fields of an entry that name a person: each is committed to in the entry's bytes and opened beside
 * it, under the account of the entry's `ids.accountId`, so erasing that person forgets it without touching the log.
 * A new field that identifies someone belongs here, never in an entry in clear.
 */
export const PERSONAL_FIELDS = ['contributor'] as const;

/**
 * The fields of free text that people and publishers write and entries carry: each is a salted commitment in the
 * entry's bytes, opened beside it, and its opening records the object and field it opens, so a decision can withhold
 * it by reference (withholding.ts). `in`: the object of the entry that holds it; a profile's fields sit inside the
 * person slot's value, and are committed before the slot is. A new field of free text belongs here, never in clear.
 */
const FREE_TEXT: readonly { in: string; path: readonly string[]; kind: TextKind; field: string }[] = [
  { in: 'page', path: ['title'], kind: 'page', field: 'title' },
  { in: 'contribution', path: ['summary'], kind: 'contribution', field: 'summary' },
  { in: 'contribution', path: ['change', 'from'], kind: 'contribution', field: 'change_from' },
  { in: 'contribution', path: ['change', 'to'], kind: 'contribution', field: 'change_to' },
  { in: 'notice', path: ['reason'], kind: 'notice', field: 'reason' },
  { in: 'panel', path: ['question'], kind: 'panel', field: 'question' },
  { in: 'contributor', path: ['name'], kind: 'profile', field: 'name' },
  { in: 'contributor', path: ['summary'], kind: 'profile', field: 'summary' },
];

// The public shapes entries are made of, so every call site writes the same fields.
export interface PublicPage {
  id: number;
  url: string;
  title: string;
  topic: string;
}
export interface PublicPublisher {
  slug: string;
  name: string;
}
export interface PublicContributor {
  username: string;
  name: string;
  summary: string;
  level: string;
  trust_score: number;
  contribution_score: number;
  accepted_count: number;
  topics: { topic: string; authority: number }[];
}

/** Append one entry inside `trx` (the transaction of the change); returns its seq. */
export async function appendChange(trx: Db, change: Change): Promise<number> {
  const [seq] = await appendChangesFrom(trx, await nextSeq(trx), [change]);
  return seq!;
}

/**
 * Append several entries inside `trx` (a batch write's changes): one seq lookup and multi-row inserts,
 * the entries contiguous in the order given. The same contract as appendChange, entry for entry; returns their seqs.
 */
export async function appendChanges(trx: Db, changes: Change[]): Promise<number[]> {
  if (changes.length === 0) return [];
  return appendChangesFrom(trx, await takeSeqs(trx), changes);
}

/**
 * appendChanges in two steps, for a writer whose rows record the seq of their entry (a contribution links to the
 * entry that published it): take the change log's lock and the first seq, write those rows, then append the
 * entries from that seq. Everything between the two steps runs under the lock, which is held to commit.
 */
export const takeSeqs = (trx: Db): Promise<number> => nextSeq(trx);

/** The second step: entries numbered from `first` (the value takeSeqs gave, in the same transaction). */
export async function appendChangesFrom(trx: Db, first: number, changes: Change[]): Promise<number[]> {
  const rows: ChangeRow[] = [];
  const openings: OpeningRow[] = [];
  const slice = slicer();
  for (const [i, change] of changes.entries()) {
    await slice();
    const seq = first + i;
    const data: Record<string, unknown> = { ...change.data };
    for (const t of FREE_TEXT) {
      const holder = data[t.in] as Record<string, unknown> | undefined;
      if (holder === undefined || holder === null) continue;
      const copy = (data[t.in] = { ...holder });
      let parent: Record<string, unknown> = copy;
      for (const k of t.path.slice(0, -1)) {
        const next = parent[k] as Record<string, unknown> | null | undefined;
        if (next === null || next === undefined) break;
        parent = parent[k] = { ...next };
      }
      const last = t.path.at(-1)!;
      const text = parent[last];
      if (typeof text !== 'string') continue;
      const subjectId = t.kind === 'profile' ? change.ids.accountId : t.kind === 'panel' ? await panelId(trx, holder.id) : Number(holder.id);
      if (subjectId == null || !Number.isInteger(subjectId)) throw new Error(`change log: a ${change.kind} entry's ${t.in} has no id for its ${t.field}`);
      const sealed = commit(text);
      parent[last] = { commitment: sealed.commitment };
      openings.push({
        seq,
        pointer: `/${[t.in, ...t.path].join('/')}`,
        opening: sealed.opening,
        value: canonicalJson(text),
        account_id: t.kind === 'profile' ? subjectId : null,
        subject_kind: t.kind,
        subject_id: subjectId,
        field: t.field,
      });
    }
    for (const field of PERSONAL_FIELDS) {
      const value = data[field] as Record<string, unknown> | undefined;
      if (value === undefined) continue;
      const accountId = change.ids.accountId;
      if (accountId == null) throw new Error(`change log: a ${change.kind} entry names a person without ids.accountId`);
      const sealed = commit(value);
      data[field] = { commitment: sealed.commitment };
      openings.push({ seq, pointer: `/${field}`, opening: sealed.opening, value: canonicalJson(value), account_id: accountId, subject_kind: 'profile', subject_id: accountId, field: null });
    }
    rows.push({
      seq,
      created_at: change.now,
      kind: change.kind,
      page_id: change.ids.pageId ?? null,
      account_id: change.ids.accountId ?? null,
      publisher_id: change.ids.publisherId ?? null,
      panel_id: change.ids.panelId ?? null,
      body: canonicalJson({ ...data, seq, kind: change.kind, created_at: change.now }),
    });
  }
  // Each is one statement over every entry (500 pages' are tens of milliseconds of work): a pause between them.
  await slice();
  await insertChanges(trx, rows);
  await slice();
  await insertOpenings(trx, openings);
  await slice();
  const seqs = rows.map((r) => r.seq);
  await eventsForPeopleNamed(trx, changes, seqs);
  return seqs;
}

/** A panel statement's numeric id, from the public id (slug) its entries carry. */
async function panelId(trx: Db, slug: unknown): Promise<number | undefined> {
  if (typeof slug !== 'string') return undefined;
  return (await trx.selectFrom('panel_statements').select('id').where('slug', '=', slug).executeTakeFirst())?.id;
}
