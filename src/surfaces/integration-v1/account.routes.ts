// The signed-in account: profile, publications, members, domains and API keys. Session only (SPEC §5, seed §4
// rule 6): a key cannot manage the account that owns it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as accounts from '../../domain/accounts/account.service.js';
import { SLUG_PATTERN, USERNAME_PATTERN } from '../../domain/accounts/rules.js';
import * as apiKeys from '../../domain/api-keys/api-key.service.js';
import type { Deps } from '../../domain/deps.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import { sessionOf, sessionOnly } from '../../http/auth.js';
import { ApiList, Batch, IdParam, Nullable, Ok, PageQuery, StringEnum, pagination } from '../../http/schemas.js';
import { itemValidator } from '../../http/validation.js';
import { BatchWithCreated, createEach } from './batch.presenter.js';
import { AccountData, ApiKeyData, DomainData, presentAccount, presentApiKey, presentDomain } from './account.presenter.js';
import { MemberRole } from '../vocabulary.js';
import { link } from '../docs/openapi.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

const ApiKeyCreated = Type.Intersect([ApiKeyData, Type.Object({ key: Type.String({ description: 'The secret, shown once' }) })]);

export const ProfileBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: NON_BLANK_PATTERN })),
    summary: Type.Optional(Type.String({ maxLength: 500 })),
    topics: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50, pattern: NON_BLANK_PATTERN }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);
export const PublisherBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, pattern: NON_BLANK_PATTERN }), slug: Type.String({ pattern: SLUG_PATTERN }) },
  { additionalProperties: false },
);
const SlugParam = Type.Object({ slug: Type.String({ maxLength: 100 }) });
const DomainParam = Type.Object({ slug: Type.String({ maxLength: 100 }), domain: Type.String({ maxLength: 253 }) });
export const MemberBody = Type.Object(
  { username: Type.String({ pattern: USERNAME_PATTERN }), role: MemberRole },
  { additionalProperties: false },
);
const Role = MemberRole;
const Member = Type.Object({ username: Type.String(), name: Type.String(), role: Role });
const MemberChange = Type.Object({
  username: Type.String(),
  name: Type.String(),
  role: Role,
  status: StringEnum(['member', 'invited'] as const, { description: '`member` (the role of a member changed) or `invited` (an invitation waits for their answer)' }),
});
const Invitation = Type.Object({
  id: Type.Integer(),
  publisher: Type.Object({ slug: Type.String(), name: Type.String() }),
  username: Type.String({ description: 'Who is invited' }),
  role: Role,
  invited_by: Type.String({ description: 'Username of the owner who invited' }),
  created_at: Type.String({ format: 'date-time' }),
});
type InvitationRow = Awaited<ReturnType<typeof publishers.myInvitations>>[number];
const presentInvitation = (i: InvitationRow) => ({
  id: i.id,
  publisher: { slug: i.slug, name: i.name },
  username: i.username,
  role: i.role,
  invited_by: i.invited_by,
  created_at: i.created_at,
});
const MemberParam = Type.Object({ slug: Type.String({ maxLength: 100 }), username: Type.String({ maxLength: 100 }) });
const SlugIdParam = Type.Object({ slug: Type.String({ maxLength: 100 }), id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
export const TransferBody = Type.Object({ username: Type.String({ pattern: USERNAME_PATTERN }) }, { additionalProperties: false });
export const ApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: NON_BLANK_PATTERN }),
    expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    publisher: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 100,
          description:
            'Slug of a publication the key acts for. Omitted: the only publication of the account, if it has exactly one. null: a contributor key.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
const validateApiKeyItem = itemValidator<Type.Static<typeof ApiKeyBody>>(ApiKeyBody);

export function accountRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['account'];

  app.get(
    '/account',
    { preValidation: [sessionOnly], schema: { tags, summary: 'The signed-in account', response: { 200: Ok(AccountData) } } },
    async (req) => {
      const { account, memberships } = await accounts.getOwnAccount(deps, sessionOf(req).accountId);
      return { success: true as const, data: presentAccount(account, memberships) };
    },
  );

  app.patch(
    '/account/profile',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Change the public profile', body: ProfileBody, response: { 200: Ok(AccountData) } },
    },
    async (req) => {
      const { account, memberships } = await accounts.updateOwnProfile(deps, sessionOf(req).accountId, req.body);
      return { success: true as const, data: presentAccount(account, memberships) };
    },
  );

  const PublisherData = Type.Object({ slug: Type.String(), name: Type.String(), role: MemberRole, created_at: Type.String({ format: 'date-time' }) });
  app.post(
    '/account/publishers',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Create a publication, with the caller as owner',
        body: PublisherBody,
        response: { 201: Ok(PublisherData) },
        links: {
          201: {
            publisher: link('getPublishersBySlug', 'The publication’s public page', { slug: '$response.body#/data/slug' }),
            domains: link('getAccountPublishersBySlugDomains', 'Its domains (claim one next)', { slug: '$response.body#/data/slug' }),
          },
        },
      },
    },
    async (req, reply) => {
      const p = await publishers.createPublisher(deps, sessionOf(req).accountId, req.body);
      return reply.status(201).send({ success: true as const, data: { slug: p.slug, name: p.name, role: p.role, created_at: p.created_at } });
    },
  );

  app.get(
    '/account/publishers/:slug/members',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Members of a publication', params: SlugParam, response: { 200: Ok(Type.Array(Member)) } },
    },
    async (req) => {
      const members = await publishers.listMembers(deps, sessionOf(req).accountId, req.params.slug);
      return { success: true as const, data: members.map((m) => ({ username: m.username, name: m.name, role: m.role })) };
    },
  );

  app.post(
    '/account/publishers/:slug/members',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Invite someone, or change a member’s role (owners only)',
        description:
          'A person who is not a member yet gets an invitation (202), which they accept or decline under /account/publisher-invitations; nothing changes for them until then. For a member, the role changes (200); the last owner cannot be demoted (409).',
        params: SlugParam,
        body: MemberBody,
        response: { 200: Ok(MemberChange), 202: Ok(MemberChange) },
      },
    },
    async (req, reply) => {
      const r = await publishers.addMember(deps, sessionOf(req).accountId, req.params.slug, req.body);
      return reply.status(r.status === 'invited' ? 202 : 200).send({ success: true as const, data: { ...r.member, status: r.status } });
    },
  );

  app.delete(
    '/account/publishers/:slug/members/:username',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Remove a member (owners), or leave (any member, naming themselves)',
        description:
          'The last owner cannot leave or be removed (409). The member’s publisher keys for the publication are revoked, and their webhooks of it pass to an owner.',
        params: MemberParam,
        response: { 200: Ok(Type.Object({ username: Type.String(), removed: Type.Boolean() })) },
      },
    },
    async (req) => {
      const r = await publishers.removeMember(deps, sessionOf(req).accountId, req.params.slug, req.params.username);
      return { success: true as const, data: { username: r.username, removed: true } };
    },
  );

  app.post(
    '/account/publishers/:slug/transfer',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Transfer ownership to another member; the caller stays as an editor (owners only)',
        params: SlugParam,
        body: TransferBody,
        response: { 200: Ok(Type.Array(Member)) },
      },
    },
    async (req) => {
      const members = await publishers.transferOwnership(deps, sessionOf(req).accountId, req.params.slug, req.body.username);
      return { success: true as const, data: members.map((m) => ({ username: m.username, name: m.name, role: m.role })) };
    },
  );

  app.get(
    '/account/publishers/:slug/invitations',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Invitations of a publication waiting for an answer', params: SlugParam, response: { 200: Ok(Type.Array(Invitation)) } },
    },
    async (req) => ({
      success: true as const,
      data: (await publishers.listInvitations(deps, sessionOf(req).accountId, req.params.slug)).map(presentInvitation),
    }),
  );

  app.delete(
    '/account/publishers/:slug/invitations/:username',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Withdraw an invitation (owners only)',
        params: MemberParam,
        response: { 200: Ok(Type.Object({ username: Type.String(), withdrawn: Type.Boolean() })) },
      },
    },
    async (req) => {
      await publishers.cancelInvitation(deps, sessionOf(req).accountId, req.params.slug, req.params.username);
      return { success: true as const, data: { username: req.params.username.toLowerCase(), withdrawn: true } };
    },
  );

  app.get(
    '/account/publisher-invitations',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Invitations to publications waiting for the caller’s answer', response: { 200: Ok(Type.Array(Invitation)) } },
    },
    async (req) => ({ success: true as const, data: (await publishers.myInvitations(deps, sessionOf(req).accountId)).map(presentInvitation) }),
  );

  app.post(
    '/account/publisher-invitations/:id/accept',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Accept an invitation: the caller becomes a member',
        params: IdParam,
        response: { 200: Ok(Type.Object({ slug: Type.String(), name: Type.String(), role: Role })) },
      },
    },
    async (req) => ({ success: true as const, data: await publishers.acceptInvitation(deps, sessionOf(req).accountId, req.params.id) }),
  );

  app.post(
    '/account/publisher-invitations/:id/decline',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Decline an invitation', params: IdParam, response: { 200: Ok(Type.Object({ declined: Type.Boolean() })) } },
    },
    async (req) => {
      await publishers.declineInvitation(deps, sessionOf(req).accountId, req.params.id);
      return { success: true as const, data: { declined: true } };
    },
  );

  app.get(
    '/account/publishers/:slug/publisher-keys',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Every key that acts for the publication, whoever made it (owners only)',
        params: SlugParam,
        response: { 200: Ok(Type.Array(Type.Intersect([ApiKeyData, Type.Object({ made_by: Type.String({ description: 'Username of the member who made the key' }) })]))) },
      },
    },
    async (req) => {
      const keys = await apiKeys.listPublicationKeys(deps, sessionOf(req).accountId, req.params.slug);
      const now = deps.clock.now();
      return { success: true as const, data: keys.map((k) => ({ ...presentApiKey(k, now), made_by: k.made_by })) };
    },
  );

  app.delete(
    '/account/publishers/:slug/publisher-keys/:id',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Revoke any key of the publication (owners only)', params: SlugIdParam, response: { 200: Ok(ApiKeyData) } },
    },
    async (req) => {
      const key = await apiKeys.revokePublicationKey(deps, sessionOf(req).accountId, req.params.slug, req.params.id);
      return { success: true as const, data: presentApiKey(key, deps.clock.now()) };
    },
  );

  app.get(
    '/account/publishers/:slug/domains',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Domains claimed by a publication', params: SlugParam, response: { 200: Ok(Type.Array(DomainData)) } },
    },
    async (req) => {
      const list = await publishers.listDomains(deps, sessionOf(req).accountId, req.params.slug);
      return { success: true as const, data: list.map(presentDomain) };
    },
  );

  const claimed = {
    verify: link('postAccountPublishersBySlugDomainsByDomainVerify', 'Check the DNS record or the well-known file', {
      slug: '$request.path.slug',
      domain: '$response.body#/data/domain',
    }),
  };
  app.post(
    '/account/publishers/:slug/domains',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Claim a domain; returns the token to publish in DNS or in a well-known file',
        params: SlugParam,
        body: Type.Object({ domain: Type.String({ minLength: 1, maxLength: 253 }) }, { additionalProperties: false }),
        response: { 200: Ok(DomainData), 201: Ok(DomainData) },
        links: { 200: claimed, 201: claimed },
      },
    },
    async (req, reply) => {
      const r = await publishers.claimDomain(deps, sessionOf(req).accountId, req.params.slug, req.body.domain);
      return reply.status(r.created ? 201 : 200).send({ success: true as const, data: presentDomain(r.domain) });
    },
  );

  app.post(
    '/account/publishers/:slug/domains/:domain/verify',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Check the DNS TXT record and the well-known file now',
        params: DomainParam,
        response: { 200: Ok(DomainData) },
      },
    },
    async (req) => {
      const d = await publishers.verifyDomain(deps, sessionOf(req).accountId, req.params.slug, req.params.domain);
      return { success: true as const, data: presentDomain(d) };
    },
  );

  app.get(
    '/account/api-keys',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'The caller’s API keys, newest first (never their secrets)', querystring: PageQuery, response: { 200: ApiList(ApiKeyData) } },
    },
    async (req) => {
      const { page, perPage } = pagination(req.query);
      const { total, items } = await apiKeys.pageApiKeys(deps, sessionOf(req).accountId, page, perPage);
      const now = deps.clock.now();
      return { success: true as const, data: items.map((k) => presentApiKey(k, now)), meta: { total, page, per_page: perPage } };
    },
  );

  app.post(
    '/account/api-keys',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Create an API key (one object, or an array of at most 500); the secret is in this response only',
        body: Batch(ApiKeyBody),
        response: { 200: Ok(BatchWithCreated('api_key', ApiKeyCreated)), 201: Ok(ApiKeyCreated) },
        links: {
          201: {
            keys: link('getAccountApiKeys', 'The caller’s keys, this one among them (never its secret again)'),
            revoke: link('deleteAccountApiKeysById', 'Revoke it', { id: '$response.body#/data/id' }),
          },
        },
      },
    },
    async (req, reply) =>
      createEach(reply, req.body, validateApiKeyItem, 'api_key', async (item) => {
        const { key, secret } = await apiKeys.createApiKey(deps, sessionOf(req).accountId, item);
        return { ...presentApiKey(key, deps.clock.now()), key: secret };
      }),
  );

  app.delete(
    '/account/api-keys/:id',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Revoke an API key, effective immediately', params: IdParam, response: { 200: Ok(ApiKeyData) } },
    },
    async (req) => {
      const key = await apiKeys.revokeApiKey(deps, sessionOf(req).accountId, req.params.id);
      return { success: true as const, data: presentApiKey(key, deps.clock.now()) };
    },
  );
}
