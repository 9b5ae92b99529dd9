// Conflicts of interest of authorship: nobody reviews, fact-checks, edits, corrects or sources a page they agreed to
// be named on as its author, even after taking their name back from it, nor takes a request on it; a person a
// publication named on a page, whose claim waits for their answer, answers it first; a declined claim is no conflict,
// so naming a rival on a page cannot lock them out of checking it. Checked when a request is taken, when work is
// submitted and when it is accepted (docs/decisions/authors-do-not-check-their-own-pages.md).
import type { Db } from '../deps.js';
import { DomainError } from '../errors.js';
import type { WorkKind } from '../work-kinds.js';
import { type Authorship, authorshipsOf } from './consent.store.js';

export type { Authorship } from './consent.store.js';

const VERB: Record<WorkKind, string> = {
  review: 'review',
  fact_check: 'fact-check',
  edit: 'edit',
  correction: 'correct',
  source: 'add sources to',
  author: 'author',
};

/** Why the person may not do this work on the page, in words for them (the API's message, the marketplace's note). */
export function authorConflictReason(kind: WorkKind, authorship: Authorship = 'author'): string {
  if (authorship === 'author') return `You are named as an author of this page, so you cannot ${VERB[kind]} it`;
  if (authorship === 'former_author') return `You were named as an author of this page, so you cannot ${VERB[kind]} it, even after taking your name back`;
  return `A publication named you as an author of this page: answer that claim first (decline it if you did not write the page), then you can ${VERB[kind]} it`;
}

/** The same refusal worded for the publisher deciding the person's work. */
function contributorReason(kind: WorkKind, authorship: Authorship): string {
  const work = kind.replace('_', '-');
  if (authorship === 'author') return `The contributor is named as an author of this page, so their work cannot be accepted as its ${work}`;
  if (authorship === 'former_author') return `The contributor was named as an author of this page, so their work cannot be accepted as its ${work}`;
  return `A claim naming the contributor as an author of this page waits for their answer: their work can be accepted as its ${work} once they decline it`;
}

/**
 * 403 `conflict_of_interest` when the person is, or was, named an author of the page with their agreement (taking
 * their name back does not end it); 409 `claim_pending` when a claim naming them on it waits for their answer. `who`
 * words it for the reader: the person themselves, or the publisher deciding their work.
 */
export async function assertNotAuthorOf(db: Db, accountId: number, pageId: number, kind: WorkKind, who: 'you' | 'contributor' = 'you'): Promise<void> {
  if (kind === 'author') return;
  const authorship = (await authorshipsOf(db, accountId, [pageId])).get(pageId);
  if (authorship === undefined) return;
  const message = who === 'you' ? authorConflictReason(kind, authorship) : contributorReason(kind, authorship);
  throw new DomainError(authorship === 'pending' ? 'claim_pending' : 'conflict_of_interest', message);
}

/**
 * Of these pages, those the person is named on, and how: the marketplace marks their requests with the reason
 * instead of offering them.
 */
export const pagesAuthoredBy = (db: Db, accountId: number, pageIds: number[]): Promise<Map<number, Authorship>> => authorshipsOf(db, accountId, [...new Set(pageIds)]);
