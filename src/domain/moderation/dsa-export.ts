// Each decision as a statement of reasons in the DSA Transparency Database's JSON (Art. 24(5)), for
// `credence dsa:export --since DATE`. A `no_action` decision restricted nothing and is not a statement the database
// takes; an appeal's decision is not one either (the first decision was sent). Nothing names the notifier; the facts
// are the operator's, never the withheld text. Each statement passes validateStatement (dsa-rules.ts).
import type { Deps } from '../deps.js';
import { invalid } from '../errors.js';
import { loadItem } from './items.store.js';
import { decisionsSince, type DecisionRow } from './moderation.store.js';
import type { ItemRef } from './rules.js';

export type Statement = Record<string, unknown>;

const day = (iso: string) => iso.slice(0, 10);

export function statementOf(d: DecisionRow, source: string | null, contentAt: string | null, siteUrl: string, termsUrl: string): Statement | null {
  if (d.appeal_of !== null || d.type === 'no_action') return null;
  const restriction =
    d.type === 'suspend_account'
      ? { decision_account: 'DECISION_ACCOUNT_SUSPENDED', account_type: 'ACCOUNT_TYPE_PRIVATE' }
      : { decision_visibility: [d.type === 'remove_item' ? 'DECISION_VISIBILITY_CONTENT_REMOVED' : 'DECISION_VISIBILITY_CONTENT_DISABLED'] };
  const ground =
    d.ground === 'illegal'
      ? { decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT', illegal_content_legal_ground: (d.legal_reference ?? '').slice(0, 500), illegal_content_explanation: d.facts.slice(0, 2000) }
      : {
          decision_ground: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
          decision_ground_reference_url: termsUrl,
          incompatible_content_ground: (d.terms_clause ?? '').slice(0, 500),
          incompatible_content_explanation: d.facts.slice(0, 2000),
        };
  const sourceType = source === 'trusted_flagger' ? 'SOURCE_TRUSTED_FLAGGER' : source ? 'SOURCE_ARTICLE_16' : 'SOURCE_VOLUNTARY';
  return {
    ...restriction,
    ...ground,
    content_type: ['CONTENT_TYPE_TEXT'],
    category: d.category,
    content_language: 'EN',
    content_date: day(contentAt ?? d.decided_at),
    application_date: day(d.decided_at),
    decision_facts: d.facts.slice(0, 5000),
    source_type: sourceType,
    automated_detection: 'No',
    automated_decision: d.automated ? 'AUTOMATED_DECISION_FULLY' : 'AUTOMATED_DECISION_NOT_AUTOMATED',
    // The platform's own id for the decision: the site's host and the decision's number, in the allowed letters.
    puid: `${new URL(siteUrl).hostname.replace(/[^a-zA-Z0-9-_]/g, '-')}-decision-${d.id}`,
  };
}

/** The statements of every decision since `since` (YYYY-MM-DD), oldest first. */
export async function dsaExport(deps: Deps, since: string): Promise<Statement[]> {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(since) || Number.isNaN(Date.parse(since))) throw invalid('since', 'a date such as 2026-07-01');
  const rows = await decisionsSince(deps.db, `${since}T00:00:00.000Z`);
  const out: Statement[] = [];
  for (const d of rows) {
    const report = await deps.db.selectFrom('reports').select(['source']).where('decision_id', '=', d.id).orderBy('id').executeTakeFirst();
    // content_date is when the item was published (the database's "date on which the content was created").
    const item = await loadItem(deps.db, { kind: d.item_kind as ItemRef['kind'], id: d.item_id, field: d.field });
    const s = statementOf(d, report?.source ?? null, item?.createdAt ?? null, deps.config.siteUrl, deps.config.termsUrl);
    if (s) out.push(s);
  }
  return out;
}
