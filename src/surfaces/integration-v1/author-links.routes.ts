// Author links on /api/v1: a publication asks to link one of its site's users (a WordPress author) to a Credence
// username, and reads the answers; the person named sees what asks, and confirms, declines or later unlinks. The
// publication acts with its publisher key (or a member's session); the person with their session only, since a
// link is the person's own proof of who they are (docs/decisions/author-links.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import * as links from '../../domain/consent/author-links.js';
import type { Deps } from '../../domain/deps.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { requireMember } from '../../domain/publishers/publisher.service.js';
import { findPublisherBySlug, listMemberships } from '../../domain/publishers/publisher.store.js';
import { publisherCaller, sessionOf, sessionOnly } from '../../http/auth.js';
import { ApiList, IdParam, Ok, PageQuery, pagination } from '../../http/schemas.js';
import { USERNAME_PATTERN } from '../../domain/accounts/rules.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';
import { AuthorLinkState } from '../vocabulary.js';

const tags = ['author links'];

const Site = Type.String({ format: 'uri', maxLength: 2048, description: 'The site’s address (its home page): under one of the publication’s verified domains' });
const UserId = Type.String({ minLength: 1, maxLength: 100, pattern: NON_BLANK_PATTERN, description: 'The site’s own id of its user (WordPress: the user’s ID)' });

const Common = {
  id: Type.Integer(),
  state: AuthorLinkState,
  site: Type.String({ description: 'The site’s origin and path' }),
  user_id: Type.String(),
  display_name: Type.String({ description: 'The name the site shows its user by, as the publication sent it' }),
  created_at: Type.String({ format: 'date-time' }),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the person last answered' }),
};
const PublisherLink = Type.Object({ ...Common, username: Type.String({ description: 'The person asked' }) });
const OwnLink = Type.Object({ ...Common, publisher: Type.Object({ slug: Type.String(), name: Type.String() }) });

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const SlugIdParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }), id: IdParam.properties.id });

type Row = links.AuthorLinkRow;
const common = (l: Row) => ({ id: l.id, state: l.state, site: l.site, user_id: l.user_id, display_name: l.display_name, created_at: l.created_at, decided_at: l.decided_at });
const presentForPublisher = (l: Row) => ({ ...common(l), username: l.username });
const presentForPerson = (l: Row) => ({ ...common(l), publisher: { slug: l.publisher_slug, name: l.publisher_name } });

/**
 * The publication the path names, when the caller acts for it: a publisher key made for it, or a member's session.
 * A key of another publication is 403; a session in no publication is 403, one in others only 404, as on every
 * publisher and member route.
 */
async function publicationOf(deps: Deps, req: FastifyRequest, slug: string): Promise<number> {
  const p = req.principal;
  if (p.kind === 'key') {
    const publisher = await findPublisherBySlug(deps.db, slug.toLowerCase());
    if (!publisher) throw notFound('Publisher');
    if (p.publisherId !== publisher.id) throw forbidden('This key acts for another publication');
    return publisher.id;
  }
  const accountId = sessionOf(req).accountId;
  if ((await listMemberships(deps.db, accountId)).length === 0) throw forbidden('This account is not a member of any publication');
  return (await requireMember(deps, accountId, slug)).publisher.id;
}

export function authorLinkRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/publishers/:slug/author-links',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'Ask a person to confirm that a user of the publication’s site is them (201), or read how an earlier ask stands (200)',
        description:
          'The person is told on their account page, and by mail, which publication asks, for which site and which display name; nothing names them until they confirm. The same site, user and person asked again is answered as it stands and asks nobody: a declined or ended link stays so unless the person changes it. Waiting asks are capped per publication and per person (409 `conflict`, `details: [{field: "limit"}]`); the site must be under a verified domain of the publication (403 `page_not_verified`).',
        params: SlugParams,
        body: Type.Object(
          {
            username: Type.String({ pattern: USERNAME_PATTERN, maxLength: 40, description: 'The Credence username the site’s user gave' }),
            site: Site,
            user_id: UserId,
            display_name: Type.String({ minLength: 1, maxLength: 200, pattern: NON_BLANK_PATTERN }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Ok(PublisherLink), 201: Ok(PublisherLink) },
        errors: ['409'],
      },
    },
    async (req, reply) => {
      const publisherId = await publicationOf(deps, req, req.params.slug);
      const { link, created } = await links.requestLink(deps, publisherId, req.body);
      return reply.code(created ? 201 : 200).send({ success: true as const, data: presentForPublisher(link) });
    },
  );

  app.get(
    '/publishers/:slug/author-links',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'The publication’s author links and their states, newest first',
        params: SlugParams,
        querystring: Type.Intersect([
          PageQuery,
          Type.Object({ site: Type.Optional(Site), user_id: Type.Optional(UserId), state: Type.Optional(AuthorLinkState) }),
        ]),
        response: { 200: ApiList(PublisherLink) },
      },
    },
    async (req) => {
      const publisherId = await publicationOf(deps, req, req.params.slug);
      const { page, perPage } = pagination(req.query);
      const { total, items } = await links.listPublisherLinks(deps, publisherId, req.query, page, perPage);
      return { success: true as const, data: items.map(presentForPublisher), meta: { total, page, per_page: perPage } };
    },
  );

  app.get(
    '/publishers/:slug/author-links/:id',
    {
      preValidation: [publisherCaller],
      schema: { tags, summary: 'One author link of the publication, as it stands', params: SlugIdParams, response: { 200: Ok(PublisherLink) } },
    },
    async (req) => {
      const publisherId = await publicationOf(deps, req, req.params.slug);
      return { success: true as const, data: presentForPublisher(await links.publisherLink(deps, publisherId, req.params.id)) };
    },
  );

  app.get(
    '/account/author-links',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Publications’ asks to name the caller as the author of a user of their site, newest first (at most 200)',
        querystring: Type.Object({ state: Type.Optional(AuthorLinkState) }),
        response: { 200: Ok(Type.Array(OwnLink)) },
      },
    },
    async (req) => ({ success: true as const, data: (await links.listMyLinks(deps, sessionOf(req).accountId, req.query.state)).map(presentForPerson) }),
  );

  for (const [answer, summary] of [
    ['confirm', 'Confirm that the site’s user is the caller: the site may name them as that user’s author (each page still asks, as every claim does). Also changes an earlier decline or unlink'],
    ['decline', 'Decline: the site’s user is not the caller; the publication cannot ask again for that user'],
    ['unlink', 'End a confirmed link: the site stops naming the caller as that user’s author once it reads the answer; the publication cannot ask again for that user'],
  ] as const) {
    app.post(
      `/account/author-links/:id/${answer}`,
      { preValidation: [sessionOnly], schema: { tags, summary, params: IdParam, response: { 200: Ok(OwnLink) }, errors: ['409'] } },
      async (req) => ({ success: true as const, data: presentForPerson(await links.answerLink(deps, sessionOf(req).accountId, req.params.id, answer)) }),
    );
  }
}
