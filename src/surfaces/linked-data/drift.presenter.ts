// What both record surfaces add to each contribution entry: a fact check's claim and verdict, and
// whether the page's text changed after the work. Field by field from the record row.
import { DRIFTING_ROLES } from '../../domain/pages/drift.js';
import type { PageRecord } from '../../domain/pages/record.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';

type Work = Pick<PageRecord['contributions'][number], 'role' | 'claim' | 'verdict' | 'page_changed_at' | 'correction_missing'>;

/** `claim_reviewed` and `verdict`, on fact checks that carry both; nothing otherwise. */
export function claimOf(c: Work): { claim_reviewed?: string; verdict?: { value: number; name: string; label: string } } {
  const verdict = c.role === 'fact_check' ? verdictOf(c.verdict) : null;
  return verdict && c.claim !== null ? { claim_reviewed: c.claim, verdict: { value: verdict.value, name: verdict.name, label: verdict.label } } : {};
}

const drifts = (role: string) => (DRIFTING_ROLES as readonly string[]).includes(role);

export function driftOf(c: Work): { page_changed_since: string | null; correction_missing: boolean | null } {
  return {
    page_changed_since: drifts(c.role) ? c.page_changed_at : null,
    correction_missing: c.role === 'correction' && c.correction_missing !== null ? c.correction_missing === 1 : null,
  };
}
