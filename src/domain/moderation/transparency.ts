// The counts the DSA asks a hosting service to publish (Art. 15(1)(b)-(d), 24(1)), computed from the change log's
// `moderation.decided` entries alone, so anyone holding the log can recount them (`credence log:verify
// --transparency` runs this same function over the entries it read). Reports not yet decided are not in the log and
// so not counted: the period's counts are of notices decided within it.
import type { Deps } from '../deps.js';
import { invalid } from '../errors.js';
import { decisionEntries } from './moderation.store.js';
import { periodBounds } from './rules.js';

export interface TransparencyCounts {
  period: string;
  from: string;
  to: string;
  reports: { total: number; by_category: Record<string, number>; by_source: Record<string, number> };
  decisions: { total: number; by_type: Record<string, number>; by_ground: Record<string, number>; automated: number };
  /** From the first notice's receipt to its decision, in whole seconds; null without notices. */
  median_seconds_to_decide: number | null;
  appeals: { decided: number; reversed: number; upheld: number };
  notifiers_suspended: number;
  /** The log entries counted: the first and last seq, so a recount can name what it read. */
  entries: number;
}

interface DecisionBody {
  decision?: {
    type?: string;
    category?: string;
    ground?: string;
    automated?: boolean;
    decided_at?: string;
    appeal_of?: number | null;
    reports?: { category?: string; source?: string; received_at?: string }[];
    notifiers_suspended?: number;
  };
}

const bump = (o: Record<string, number>, k: string) => {
  o[k] = (o[k] ?? 0) + 1;
};

/** The counts from the bodies of a period's decision entries (JSON text, as the log stores and serves them). */
export function countDecisions(period: string, bodies: string[]): TransparencyCounts {
  const bounds = periodBounds(period);
  if (!bounds) throw invalid('period', 'a half-year such as 2026-H2');
  const out: TransparencyCounts = {
    period,
    ...bounds,
    reports: { total: 0, by_category: {}, by_source: {} },
    decisions: { total: 0, by_type: {}, by_ground: {}, automated: 0 },
    median_seconds_to_decide: null,
    appeals: { decided: 0, reversed: 0, upheld: 0 },
    notifiers_suspended: 0,
    entries: 0,
  };
  const waits: number[] = [];
  for (const text of bodies) {
    const d = (JSON.parse(text) as DecisionBody).decision;
    if (!d?.type) continue;
    out.entries++;
    if (d.appeal_of != null) {
      out.appeals.decided++;
      if (d.type === 'restore') out.appeals.reversed++;
      else out.appeals.upheld++;
      continue;
    }
    out.decisions.total++;
    bump(out.decisions.by_type, d.type);
    if (d.ground) bump(out.decisions.by_ground, d.ground);
    if (d.automated) out.decisions.automated++;
    out.notifiers_suspended += d.notifiers_suspended ?? 0;
    const received: number[] = [];
    for (const r of d.reports ?? []) {
      out.reports.total++;
      bump(out.reports.by_category, r.category ?? 'unknown');
      bump(out.reports.by_source, r.source ?? 'unknown');
      if (r.received_at) received.push(Date.parse(r.received_at));
    }
    if (received.length > 0 && d.decided_at) waits.push(Math.round((Date.parse(d.decided_at) - Math.min(...received)) / 1000));
  }
  if (waits.length > 0) {
    waits.sort((a, b) => a - b);
    const mid = waits.length >> 1;
    out.median_seconds_to_decide = waits.length % 2 ? waits[mid]! : Math.round((waits[mid - 1]! + waits[mid]!) / 2);
  }
  return out;
}

/** The period's counts from this database's log. */
export async function transparencyCounts(deps: Deps, period: string): Promise<TransparencyCounts> {
  const bounds = periodBounds(period);
  if (!bounds) throw invalid('period', 'a half-year such as 2026-H2');
  const rows = await decisionEntries(deps.db, bounds.from, bounds.to);
  return countDecisions(period, rows.map((r) => r.body));
}
