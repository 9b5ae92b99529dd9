// Conflicts of interest of authorship: nobody reviews, fact-checks, edits, corrects or sources a page they are named
// on as its author (a claim pending or confirmed, or an authorship on its record), nor takes a request on it. Checked
// when a request is taken, when work is submitted and when it is accepted
// (docs/decisions/authors-do-not-check-their-own-pages.md).
import type { Db } from '../deps.js';
import { DomainError } from '../errors.js';
import type { WorkKind } from '../work-kinds.js';
import { isNamedAuthor, pagesNamingAuthor } from './consent.store.js';

const VERB: Record<WorkKind, string> = {
  review: 'review',
  fact_check: 'fact-check',
  edit: 'edit',
  correction: 'correct',
  source: 'add sources to',
  author: 'author',
};

/** Why the person may not do this work on a page they are named an author of, in words for them. */
export const authorConflictReason = (kind: WorkKind): string => `You are named as an author of this page, so you cannot ${VERB[kind]} it`;

/** 403 `conflict_of_interest` when the person is named as an author of the page; `who` words it for the reader. */
export async function assertNotAuthorOf(db: Db, accountId: number, pageId: number, kind: WorkKind, who: 'you' | 'contributor' = 'you'): Promise<void> {
  if (kind === 'author' || !(await isNamedAuthor(db, pageId, accountId))) return;
  throw new DomainError(
    'conflict_of_interest',
    who === 'you'
      ? authorConflictReason(kind)
      : `The contributor is named as an author of this page, so their work cannot be accepted as its ${kind.replace('_', '-')}`,
  );
}

/** Of these pages, those the person is named an author of: the marketplace marks their requests instead of offering them. */
export const pagesAuthoredBy = (db: Db, accountId: number, pageIds: number[]): Promise<Set<number>> => pagesNamingAuthor(db, accountId, [...new Set(pageIds)]);
