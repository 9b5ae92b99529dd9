// The rules of a panel statement that need no database: normalising what an admin sent, refusing a statement that
// contradicts itself, and the changes between two versions (the facts of `panel.updated`).
import type { ErrorDetail } from '../errors.js';
import { normaliseTopic } from '../accounts/rules.js';
import type { Certainty, PanelVote, ReopenTrigger, StatementContentInput } from './panel.schema.js';

export interface PanelEntry {
  name: string;
  role: string;
  vote: PanelVote;
  /** The linked account's username; absent for a panellist without an account. */
  username?: string;
}

/** The fields every version carries: what `changes` compares and what presenters show. */
export interface StatementContent {
  topic: string;
  question: string;
  answer: string;
  certainty: Certainty;
  vote: { agree: number; dissent: number };
  panel: PanelEntry[];
  revisit_by: string;
  reopen_triggers: ReopenTrigger[];
}

/** The content fields, in the order `changes` lists them. */
export const CONTENT_FIELDS = [
  'topic',
  'question',
  'answer',
  'certainty',
  'vote',
  'panel',
  'revisit_by',
  'reopen_triggers',
] as const satisfies readonly (keyof StatementContent)[];

/** What `panel.updated` lists: the content fields, and the pages a version cites (`sources`, by URL). */
export type Changes = Partial<Record<(typeof CONTENT_FIELDS)[number] | 'sources', { from: unknown; to: unknown }>>;

/** Trimmed text, the topic as every topic is stored, usernames lower-cased; keys in one order. */
export function normaliseContent(input: StatementContentInput): StatementContent {
  return {
    topic: normaliseTopic(input.topic),
    question: input.question.trim(),
    answer: input.answer.trim(),
    certainty: input.certainty,
    vote: { agree: input.vote.agree, dissent: input.vote.dissent },
    panel: input.panel.map((p) => entry(p.name.trim(), p.role.trim(), p.vote, p.username?.toLowerCase())),
    revisit_by: input.revisit_by,
    reopen_triggers: [...input.reopen_triggers],
  };
}

export function entry(name: string, role: string, vote: PanelVote, username?: string | null): PanelEntry {
  return username ? { name, role, vote, username } : { name, role, vote };
}

/**
 * Every way the statement contradicts itself, each naming its field: blank text, vote totals that are not the
 * panellists' votes, one account listed twice, a revisit date that is not after the issue date (`today`).
 */
export function contradictions(c: StatementContent, today: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const field of ['topic', 'question', 'answer'] as const) {
    if (c[field] === '') out.push({ field, message: 'must not be blank' });
  }
  const seen = new Map<string, number>();
  c.panel.forEach((p, i) => {
    if (p.name === '') out.push({ field: `panel.${i}.name`, message: 'must not be blank' });
    if (p.role === '') out.push({ field: `panel.${i}.role`, message: 'must not be blank' });
    if (p.username) {
      const first = seen.get(p.username);
      if (first !== undefined) out.push({ field: `panel.${i}.username`, message: `names the same account as panel.${first}` });
      else seen.set(p.username, i);
    }
  });
  for (const side of ['agree', 'dissent'] as const) {
    const counted = c.panel.filter((p) => p.vote === side).length;
    if (c.vote[side] !== counted) {
      out.push({
        field: `vote.${side}`,
        message: `is ${c.vote[side]} but ${counted} panellist${counted === 1 ? '' : 's'} voted ${side}`,
      });
    }
  }
  if (c.revisit_by <= today) out.push({ field: 'revisit_by', message: `must be after the issue date (${today})` });
  return out;
}

/**
 * `{field: {from, to}}` for every content field that differs, then `sources` when the cited pages differ (in order:
 * the order is the statement's); `previous` null (a first version) lists them all.
 */
export function changesBetween(previous: CitedContent | null, next: CitedContent): Changes {
  const out: Changes = {};
  for (const field of CONTENT_FIELDS) {
    const from = previous ? previous.content[field] : null;
    // Both sides are built by normaliseContent/entry, so their keys are in one order and JSON compares them.
    if (JSON.stringify(from) !== JSON.stringify(next.content[field])) out[field] = { from, to: next.content[field] };
  }
  const from = previous ? previous.sources : null;
  if (JSON.stringify(from) !== JSON.stringify(next.sources)) out.sources = { from, to: next.sources };
  return out;
}

/** A version's content with the pages it cites, by URL: what two versions are compared on. */
export interface CitedContent {
  content: StatementContent;
  sources: readonly string[];
}
