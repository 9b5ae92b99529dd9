// Scores that explain themselves: the sum behind a person's contribution_score, trust_score and each
// topic's authority, from the same rows and the same rules the recount uses (reputation.store.ts recomputeScores,
// scores.ts), so anyone can recompute the numbers from what is shown. Rejected work is private (SPEC: nothing
// rejected is public): it is shown as a count only, which is all the formula needs.
import type { Db } from '../../db/schema.js';
import type { WorkKind } from '../../db/schema.js';
import { sourcesOf } from './reputation.store.js';
import { COUNTED_FROM_ONE_PUBLICATION, FULL_FROM_ONE_PUBLICATION, ROLE_WEIGHTS, counted, topicAuthority, trustScore } from './scores.js';

export interface ExplainedWork {
  id: number;
  role: WorkKind;
  accepted_at: string;
  page: { id: number; url: string; title: string; topic: string };
  publisher: { slug: string; name: string };
  /** Its place among the person's accepted work from that publication's source (it and the publications sharing an owner or member, present or past, or a registrable domain with it), in the order accepted. */
  position: number;
  role_weight: number;
  /** What it adds to the contribution score and to its topic's weighted sum. */
  weight: number;
  /** What it adds to the accepted count (1, or 0 past the 9th from one source). */
  accepted: number;
}

export interface ScoreExplanation {
  accepted: number;
  rejected: number;
  contribution_score: number;
  trust_score: number;
  work: ExplainedWork[];
  topics: { topic: string; weight: number; authority: number; work: number[] }[];
}

const ordinalRules = new Intl.PluralRules('en', { type: 'ordinal' });
const SUFFIX: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };
/** 1st, 2nd, 3rd, 4th, 11th, 21st: English ordinals by CLDR's rules. */
export const ordinal = (n: number) => `${n}${SUFFIX[ordinalRules.select(n)] ?? 'th'}`;

/** The formula in words, with its constants: the same on every surface. */
export const SCORE_FORMULA = {
  role_weights: ROLE_WEIGHTS,
  diminishing_returns:
    `Work one source accepted for one person (a publication with every publication it shares an owner or member with, present or past, or a registrable domain, directly or through others), in the order accepted: the 1st to ${ordinal(FULL_FROM_ONE_PUBLICATION)} count in full; ` +
    `the ${ordinal(FULL_FROM_ONE_PUBLICATION + 1)} to ${ordinal(COUNTED_FROM_ONE_PUBLICATION)} count as one accepted work at half the role's weight, rounded down; later ones count nothing`,
  contribution_score: 'the sum of `weight` over `work`',
  trust_score:
    'Wilson lower bound at z = 1.96 of accepted / (accepted + rejected), rounded to two decimals, 0 without decisions; accepted = the sum of `accepted` over `work`: ' +
    '(p + z²/2n − z·√((p(1−p) + z²/4n)/n)) / (1 + z²/n), n = accepted + rejected, p = accepted / n',
  authority: 'trust_score × (1 − e^(−w/20)), rounded to two decimals; w = the sum of `weight` over the topic’s `work`',
  z: 1.96,
} as const;

export async function explainScores(db: Db, accountId: number): Promise<ScoreExplanation> {
  const [account, rows, rejected] = await Promise.all([
    db.selectFrom('accounts').select(['topics']).where('id', '=', accountId).executeTakeFirstOrThrow(),
    db
      .selectFrom('contributions as c')
      .innerJoin('pages as p', 'p.id', 'c.page_id')
      .innerJoin('publishers as pub', 'pub.id', 'p.publisher_id')
      .select(['c.id', 'c.role', 'c.accepted_at', 'p.id as page_id', 'p.url', 'p.title', 'p.topic', 'p.publisher_id', 'pub.slug', 'pub.name'])
      .where('c.account_id', '=', accountId)
      .orderBy('c.id')
      .execute(),
    db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('status', '=', 'rejected')
      .executeTakeFirstOrThrow(),
  ]);
  // Counted per source: publications sharing an owner or member, or a registrable domain, are one (reputation.store.ts `sourcesOf`).
  const { sourceOf } = await sourcesOf(db, [...new Set(rows.map((r) => r.publisher_id))]);
  const place = new Map<number, number>();
  const work: ExplainedWork[] = rows.map((r) => {
    const source = sourceOf(r.publisher_id);
    const k = (place.get(source) ?? 0) + 1;
    place.set(source, k);
    const c = counted(r.role, k);
    return {
      id: r.id,
      role: r.role,
      accepted_at: r.accepted_at,
      page: { id: r.page_id, url: r.url, title: r.title, topic: r.topic },
      publisher: { slug: r.slug, name: r.name },
      position: k,
      role_weight: ROLE_WEIGHTS[r.role] ?? 0,
      weight: c.weight,
      accepted: c.accepted,
    };
  });
  const accepted = work.reduce((s, w) => s + w.accepted, 0);
  const rejectedCount = Number(rejected.n);
  const trust = trustScore(accepted, rejectedCount);
  const topics = new Map<string, { weight: number; work: number[] }>();
  for (const t of JSON.parse(account.topics) as string[]) topics.set(t, { weight: 0, work: [] });
  for (const w of work) {
    if (!w.page.topic || (w.weight === 0 && w.accepted === 0)) continue;
    const t = topics.get(w.page.topic) ?? { weight: 0, work: [] };
    t.weight += w.weight;
    t.work.push(w.id);
    topics.set(w.page.topic, t);
  }
  return {
    accepted,
    rejected: rejectedCount,
    contribution_score: work.reduce((s, w) => s + w.weight, 0),
    trust_score: trust,
    work,
    topics: [...topics]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([topic, t]) => ({ topic, weight: t.weight, authority: topicAuthority(trust, t.weight), work: t.work })),
  };
}
