// Notices on a page: what a publisher says happened to a published page, in Crossmark's vocabulary where
// it fits (docs/decisions/page-notices.md). Pure rules: the order a record shows them in and the standing they leave
// the page in. Notices are never edited or deleted; a later notice (a reinstatement) changes the standing.
import type { NoticeType } from '../../db/schema.js';

export type { NoticeType };

export const NOTICE_TYPES = [
  'retraction',
  'partial_retraction',
  'expression_of_concern',
  'withdrawal',
  'removal',
  'clarification',
  'addendum',
  'reinstatement',
] as const satisfies readonly NoticeType[];

/** A page's standing: `current` unless the newest notice that sets one says otherwise. */
export type Standing = 'current' | 'retracted' | 'partially_retracted' | 'expression_of_concern' | 'withdrawn' | 'removed';
export const STANDINGS = ['current', 'retracted', 'partially_retracted', 'expression_of_concern', 'withdrawn', 'removed'] as const satisfies readonly Standing[];

/** What each notice does to the standing; clarifications and addenda leave it as it was. */
const SETS: Record<NoticeType, Standing | null> = {
  retraction: 'retracted',
  partial_retraction: 'partially_retracted',
  expression_of_concern: 'expression_of_concern',
  withdrawal: 'withdrawn',
  removal: 'removed',
  reinstatement: 'current',
  clarification: null,
  addendum: null,
};

export interface Notice {
  id: number;
  type: NoticeType;
  /** The notice's own date, YYYY-MM-DD. */
  notice_date: string;
  reason: string;
  notice_url: string | null;
  created_at: string;
  log_seq: number | null;
}

/** Newest first: by the notice's date, then by the order Credence learnt of them. */
export const newestFirst = <N extends Pick<Notice, 'id' | 'notice_date'>>(notices: N[]): N[] =>
  [...notices].sort((a, b) => (a.notice_date === b.notice_date ? b.id - a.id : a.notice_date < b.notice_date ? 1 : -1));

/** The standing the notices leave the page in: that of the newest notice that sets one. */
export function standingOf(notices: Pick<Notice, 'id' | 'notice_date' | 'type'>[]): Standing {
  for (const n of newestFirst(notices)) {
    const s = SETS[n.type];
    if (s !== null) return s;
  }
  return 'current';
}

/** A standing readers must be told about before anything else: everything but `current`. */
export const isFlagged = (s: Standing): boolean => s !== 'current';

/** The notice that set the page's standing (the newest one that sets any); null when none has. */
export function standingNotice<N extends Pick<Notice, 'id' | 'notice_date' | 'type'>>(notices: N[]): N | null {
  for (const n of newestFirst(notices)) if (SETS[n.type] !== null) return n;
  return null;
}
