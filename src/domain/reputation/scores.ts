// Reputation (SPEC §13): documented, deterministic, pure. Stores call these; nothing else computes a score.
import type { Level } from '../../db/vocabulary.js';

export const ROLE_WEIGHTS: Record<string, number> = {
  author: 10,
  fact_check: 8,
  review: 6,
  correction: 5,
  edit: 4,
  source: 3,
};

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Wilson score interval lower bound at z = 1.96; 0 with no decisions. */
export function trustScore(accepted: number, rejected: number): number {
  const n = accepted + rejected;
  if (n === 0) return 0;
  const z = 1.96;
  const p = accepted / n;
  const z2 = z * z;
  const lower = (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)) / (1 + z2 / n);
  return round2(Math.max(0, lower));
}

/**
 * Work one source accepted for one person counts with diminishing returns (docs/decisions/reputation-counters.md), so
 * one source cannot make an expert. A source is a publication together with every publication it shares an owner
 * or member with (present or past), or a registrable domain, directly or through others (`independentSources`;
 * docs/decisions/reputation-independent-sources.md): owning more publications buys nothing. The k-th of their contributions on its pages, in the order they were
 * accepted, counts in full up to the 3rd, then as one accepted work at half its role's weight (rounded down) up to
 * the 9th, and not at all after. Nine accepted works from one source stay below `trusted` (10).
 */
export const FULL_FROM_ONE_PUBLICATION = 3;
export const COUNTED_FROM_ONE_PUBLICATION = 9;

export function counted(role: string, k: number): { accepted: number; weight: number } {
  const weight = ROLE_WEIGHTS[role] ?? 0;
  if (k <= FULL_FROM_ONE_PUBLICATION) return { accepted: 1, weight };
  if (k <= COUNTED_FROM_ONE_PUBLICATION) return { accepted: 1, weight: Math.floor(weight / 2) };
  return { accepted: 0, weight: 0 };
}

/**
 * Which source each publication belongs to, from what links publications (`via`: an account that is or was a member
 * of each, or a registrable domain each verified a domain under): publications sharing a link are one source,
 * transitively (union-find over the links). A source is named by its least publication id, so the answer does not
 * depend on the order of the links. Publications without a link are their own source.
 */
export function independentSources(links: { publisher_id: number; via: string }[]): (publisherId: number) => number {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while ((parent.get(root) ?? root) !== root) root = parent.get(root)!;
    // Path compression: each visited publication points at the root.
    for (let y = x; y !== root; ) {
      const next = parent.get(y)!;
      parent.set(y, root);
      y = next;
    }
    return root;
  };
  const firstOf = new Map<string, number>();
  for (const l of links) {
    const first = firstOf.get(l.via);
    if (first === undefined) {
      firstOf.set(l.via, l.publisher_id);
      continue;
    }
    const [a, b] = [find(first), find(l.publisher_id)];
    if (a !== b) parent.set(Math.max(a, b), Math.min(a, b));
  }
  return find;
}

export function contributionScore(roles: string[]): number {
  return roles.reduce((sum, role) => sum + (ROLE_WEIGHTS[role] ?? 0), 0);
}

/** Topic authority in [0, 1]: trust × (1 − e^(−w/20)), w the weighted sum of accepted work in the topic. */
export function topicAuthority(trust: number, weightedSum: number): number {
  return round2(trust * (1 - Math.exp(-weightedSum / 20)));
}

export type { Level };

export function level(input: { accepted: number; trust: number; panellist: boolean }): Level {
  if (input.panellist || (input.trust >= 0.9 && input.accepted >= 25)) return 'expert';
  if (input.accepted < 3) return 'newcomer';
  if (input.trust >= 0.8 && input.accepted >= 10) return 'trusted';
  return 'contributor';
}
