// The public reputation graph on /api/v1: the directory of contributors and full profiles. No email, ever.
import { ScoreExplanation, presentScoreExplanation } from '../scores.presenter.js';
import { InterestData, presentInterest } from '../interests.presenter.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as contributors from '../../domain/contributors/contributor.service.js';
import type { WorkRow } from '../../domain/contributors/contributor.store.js';
import type { Deps } from '../../domain/deps.js';
import { optional } from '../../http/auth.js';
import { surrogateHeaders } from '../../http/cache-tier.js';
import { tag } from '../../domain/pages/cache-tags.js';
import { ApiList, Nullable, Ok, PageQuery, pagination } from '../../http/schemas.js';
import { profileUrl, proofUrl, recordUrl, scoresUrl } from '../urls.js';
import { Level, PageUrl, ServiceUrl, WorkRole } from '../vocabulary.js';

const Topic = Type.Object({ topic: Type.String(), authority: Type.Number(), accepted: Type.Integer() });
const Work = Type.Object({
  id: Type.Integer(),
  role: WorkRole,
  summary: Type.String(),
  accepted_at: Type.String({ format: 'date-time' }),
  change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
  page: Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), topic: Type.String(), record_url: ServiceUrl }),
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  proof_url: ServiceUrl,
});
const Reputation = {
  username: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  level: Level,
  trust_score: Type.Number(),
  contribution_score: Type.Number(),
  accepted_count: Type.Integer(),
  profile_url: ServiceUrl,
  scores_url: { ...ServiceUrl, description: 'How the scores are made, each with its sum (GET /contributors/{username}/scores; HTML for a browser)' },
};
const ContributorListItem = Type.Object({ ...Reputation, topics: Type.Array(Topic), latest_contribution: Nullable(Work) });
const ContributorProfile = Type.Object({
  ...Reputation,
  joined_at: Type.String({ format: 'date-time' }),
  topics: Type.Array(Topic),
  contributions: Type.Array(Work),
  interests: Type.Array(InterestData, { description: 'What the person declared might sway their work, holding now' }),
});

export function presentWork(siteUrl: string, w: WorkRow) {
  return {
    id: w.id,
    role: w.role,
    summary: w.summary,
    accepted_at: w.accepted_at,
    ...(w.role === 'correction' && w.change_from !== null && w.change_to !== null ? { change: { from: w.change_from, to: w.change_to } } : {}),
    page: { id: w.page_id, url: w.page_url, title: w.page_title, topic: w.page_topic, record_url: recordUrl(siteUrl, w.page_id) },
    publisher: { slug: w.publisher_slug, name: w.publisher_name },
    proof_url: proofUrl(siteUrl, w.id),
  };
}

function reputationOf(siteUrl: string, a: Awaited<ReturnType<typeof contributors.getProfile>>['account']) {
  return {
    username: a.username,
    name: a.name,
    summary: a.summary,
    level: a.level,
    trust_score: a.trust_score,
    contribution_score: a.contribution_score,
    accepted_count: a.accepted_count,
    profile_url: profileUrl(siteUrl, a.username),
    scores_url: scoresUrl(siteUrl, a.username),
  };
}

export function contributorRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['contributors'];
  const site = deps.config.siteUrl;

  app.get(
    '/contributors',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'Contributors: by authority in a topic, or by contribution score; `q` searches names',
        querystring: Type.Object({
          ...PageQuery.properties,
          topic: Type.Optional(Type.String({ maxLength: 100 })),
          q: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: ApiList(ContributorListItem) },
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await contributors.searchContributors(deps, { topic: req.query.topic, q: req.query.q }, page, perPage);
      return {
        success: true as const,
        data: items.map((i) => ({
          ...reputationOf(site, i.account),
          topics: i.topics,
          latest_contribution: i.latest ? presentWork(site, i.latest) : null,
        })),
        meta: { total, page, per_page: perPage },
      };
    },
  );

  app.get(
    '/contributors/:username',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'A contributor’s full profile: per-topic authority and accepted work with its proof',
        params: Type.Object({ username: Type.String({ maxLength: 100 }) }),
        response: { 200: Ok(ContributorProfile) },
      },
    },
    async (req, reply) => {
      const p = await contributors.getProfile(deps, req.params.username);
      // Kept by the cache tier until the person, a page of their work or its publication changes.
      const tags = [tag.account(p.account.id), ...p.work.flatMap((w) => [tag.page(w.page_id), tag.publisher(w.publisher_id)])];
      void reply.headers(surrogateHeaders(deps, req, tags));
      return {
        success: true as const,
        data: { ...reputationOf(site, p.account), joined_at: p.account.created_at, topics: p.topics, contributions: p.work.map((w) => presentWork(site, w)), interests: p.interests.map(presentInterest) },
      };
    },
  );
  app.get(
    '/contributors/:username/scores',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'How the contributor’s scores are made: every accepted work with its weight and place, the rejected count, each topic’s sum, the formula',
        description: 'Recompute `contribution_score`, `trust_score` and each topic’s `authority` from this answer alone (docs/decisions/score-explanations.md).',
        params: Type.Object({ username: Type.String({ maxLength: 100 }) }),
        response: { 200: Ok(ScoreExplanation) },
      },
    },
    async (req) => ({ success: true as const, data: presentScoreExplanation(site, await contributors.explainProfileScores(deps, req.params.username), 'api') }),
  );
}
