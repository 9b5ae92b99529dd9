// The public directory of publications.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import { optional } from '../../http/auth.js';
import { ApiCursorList, ApiList, CursorQuery, Ok, PageQuery, pagination } from '../../http/schemas.js';
import { profileUrl, recordUrl } from '../urls.js';
import { Level, PageUrl, ServiceUrl } from '../vocabulary.js';

const PublisherSummary = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  domains: Type.Array(Type.String(), { description: 'Verified domains' }),
  pages: Type.Integer({ description: 'Pages on record' }),
  created_at: Type.String({ format: 'date-time' }),
});
const PublisherPage = Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), topic: Type.String(), record_url: ServiceUrl });
const PublisherContributor = Type.Object({
  username: Type.String(),
  name: Type.String(),
  level: Level,
  trust_score: Type.Number(),
  contribution_score: Type.Number(),
  contributions: Type.Integer({ description: 'Accepted contributions on this publication’s pages' }),
  profile_url: ServiceUrl,
});
const PublisherDetail = Type.Intersect([
  PublisherSummary,
  Type.Object({
    recent_pages: Type.Array(PublisherPage, { description: 'The 20 most recently registered pages; all of them at `/publishers/{slug}/records`' }),
    contributors: Type.Array(PublisherContributor, { description: 'The 50 with most accepted work; all of them at `/publishers/{slug}/credits`' }),
  }),
]);
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });

export function publisherRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['publishers'];

  app.get(
    '/publishers',
    {
      preValidation: [optional],
      schema: { tags, summary: 'Publications, by slug', querystring: PageQuery, response: { 200: ApiList(PublisherSummary) } },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await publishers.listPublishers(deps, page, perPage);
      return {
        success: true as const,
        data: items.map((i) => ({
          slug: i.publisher.slug,
          name: i.publisher.name,
          domains: i.domains,
          pages: i.pages,
          created_at: i.publisher.created_at,
        })),
        meta: { total, page, per_page: perPage },
      };
    },
  );

  app.get(
    '/publishers/:slug',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'A publication, its pages on record and its contributors',
        params: SlugParams,
        response: { 200: Ok(PublisherDetail) },
      },
    },
    async (req) => {
      const p = await publishers.getPublisher(deps, req.params.slug);
      return {
        success: true as const,
        data: {
          slug: p.publisher.slug,
          name: p.publisher.name,
          domains: p.domains,
          pages: p.pages,
          created_at: p.publisher.created_at,
          recent_pages: p.recentPages.map(presentPage),
          contributors: p.contributors.map(presentContributor),
        },
      };
    },
  );

  app.get(
    '/publishers/:slug/records',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'A publication’s pages on record, newest first, a page at a time',
        description: 'Go on with `after=meta.next_cursor` until `has_more` is false. Pages registered meanwhile come before the cursor, so none is skipped or shown twice.',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: ApiCursorList(PublisherPage) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const { items, hasMore, nextCursor } = await publishers.publisherPages(deps, req.params.slug, req.query.after, limit);
      return { success: true as const, data: items.map(presentPage), meta: { limit, has_more: hasMore, next_cursor: nextCursor } };
    },
  );

  app.get(
    '/publishers/:slug/credits',
    {
      preValidation: [optional],
      schema: {
        tags,
        summary: 'The people with accepted work on a publication’s pages, most first, a page at a time',
        description: 'Go on with `after=meta.next_cursor` until `has_more` is false. Ordered by accepted contributions, then username.',
        params: SlugParams,
        querystring: CursorQuery,
        response: { 200: ApiCursorList(PublisherContributor) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const { items, hasMore, nextCursor } = await publishers.publisherContributors(deps, req.params.slug, req.query.after, limit);
      return { success: true as const, data: items.map(presentContributor), meta: { limit, has_more: hasMore, next_cursor: nextCursor } };
    },
  );

  function presentPage(page: { id: number; url: string; title: string; topic: string }) {
    return { id: page.id, url: page.url, title: page.title, topic: page.topic, record_url: recordUrl(deps.config.siteUrl, page.id) };
  }
  function presentContributor(c: Awaited<ReturnType<typeof publishers.publisherContributors>>['items'][number]) {
    return {
      username: c.username,
      name: c.name,
      level: c.level,
      trust_score: c.trust_score,
      contribution_score: c.contribution_score,
      contributions: Number(c.contributions),
      profile_url: profileUrl(deps.config.siteUrl, c.username),
    };
  }
}
