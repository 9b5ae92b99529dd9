// The fixed lists of reports and decisions (DSA Art. 16, 17, 20, 22, 23; docs/trust-and-safety.md) and the rules
// that need no database. Categories are the DSA Transparency Database's statement categories, as its API names
// them (app/Models/Statement.php of digital-services-act/transparency-database, commit 69e80a0, 2026-06-24), so a
// decision exports without a translation table; `STATEMENT_CATEGORY_OTHER_VIOLATION_TC` is "against the terms".

export const CATEGORIES = [
  'STATEMENT_CATEGORY_ANIMAL_WELFARE',
  'STATEMENT_CATEGORY_CONSUMER_INFORMATION',
  'STATEMENT_CATEGORY_CYBER_VIOLENCE',
  'STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN',
  'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
  'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  'STATEMENT_CATEGORY_INTELLECTUAL_PROPERTY_INFRINGEMENTS',
  'STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS',
  'STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE',
  'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
  'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
  'STATEMENT_CATEGORY_RISK_FOR_PUBLIC_SECURITY',
  'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
  'STATEMENT_CATEGORY_SELF_HARM',
  'STATEMENT_CATEGORY_UNSAFE_AND_PROHIBITED_PRODUCTS',
  'STATEMENT_CATEGORY_VIOLENCE',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** What a decision does. `restore` is an appeal's reversal of an earlier restriction. */
export const DECISION_TYPES = ['no_action', 'restrict_field', 'remove_item', 'suspend_account'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number] | 'restore' | 'upheld';

/** Art. 17(3)(d), (e): unlawful, or incompatible with the terms. */
export const GROUNDS = ['illegal', 'incompatible'] as const;
export type Ground = (typeof GROUNDS)[number];

/** How a notice came (the transparency counts group by it; Art. 15(1)(b), 22). */
export type ReportSource = 'anonymous' | 'account' | 'trusted_flagger';

/** What can be reported: an item kind and the fields of free text it has. */
export const ITEM_FIELDS = {
  contribution: ['summary', 'change_from', 'change_to', 'claim', 'evidence_reason'],
  notice: ['reason'],
  profile: ['name', 'summary'],
  page: ['title'],
  // An expert panel's statement, by its row id (panel_statements.id): its question, in every version.
  panel: ['question'],
} as const;
export type ItemKind = keyof typeof ITEM_FIELDS;
export const ITEM_KINDS = Object.keys(ITEM_FIELDS) as ItemKind[];

export interface ItemRef {
  kind: ItemKind;
  id: number;
  /** Null: the whole item. */
  field: string | null;
}

/** `contribution:12:summary` (the form's `item` parameter and the queue's links); null if it is not one. */
export function parseItemRef(text: string): ItemRef | null {
  const m = /^([a-z]+):([0-9]{1,15})(?::([a-z_]+))?$/.exec(text.trim());
  if (!m) return null;
  const kind = m[1] as ItemKind;
  const fields = ITEM_FIELDS[kind] as readonly string[] | undefined;
  if (!fields) return null;
  const field = m[3] ?? null;
  if (field !== null && !fields.includes(field)) return null;
  return { kind, id: Number(m[2]), field };
}

export const itemRefText = (r: ItemRef) => `${r.kind}:${r.id}${r.field ? `:${r.field}` : ''}`;

/** Complaints against a decision are taken for six months after it (Art. 20(1)). */
export const APPEAL_MONTHS = 6;
export function appealUntil(decidedAt: string): string {
  const d = new Date(decidedAt);
  d.setUTCMonth(d.getUTCMonth() + APPEAL_MONTHS);
  return d.toISOString();
}

/**
 * Misuse (Art. 23): the first notice found manifestly unfounded warns; each one after the warning suspends the
 * notifier from reporting for SUSPENSION_DAYS.
 */
export const SUSPENSION_DAYS = 30;
export function standingAfterUnfounded(s: { unfounded: number; warned_at: string | null }, now: string): { unfounded: number; warned_at: string; suspended_until: string | null } {
  const unfounded = s.unfounded + 1;
  if (!s.warned_at) return { unfounded, warned_at: now, suspended_until: null };
  return { unfounded, warned_at: s.warned_at, suspended_until: new Date(new Date(now).getTime() + SUSPENSION_DAYS * 86_400_000).toISOString() };
}

/** Reports each address and each notifier may send (the routes' rate limit policy names them too). */
export const REPORTS_PER_HOUR = 10;

/** `2026-H2` → its first instant and the first instant after it; null if it is not a half-year. */
export function periodBounds(period: string): { from: string; to: string } | null {
  const m = /^(20[0-9]{2})-H([12])$/.exec(period);
  if (!m) return null;
  const year = Number(m[1]);
  const from = m[2] === '1' ? `${year}-01-01T00:00:00.000Z` : `${year}-07-01T00:00:00.000Z`;
  const to = m[2] === '1' ? `${year}-07-01T00:00:00.000Z` : `${year + 1}-01-01T00:00:00.000Z`;
  return { from, to };
}
