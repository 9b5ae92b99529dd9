// Scores that explain themselves, as both surfaces show them: the numbers on the profile, and beside them
// every piece of work with its place, weight and date, the rejected count, each topic's weighted sum, and the
// formula with its constants, so the numbers can be recomputed from the answer alone. Field by field.
import Type from 'typebox';
import type { explainProfileScores } from '../domain/contributors/contributor.service.js';
import { SCORE_FORMULA } from '../domain/reputation/explain.js';
import { contributionRef, profileUrl, proofUrl, recordUrl, scoresUrl } from './urls.js';
import { PageUrl, ServiceUrl, WorkRole } from './vocabulary.js';

type Explained = Awaited<ReturnType<typeof explainProfileScores>>;

const Id = Type.Union([Type.Integer(), Type.String()], { description: 'The contribution: an integer on /api/v1, `ctb_<id>` on /v1' });

export const ScoreExplanation = Type.Object({
  username: Type.String(),
  profile_url: ServiceUrl,
  scores_url: ServiceUrl,
  contribution_score: Type.Number({ description: 'As the profile shows it' }),
  trust_score: Type.Number({ description: 'As the profile shows it' }),
  accepted_count: Type.Integer({ description: 'As the profile shows it' }),
  topics: Type.Array(
    Type.Object({
      topic: Type.String(),
      authority: Type.Number({ description: 'As the profile shows it' }),
      weight: Type.Number({ description: 'w: the sum of `weight` over this topic’s work' }),
      work: Type.Array(Id, { description: 'The work counted in this topic' }),
    }),
  ),
  accepted: Type.Integer({ description: 'The sum of `counts_as_accepted` over `work`' }),
  rejected: Type.Integer({ description: 'Submissions the publishers rejected: a count only (rejected work is never public)' }),
  work: Type.Array(
    Type.Object({
      id: Id,
      role: WorkRole,
      accepted_at: Type.String({ format: 'date-time' }),
      page: Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), topic: Type.String(), record_url: ServiceUrl }),
      publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
      position: Type.Integer({ description: 'Its place among this person’s accepted work on that publication’s pages, in the order accepted' }),
      role_weight: Type.Integer(),
      weight: Type.Integer({ description: 'What it adds to the contribution score and to its topic’s w' }),
      counts_as_accepted: Type.Integer({ description: '1, or 0 past the 9th from one source (a publication and those sharing an owner or member, present or past, or a registrable domain with it)' }),
      proof_url: ServiceUrl,
    }),
    { description: 'Every accepted work, in the order accepted (what the formula is summed over)' },
  ),
  formula: Type.Object({
    role_weights: Type.Record(Type.String(), Type.Integer()),
    diminishing_returns: Type.String(),
    contribution_score: Type.String(),
    trust_score: Type.String(),
    authority: Type.String(),
    z: Type.Number(),
  }),
});

export function presentScoreExplanation(siteUrl: string, e: Explained, words: 'v1' | 'api') {
  const id = (n: number) => (words === 'v1' ? contributionRef(n) : n);
  const sums = new Map(e.explanation.topics.map((t) => [t.topic, t]));
  return {
    username: e.account.username,
    profile_url: profileUrl(siteUrl, e.account.username),
    scores_url: scoresUrl(siteUrl, e.account.username),
    contribution_score: e.account.contribution_score,
    trust_score: e.account.trust_score,
    accepted_count: e.account.accepted_count,
    topics: e.topics.map((t) => ({ topic: t.topic, authority: t.authority, weight: sums.get(t.topic)?.weight ?? 0, work: (sums.get(t.topic)?.work ?? []).map(id) })),
    accepted: e.explanation.accepted,
    rejected: e.explanation.rejected,
    work: e.explanation.work.map((w) => ({
      id: id(w.id),
      role: w.role,
      accepted_at: w.accepted_at,
      page: { id: w.page.id, url: w.page.url, title: w.page.title, topic: w.page.topic, record_url: recordUrl(siteUrl, w.page.id) },
      publisher: { slug: w.publisher.slug, name: w.publisher.name },
      position: w.position,
      role_weight: w.role_weight,
      weight: w.weight,
      counts_as_accepted: w.accepted,
      proof_url: proofUrl(siteUrl, w.id),
    })),
    formula: {
      role_weights: { ...SCORE_FORMULA.role_weights },
      diminishing_returns: SCORE_FORMULA.diminishing_returns,
      contribution_score: SCORE_FORMULA.contribution_score,
      trust_score: SCORE_FORMULA.trust_score,
      authority: SCORE_FORMULA.authority,
      z: SCORE_FORMULA.z,
    },
  };
}
