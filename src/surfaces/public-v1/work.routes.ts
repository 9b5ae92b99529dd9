// /v1 publisher requests and contributor profiles (seed §2, §4).
import { ScoreExplanation, presentScoreExplanation } from '../scores.presenter.js';
import { InterestData, presentInterest } from '../interests.presenter.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as contributors from '../../domain/contributors/contributor.service.js';
import { memberPublisherForPage } from '../../domain/publishers/publisher.service.js';
import type { Deps } from '../../domain/deps.js';
import * as requests from '../../domain/requests/request.service.js';
import type { RequestRow } from '../../domain/requests/request.store.js';
import { V1_REQUEST_TYPES } from '../../domain/work-kinds.js';
import { accountOf, actingPublishers, optional, publisherCaller } from '../../http/auth.js';
import { Nullable, PageQuery, pagination, V1List } from '../../http/schemas.js';
import { contributionRef, profileUrl, proofUrl, scoresUrl } from '../urls.js';
import { link } from '../docs/openapi.js';
import { Level, PageUrl, RequestableKind, RequestStatus, ServiceUrl, WorkRole } from '../vocabulary.js';

const V1Request = Type.Object({
  id: Type.String({ description: '`req_<id>`' }),
  status: RequestStatus,
  url: PageUrl,
  type: RequestableKind,
  topic: Type.String(),
  taken_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});

const presentV1Request = (r: RequestRow) => ({
  id: `req_${r.id}`,
  status: r.status,
  url: r.page_url,
  // Requests are never of kind `author`: every request kind is a /v1 type.
  type: r.kind as (typeof V1_REQUEST_TYPES)[number],
  topic: r.topic,
  taken_by: r.taken_by_username,
  created_at: r.created_at,
});

const V1Profile = Type.Object({
  id: Type.String({ description: 'Numeric id, as a string' }),
  username: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  level: Level,
  contribution_score: Type.Number(),
  trust_score: Type.Number(),
  topics: Type.Array(Type.Object({ topic: Type.String(), authority: Type.Number() })),
  profile_url: ServiceUrl,
  scores_url: { ...ServiceUrl, description: 'How the scores are made, each with its sum (`/v1/contributors/{id}/scores`; HTML for a browser)' },
  contributions: Type.Array(
    Type.Object({
      id: Type.String(),
      role: WorkRole,
      url: PageUrl,
      title: Type.String(),
      publisher: Type.String({ description: 'Publisher slug' }),
      accepted: Type.String({ format: 'date' }),
      change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
      proof_url: ServiceUrl,
    }),
  ),
  interests: Type.Array(InterestData, { description: 'What the person declared might sway their work, holding now' }),
});

export function v1WorkRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const site = deps.config.siteUrl;

  app.post(
    '/requests',
    {
      preValidation: [publisherCaller],
      schema: {
        tags: ['requests'],
        summary: 'Open a request for work on a page of a verified domain',
        description:
          'A publisher key opens it for its publication. A person’s session opens it for the one of their publications ' +
          'that verified the page’s domain, so someone in several publications names none: a page on none of their ' +
          'verified domains is 403 `page_not_verified`.',
        body: Type.Object(
          {
            url: { ...PageUrl, description: 'Full URL of the page, on a verified domain' },
            type: RequestableKind,
            topic: Type.Optional(Type.String({ maxLength: 100, description: 'Used to match specialists' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: V1Request },
        links: { 201: { requests: link('getRequests', 'The publisher’s requests, this one among them') } },
      },
    },
    async (req, reply) => {
      const p = req.principal;
      // A key acts for its own publication; a person for the one that verified the page's domain.
      const publisherId = p.kind === 'key' ? (await actingPublishers(deps, req))[0]! : await memberPublisherForPage(deps, accountOf(req), req.body.url);
      const [result] = await requests.openRequests(deps, publisherId, accountOf(req), [
        { index: 0, ok: true, value: { url: req.body.url, kind: req.body.type, topic: req.body.topic } },
      ]);
      if (result!.error) throw result!.error;
      return reply.status(201).send(presentV1Request(await requests.getRequest(deps, result!.id!)));
    },
  );

  app.get(
    '/requests',
    {
      preValidation: [publisherCaller],
      schema: {
        tags: ['requests'],
        summary: 'The caller publisher’s requests, newest first',
        description: 'A publisher key: its publication’s. A person’s session: those of every publication they belong to.',
        querystring: PageQuery,
        response: { 200: V1List(V1Request) },
      },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { rows, total } = await requests.listPublisherRequests(deps, await actingPublishers(deps, req), page, perPage);
      return { data: rows.map(presentV1Request), meta: { total, page, per_page: perPage } };
    },
  );

  app.get(
    '/contributors/:id',
    {
      preValidation: [optional],
      schema: {
        tags: ['contributors'],
        summary: 'A contributor profile, by numeric id or username',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 200: V1Profile },
      },
    },
    async (req) => {
      const { account, topics, work, interests } = await contributors.getProfile(deps, req.params.id);
      return {
        id: String(account.id),
        username: account.username,
        name: account.name,
        summary: account.summary,
        level: account.level,
        contribution_score: account.contribution_score,
        trust_score: account.trust_score,
        topics: topics.map((t) => ({ topic: t.topic, authority: t.authority })),
        profile_url: profileUrl(site, account.username),
        scores_url: scoresUrl(site, account.username),
        contributions: work.map((w) => ({
          id: contributionRef(w.id),
          role: w.role,
          url: w.page_url,
          title: w.page_title,
          publisher: w.publisher_slug,
          accepted: w.accepted_at.slice(0, 10),
          ...(w.role === 'correction' && w.change_from !== null && w.change_to !== null ? { change: { from: w.change_from, to: w.change_to } } : {}),
          proof_url: proofUrl(site, w.id),
        })),
        interests: interests.map(presentInterest),
      };
    },
  );
  app.get(
    '/contributors/:id/scores',
    {
      preValidation: [optional],
      schema: {
        tags: ['contributors'],
        summary: 'How a contributor’s scores are made, by numeric id or username: every accepted work with its weight and place, the rejected count, each topic’s sum, the formula',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 200: ScoreExplanation },
      },
    },
    async (req) => presentScoreExplanation(site, await contributors.explainProfileScores(deps, req.params.id), 'v1'),
  );
}
