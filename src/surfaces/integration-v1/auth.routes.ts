// Sessions (SPEC §5, §16) and whoami.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as accounts from '../../domain/accounts/account.service.js';
import { EMAIL_PATTERN, PASSWORD_MAX, PASSWORD_MIN, USERNAME_PATTERN } from '../../domain/accounts/rules.js';
import type { Deps } from '../../domain/deps.js';
import { optional, sessionOf, sessionOnly, signedIn } from '../../http/auth.js';
import { Nullable, Ok } from '../../http/schemas.js';
import { Credential } from '../vocabulary.js';

export const SignupBody = Type.Object(
  {
    email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    username: Type.String({
      pattern: USERNAME_PATTERN,
      description: '3-40 lower-case letters, digits and hyphens, with at least one letter',
    }),
  },
  { additionalProperties: false },
);
export const LoginBody = Type.Object(
  { email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: PASSWORD_MAX }) },
  { additionalProperties: false },
);
const SessionData = Type.Object({
  user_id: Type.Integer(),
  username: Type.String(),
  token: Type.String({ description: 'Session token: send as `Authorization: Bearer <token>`' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const SignupData = Type.Object({
  username: Type.String(),
  message: Type.String({ description: 'The same sentence either way' }),
});
export const SIGNUP_MESSAGE = 'If this email address was not registered yet, the account is ready: log in with it. Otherwise nothing has changed.';
const RevokeApiKeys = Type.Boolean({
  default: false,
  description: 'Also revoke every API key of the account (for taking back a stolen account); off by default, so integrations keep working',
});
/** "Log out everywhere" takes no body, or this one. */
const LogoutEverywhereBody = Nullable(Type.Object({ revoke_api_keys: Type.Optional(RevokeApiKeys) }, { additionalProperties: false }));
export const PasswordBody = Type.Object(
  {
    current_password: Type.String({ maxLength: PASSWORD_MAX }),
    new_password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    revoke_api_keys: Type.Optional(RevokeApiKeys),
  },
  { additionalProperties: false },
);
const WhoamiData = Type.Object({
  authenticated: Type.Boolean(),
  user_id: Type.Integer(),
  username: Type.String(),
  key_id: Nullable(Type.Integer()),
  credential: Credential,
  publisher: Nullable(Type.Object({ slug: Type.String(), name: Type.String() })),
});

export function authRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/auth/signup',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: {
        tags: ['auth'],
        summary: 'Create an account; then log in',
        description:
          'The answer is the same whether or not the email is registered already (emails are private): 202 and no session. Log in next with `POST /auth/login`. A taken username is a 409 (usernames are public).',
        body: SignupBody,
        response: { 202: Ok(SignupData) },
        errors: ['409'],
      },
    },
    async (req, reply) => {
      const { username } = await accounts.signup(deps, req.body);
      return reply.status(202).send({ success: true as const, data: { username, message: SIGNUP_MESSAGE } });
    },
  );

  app.post(
    '/auth/login',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: { tags: ['auth'], summary: 'Start a session', body: LoginBody, response: { 200: Ok(SessionData) } },
    },
    async (req) => ({ success: true as const, data: await accounts.login(deps, req.body, req.ip) }),
  );

  app.post(
    '/auth/logout',
    {
      preValidation: [sessionOnly],
      schema: { tags: ['auth'], summary: 'End the current session', response: { 200: Ok(Type.Object({ logged_out: Type.Boolean() })) } },
    },
    async (req) => {
      const s = sessionOf(req);
      await accounts.logout(deps, s.accountId, s.sessionId);
      return { success: true as const, data: { logged_out: true } };
    },
  );

  app.post(
    '/auth/logout-everywhere',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['auth'],
        summary: 'End every session of the account, this one included; with `revoke_api_keys`, revoke its API keys too',
        body: LogoutEverywhereBody,
        response: { 200: Ok(Type.Object({ sessions_ended: Type.Integer(), api_keys_revoked: Type.Integer() })) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await accounts.logoutEverywhere(deps, sessionOf(req).accountId, { revokeApiKeys: req.body?.revoke_api_keys }),
    }),
  );

  app.post(
    '/account/password',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'Change the password; every other session ends (and, with `revoke_api_keys`, every API key)',
        body: PasswordBody,
        response: { 200: Ok(Type.Object({ other_sessions_ended: Type.Integer(), api_keys_revoked: Type.Integer() })) },
      },
    },
    async (req) => {
      const s = sessionOf(req);
      return { success: true as const, data: await accounts.changePassword(deps, s.accountId, s.sessionId, req.body) };
    },
  );

  app.get(
    '/whoami',
    {
      preValidation: [signedIn],
      schema: { tags: ['auth'], summary: 'Who the credential acts as', response: { 200: Ok(WhoamiData) } },
    },
    async (req) => {
      const p = req.principal;
      if (p.kind === 'anonymous') throw new Error('unreachable: guarded');
      const { account, memberships } = await accounts.getOwnAccount(deps, p.accountId);
      const publisherId = p.kind === 'key' ? p.publisherId : null;
      const publisher = memberships.find((m) => m.id === publisherId);
      return {
        success: true as const,
        data: {
          authenticated: true,
          user_id: account.id,
          username: account.username,
          key_id: p.kind === 'key' ? p.keyId : null,
          credential: p.kind === 'session' ? ('session' as const) : p.publisherId === null ? ('contributor_key' as const) : ('publisher_key' as const),
          publisher: publisher ? { slug: publisher.slug, name: publisher.name } : null,
        },
      };
    },
  );
}
