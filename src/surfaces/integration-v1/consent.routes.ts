// Consent on /api/v1: the person named answers a publication's claims, sets a standing answer for a
// publication, and takes their name back from any public contribution; the publisher reads its claims' states.
// The person acts with their session or a contributor key; a publisher key acts for its publication only.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as consent from '../../domain/consent/consent.service.js';
import type { Deps } from '../../domain/deps.js';
import { accountOf, actingPublisher, contributorCaller, publisherCaller } from '../../http/auth.js';
import { IdParam, Ok } from '../../http/schemas.js';
import { ClaimPreference, ClaimState, PageUrl } from '../vocabulary.js';

const tags = ['consent'];

const Claim = Type.Object({
  id: Type.Integer(),
  state: ClaimState,
  page: Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String() }),
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  created_at: Type.String({ format: 'date-time' }),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const PublisherClaim = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  state: ClaimState,
  page: Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String() }),
  created_at: Type.String({ format: 'date-time' }),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const Preference = Type.Object({
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  preference: Type.Union([ClaimPreference, Type.Null()], { description: 'null: each claim is asked' }),
});

const SlugParam = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
const StateQuery = Type.Object({ state: Type.Optional(ClaimState) });
const PublisherClaimsQuery = Type.Object({
  page_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'One page’s claims' })),
  publisher: Type.Optional(Type.String({ maxLength: 100, description: 'Session callers in several publications: which one' })),
});

type ClaimRow = Awaited<ReturnType<typeof consent.listMyClaims>>[number];
const presentClaim = (c: ClaimRow) => ({
  id: c.id,
  state: c.state,
  page: { id: c.page_id, url: c.page_url, title: c.page_title },
  publisher: { slug: c.publisher_slug, name: c.publisher_name },
  created_at: c.created_at,
  decided_at: c.decided_at,
});

export function consentRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/account/claims',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'Publications’ claims naming the caller as an author, newest first (at most 200)',
        description: 'Nothing of a pending claim is public: the person’s name is shown only once they confirm it.',
        querystring: StateQuery,
        response: { 200: Ok(Type.Array(Claim)) },
      },
    },
    async (req) => ({ success: true as const, data: (await consent.listMyClaims(deps, accountOf(req), req.query.state)).map(presentClaim) }),
  );

  for (const [action, summary, run] of [
    ['confirm', 'Confirm a claim: the authorship is published (record, embed, profile, scores, the feed and the log)', consent.confirmClaim],
    ['decline', 'Decline a claim: nothing is published, and the publication cannot name the caller on that page again', consent.declineClaim],
  ] as const) {
    app.post(
      `/account/claims/:id/${action}`,
      { preValidation: [contributorCaller], schema: { tags, summary, params: IdParam, response: { 200: Ok(Claim) } } },
      async (req) => ({ success: true as const, data: presentClaim((await run(deps, accountOf(req), req.params.id))!) }),
    );
  }

  app.get(
    '/account/claim-preferences',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'The caller’s standing answers to publications’ claims', response: { 200: Ok(Type.Array(Preference)) } },
    },
    async (req) => ({
      success: true as const,
      data: (await consent.listMyPreferences(deps, accountOf(req))).map((p) => ({ publisher: { slug: p.slug, name: p.name }, preference: p.preference })),
    }),
  );

  app.put(
    '/account/claim-preferences/:slug',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'Let a publication’s claims publish at once (`permit`, members only), or refuse all its claims (`refuse`)',
        params: SlugParam,
        body: Type.Object({ preference: ClaimPreference }, { additionalProperties: false }),
        response: { 200: Ok(Preference) },
      },
    },
    async (req) => ({ success: true as const, data: await consent.setClaimPreference(deps, accountOf(req), req.params.slug, req.body.preference) }),
  );

  app.delete(
    '/account/claim-preferences/:slug',
    {
      preValidation: [contributorCaller],
      schema: { tags, summary: 'Go back to being asked about each claim', params: SlugParam, response: { 200: Ok(Preference) } },
    },
    async (req) => ({ success: true as const, data: await consent.setClaimPreference(deps, accountOf(req), req.params.slug, null) }),
  );

  app.post(
    '/account/contributions/:id/withdraw',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'Take one’s name back from a public contribution of one’s own (authorship or accepted work)',
        description:
          'It leaves the record, the embed, the profile and the caller’s scores at once; the change feed and the transparency log get a `contribution.withdrawn` entry, and the publication’s webhooks (both surfaces) a `contribution.withdrawn` event. No reason is asked.',
        params: IdParam,
        response: { 200: Ok(Type.Object({ id: Type.Integer(), withdrawn_at: Type.String({ format: 'date-time' }) })) },
      },
    },
    async (req) => ({ success: true as const, data: await consent.withdrawContribution(deps, accountOf(req), req.params.id) }),
  );

  app.get(
    '/publisher-auth/claims',
    {
      preValidation: [publisherCaller],
      schema: {
        tags,
        summary: 'The publication’s author claims and their states (pending until the person answers), newest first',
        querystring: PublisherClaimsQuery,
        response: { 200: Ok(Type.Array(PublisherClaim)) },
        // `publisher` names no publication of the caller's.
        errors: ['404'],
      },
    },
    async (req) => {
      const publisherId = await actingPublisher(deps, req, req.query.publisher);
      const rows = await consent.listPublisherClaims(deps, publisherId, { pageId: req.query.page_id });
      return {
        success: true as const,
        data: rows.map((c) => ({
          id: c.id,
          username: c.username,
          state: c.state,
          page: { id: c.page_id, url: c.page_url, title: c.page_title },
          created_at: c.created_at,
          decided_at: c.decided_at,
        })),
      };
    },
  );
}
