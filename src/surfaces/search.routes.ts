// Search over the public record, `GET /v1/search` and `GET /api/v1/search`: one route, mounted by each surface with
// its envelope (`searchRoutes(app, deps, surface)`), and the presenter both share (and the web search page's words).
// Pages by title and URL, people by name and username, publications by name and slug, panel statements by question
// and topic, ranked together; only what is public (domain/search/).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../domain/deps.js';
import { MAX_SEARCH_PAGE, SEARCH_KINDS, type SearchItem, search } from '../domain/search/search.service.js';
import { optional } from '../http/auth.js';
import { ApiList, StringEnum, V1List } from '../http/schemas.js';
import { profileUrl, recordUrl } from './urls.js';
import { ServiceUrl } from './vocabulary.js';

export const SearchKind = StringEnum(SEARCH_KINDS, { description: 'What a result is: a page on record, a contributor, a publisher, or an expert-panel statement' });

export const SearchResultItem = Type.Object({
  type: SearchKind,
  id: Type.String({ description: 'Its id on the APIs: the page’s number, the contributor’s username, the publisher’s slug, the panel statement’s id' }),
  title: Type.String({ description: 'The page’s title (its URL when it has none), the person’s name, the publisher’s name, the panel’s question' }),
  detail: Type.String({ description: 'The page’s URL, `@username`, the publisher’s slug, or the panel’s topic' }),
  url: { ...ServiceUrl, description: 'Where people read it on Credence: the page’s record, the profile, the publisher’s page, the statement' },
});

/** A result as both APIs and the web page show it: its kind, its id, its title and detail, its page on Credence. */
export function presentSearchItem(siteUrl: string, i: SearchItem) {
  switch (i.kind) {
    case 'page':
      return { type: i.kind, id: String(i.id), title: i.title || i.url, detail: i.url, url: recordUrl(siteUrl, i.id) };
    case 'contributor':
      return { type: i.kind, id: i.username, title: i.name || i.username, detail: `@${i.username}`, url: profileUrl(siteUrl, i.username) };
    case 'publisher':
      return { type: i.kind, id: i.slug, title: i.name, detail: i.slug, url: `${siteUrl}/publishers/${encodeURIComponent(i.slug)}` };
    case 'panel':
      return { type: i.kind, id: i.slug, title: i.question, detail: i.topic, url: `${siteUrl}/panels/${encodeURIComponent(i.slug)}` };
  }
}

const SearchQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Words to find, each matched as the start of a word (`meas` finds “measles”); all must match. A URL finds its page by its words.' }),
  type: Type.Optional(SearchKind),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_PAGE, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
});

export function searchRoutes(fastify: FastifyInstance, deps: Deps, surface: 'v1' | 'api') {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const site = deps.config.siteUrl;
  app.get(
    '/search',
    {
      preValidation: [optional],
      schema: {
        tags: ['search'],
        summary: 'Search the public record: pages by title and URL, contributors by name and username, publishers, and expert-panel statements, best match first',
        description:
          'Full-text, ranked: a word in a title weighs more than one in a URL, username or slug. Only public things are found: no e-mail is searched, and people who have not confirmed their address or who left are not found. At most 50 pages of results; narrow the query for more.',
        querystring: SearchQuery,
        response: { 200: surface === 'api' ? ApiList(SearchResultItem) : V1List(SearchResultItem) },
      },
    },
    async (req) => {
      const page = req.query.page ?? 1;
      const perPage = req.query.per_page ?? 20;
      const r = await search(deps, req.query.q, { kinds: req.query.type ? [req.query.type] : undefined, page, perPage });
      const body = { data: r.items.map((i) => presentSearchItem(site, i)), meta: { total: r.total, page, per_page: perPage } };
      return surface === 'api' ? { success: true as const, ...body } : body;
    },
  );
}
