// Withholding free text from the log after a decision (a report upheld), and serving it again after an appeal:
// the one mechanism erasure has, by reference. Free text is a salted commitment in each entry, its opening beside it
// and recorded with the object and field it opens (change_openings.subject_kind, subject_id, field): withholding
// moves those openings to `withheld_openings`, which no public route reads, so the entry, its leaf hash and every
// proof stay as they were. Entries written before commitments hold their free text in clear inside signed bytes;
// they cannot change, so withholding records the field in `withheld_fields` and every public read serves the entry
// without it, beside its leaf hash (served.ts). Nothing is ever found by matching text: the openings by their
// reference, the old entries by the ids the entry's own objects carry. docs/decisions/free-text-in-the-log.md.
import type { Db, TextKind } from '../../db/schema.js';
import { canonicalJson } from '../../db/canonical-json.js';
import { withheldBody } from './served.js';

export type { TextKind };

/** A piece of free text, by reference: the object that holds it and the field. */
export interface TextRef {
  kind: TextKind;
  id: number;
  field: string;
}

/**
 * Where each field of free text sits in the entries that carry it (a JSON Pointer into the body, or into the opened
 * value of a person slot for a profile's fields). A field not listed is not in the log: withholding it withholds
 * nothing there.
 */
export const TEXT_POINTERS: { readonly [K in TextKind]: Readonly<Record<string, string>> } = {
  page: { title: '/page/title' },
  contribution: { summary: '/contribution/summary', change_from: '/contribution/change/from', change_to: '/contribution/change/to' },
  notice: { reason: '/notice/reason' },
  profile: { name: '/contributor/name', summary: '/contributor/summary' },
  panel: { question: '/panel/question' },
};

/**
 * Stop serving `ref`'s text in the log: its openings (and, for entries with the text in clear, the text itself) are
 * withheld from every public read, kept privately for a restore; returns the entries and JSON pointers withheld, for
 * the decision entry. Runs in the caller's transaction.
 */
export async function withholdText(trx: Db, ref: TextRef, decisionId: number, now = new Date().toISOString()): Promise<{ seq: number; pointer: string }[]> {
  const pointer = TEXT_POINTERS[ref.kind]?.[ref.field];
  if (pointer === undefined) return [];
  const out: { seq: number; pointer: string }[] = [];

  // Openings of the field itself (every entry written since the text became a commitment).
  const own = await trx
    .selectFrom('change_openings')
    .selectAll()
    .where('subject_kind', '=', ref.kind)
    .where('subject_id', '=', ref.id)
    .where('field', '=', ref.field)
    .execute();
  // A profile's name or summary in a person slot written before its fields were committed one by one: the slot's
  // value holds the field in clear, so the whole slot is withheld.
  const slots =
    ref.kind === 'profile'
      ? (
          await trx
            .selectFrom('change_openings')
            .selectAll()
            .where('subject_kind', '=', 'profile')
            .where('subject_id', '=', ref.id)
            .where('field', 'is', null)
            .execute()
        ).filter((r) => typeof (JSON.parse(r.value) as Record<string, unknown>)[ref.field] === 'string')
      : [];
  const rows = [...own, ...slots];
  for (let i = 0; i < rows.length; i += 200) {
    const part = rows.slice(i, i + 200);
    await trx
      .insertInto('withheld_openings')
      .values(part.map((r) => ({ ...r, decision_id: decisionId, withheld_at: now })))
      .execute();
    for (const r of part) await trx.deleteFrom('change_openings').where('seq', '=', r.seq).where('pointer', '=', r.pointer).execute();
  }
  out.push(...rows.map((r) => ({ seq: Number(r.seq), pointer: r.pointer })));

  // Entries holding the text in clear (written before commitments).
  for (const seq of await clearEntries(trx, ref, pointer)) {
    const taken = await trx.selectFrom('withheld_fields').select('seq').where('seq', '=', seq).where('pointer', '=', pointer).executeTakeFirst();
    if (taken) continue;
    await trx
      .insertInto('withheld_fields')
      .values({ seq, pointer, subject_kind: ref.kind, subject_id: ref.id, field: ref.field, decision_id: decisionId, withheld_at: now })
      .execute();
    out.push({ seq, pointer });
  }
  return out.sort((a, b) => a.seq - b.seq || (a.pointer < b.pointer ? -1 : 1));
}

/** Serve it again (an appeal upheld): the withheld openings go back beside their entries, the clear text is shown again. */
export async function restoreText(trx: Db, ref: TextRef, _decisionId: number): Promise<void> {
  const pointer = TEXT_POINTERS[ref.kind]?.[ref.field];
  if (pointer === undefined) return;
  const rows = await withheldOpeningsOf(trx, ref);
  for (const r of rows) {
    await trx
      .insertInto('change_openings')
      .values({ seq: r.seq, pointer: r.pointer, opening: r.opening, value: r.value, account_id: r.account_id, subject_kind: r.subject_kind, subject_id: r.subject_id, field: r.field })
      .execute();
    await trx.deleteFrom('withheld_openings').where('seq', '=', r.seq).where('pointer', '=', r.pointer).execute();
  }
  // A clear-text entry whose bytes were already forgotten cannot be shown again; its row stays (it is still withheld).
  const forgotten = new Set<number>();
  for (const w of await trx.selectFrom('withheld_fields').select(['seq', 'pointer']).where('subject_kind', '=', ref.kind).where('subject_id', '=', ref.id).where('field', '=', ref.field).execute()) {
    const row = await trx.selectFrom('changes').select('body').where('seq', '=', w.seq).executeTakeFirst();
    if (row && isWithheldMarker(valueAt(JSON.parse(row.body), w.pointer))) forgotten.add(Number(w.seq));
  }
  let q = trx.deleteFrom('withheld_fields').where('subject_kind', '=', ref.kind).where('subject_id', '=', ref.id).where('field', '=', ref.field);
  if (forgotten.size > 0) q = q.where('seq', 'not in', [...forgotten]);
  await q.execute();
}

/**
 * Forget the kept copy for good (the appeal window closed), as erasure forgets: the withheld openings are deleted,
 * and an entry that held the text in clear keeps only its withheld form in the database (its leaf hash, in the
 * stored tree, still proves it). The caller scrubs freed space after it commits (privacy's scrubFreedSpace).
 */
export async function forgetWithheld(trx: Db, ref: TextRef): Promise<void> {
  const pointer = TEXT_POINTERS[ref.kind]?.[ref.field];
  if (pointer === undefined) return;
  for (const r of await withheldOpeningsOf(trx, ref)) await trx.deleteFrom('withheld_openings').where('seq', '=', r.seq).where('pointer', '=', r.pointer).execute();
  const fields = await trx
    .selectFrom('withheld_fields')
    .select(['seq', 'pointer', 'decision_id'])
    .where('subject_kind', '=', ref.kind)
    .where('subject_id', '=', ref.id)
    .where('field', '=', ref.field)
    .execute();
  for (const f of fields) {
    const row = await trx.selectFrom('changes').select('body').where('seq', '=', f.seq).executeTakeFirst();
    if (!row) continue;
    const body = withheldBody(row.body, new Map([[f.pointer, Number(f.decision_id)]]));
    if (body !== row.body) await trx.updateTable('changes').set({ body }).where('seq', '=', f.seq).execute();
  }
}

/** The withheld openings of a ref: its own, and for a profile the whole person slots withheld for it. */
async function withheldOpeningsOf(trx: Db, ref: TextRef) {
  const own = await trx
    .selectFrom('withheld_openings')
    .selectAll()
    .where('subject_kind', '=', ref.kind)
    .where('subject_id', '=', ref.id)
    .where('field', '=', ref.field)
    .execute();
  if (ref.kind !== 'profile') return own;
  const slots = await trx.selectFrom('withheld_openings').selectAll().where('subject_kind', '=', 'profile').where('subject_id', '=', ref.id).where('field', 'is', null).execute();
  return [...own, ...slots.filter((r) => typeof (JSON.parse(r.value) as Record<string, unknown>)[ref.field] === 'string')];
}

/**
 * The entries that hold `ref`'s text in clear at `pointer`: found through the id columns of `changes` and the ids
 * the entry's own objects carry (a page's id, a contribution's, a notice's, a panel's slug), never through text.
 */
async function clearEntries(trx: Db, ref: TextRef, pointer: string): Promise<number[]> {
  let q = trx.selectFrom('changes').select(['seq', 'body']);
  let owns: (body: Record<string, unknown>) => boolean;
  const idOf = (body: Record<string, unknown>, key: string) => (body[key] as { id?: unknown } | undefined)?.id;
  switch (ref.kind) {
    case 'page':
      q = q.where('page_id', '=', ref.id);
      owns = (b) => idOf(b, 'page') === ref.id;
      break;
    case 'contribution': {
      const c = await trx.selectFrom('contributions').select('page_id').where('id', '=', ref.id).executeTakeFirst();
      if (!c) return [];
      q = q.where('page_id', '=', c.page_id);
      owns = (b) => idOf(b, 'contribution') === ref.id;
      break;
    }
    case 'notice': {
      const n = await trx.selectFrom('page_notices').select('page_id').where('id', '=', ref.id).executeTakeFirst();
      if (!n) return [];
      q = q.where('page_id', '=', n.page_id);
      owns = (b) => idOf(b, 'notice') === ref.id;
      break;
    }
    case 'panel': {
      const p = await trx.selectFrom('panel_statements').select('slug').where('id', '=', ref.id).executeTakeFirst();
      if (!p) return [];
      q = q.where('panel_id', '=', p.slug);
      owns = (b) => idOf(b, 'panel') === p.slug;
      break;
    }
    default:
      // A profile's fields were never in clear in an entry's bytes: person slots were commitments from the start.
      return [];
  }
  const out: number[] = [];
  for (const r of await q.orderBy('seq').execute()) {
    const body = JSON.parse(r.body) as Record<string, unknown>;
    if (owns(body) && typeof valueAt(body, pointer) === 'string') out.push(Number(r.seq));
  }
  return out;
}

/** The value at a JSON Pointer (RFC 6901), or undefined. */
export function valueAt(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const isWithheldMarker = (v: unknown) => v !== null && typeof v === 'object' && canonicalJson(Object.keys(v)) === '["withheld"]';
