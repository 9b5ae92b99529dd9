// The change log (issue 11): every change to public data appends one immutable entry in the transaction of the
// change. Entries are the public face of the change only (docs/changes.md lists each kind's fields); the feed shows
// them as stored, and every process's record cache follows them (follower.ts).
import type { Db } from '../deps.js';
import { canonicalJson } from './canonical-json.js';
import { insertChange, insertChanges, nextSeq } from './change.store.js';

export type ChangeKind =
  | 'page.registered'
  | 'page.updated'
  | 'page.changed'
  | 'page.notice'
  | 'contribution.accepted'
  | 'contribution.withdrawn'
  | 'contributor.created'
  | 'contributor.updated'
  | 'publisher.created'
  | 'domain.verified'
  | 'domain.moved'
  | 'domain.revoked'
  | 'panel.issued'
  | 'panel.flagged';

/** What an entry touches; the record cache drops the answers that depend on these. */
export interface ChangeIds {
  pageId?: number | null;
  accountId?: number | null;
  publisherId?: number | null;
  panelId?: string | null;
}

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

export interface Change {
  kind: ChangeKind;
  ids: ChangeIds;
  /** The public fields of the entry (never a private one); `seq`, `kind` and `created_at` are added here. */
  data: Record<string, unknown>;
  now: string;
}

/** Append one entry inside `trx` (the transaction of the change); returns its seq. */
export async function appendChange(trx: Db, change: Change): Promise<number> {
  const seq = await nextSeq(trx);
  const body = canonicalJson({ ...change.data, seq, kind: change.kind, created_at: change.now });
  await insertChange(trx, {
    seq,
    created_at: change.now,
    kind: change.kind,
    page_id: change.ids.pageId ?? null,
    account_id: change.ids.accountId ?? null,
    publisher_id: change.ids.publisherId ?? null,
    panel_id: change.ids.panelId ?? null,
    body,
  });
  return seq;
}

/**
 * Append several entries inside `trx` (a batch write's changes, issue 16): one seq lookup and multi-row inserts,
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
  await insertChanges(
    trx,
    changes.map((change, i) => ({
      seq: first + i,
      created_at: change.now,
      kind: change.kind,
      page_id: change.ids.pageId ?? null,
      account_id: change.ids.accountId ?? null,
      publisher_id: change.ids.publisherId ?? null,
      panel_id: change.ids.panelId ?? null,
      body: canonicalJson({ ...change.data, seq: first + i, kind: change.kind, created_at: change.now }),
    })),
  );
  return changes.map((_, i) => first + i);
}
