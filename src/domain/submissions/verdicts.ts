// The verdict scale of a fact check (docs/decisions/linked-data.md): the five-step scale fact-checkers publish as
// ClaimReview ratings, 1 (false) to 5 (true). Stored as the number; each surface names it.
export const VERDICTS = ['false', 'mostly_false', 'mixed', 'mostly_true', 'true'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const VERDICT_LABELS: Record<Verdict, string> = {
  false: 'False',
  mostly_false: 'Mostly false',
  mixed: 'Mixed',
  mostly_true: 'Mostly true',
  true: 'True',
};

export const verdictValue = (v: Verdict): number => VERDICTS.indexOf(v) + 1;

/** The named verdict of a stored rating, or null for none (or a value off the scale). */
export function verdictOf(value: number | null): { value: number; name: Verdict; label: string } | null {
  const name = value !== null ? VERDICTS[value - 1] : undefined;
  return name ? { value: value!, name, label: VERDICT_LABELS[name] } : null;
}
