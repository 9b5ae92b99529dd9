// Sessions (SPEC §5, §16) and whoami.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import * as accounts from '../../domain/accounts/account.service.js';
import { EMAIL_PATTERN, PASSWORD_MAX, PASSWORD_MIN, USERNAME_PATTERN } from '../../domain/accounts/rules.js';
import type { Deps } from '../../domain/deps.js';
import { optional, sessionOf, sessionOnly, signedIn } from '../../http/auth.js';
import { IdParam, Nullable, Ok } from '../../http/schemas.js';
import { untilClientGoes } from '../../http/client-gone.js';
import { Credential, NoticeKind } from '../vocabulary.js';
import { localeOf, NOTICE_KINDS } from '../../domain/mail/mail.kinds.js';
import * as mail from '../../domain/mail/mail.service.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

export const SignupBody = Type.Object(
  {
    email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 254 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: NON_BLANK_PATTERN }),
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
const SessionEntry = Type.Object({
  id: Type.Integer(),
  device: Type.String({ description: 'The browser and system it was opened from, such as “Firefox on Linux”' }),
  created_at: Type.String({ format: 'date-time', description: 'When it was signed in' }),
  expires_at: Type.String({ format: 'date-time' }),
  current: Type.Boolean({ description: 'The session making this request' }),
});
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
export const SIGNUP_MESSAGE =
  'Check your inbox: we sent a mail to this address (a link to confirm it, or a note if it already has an account). You can sign in now; until the address is confirmed you cannot be named, submit work or make keys.';
export const RESET_MESSAGE = 'If an account has this address, a link to choose a new password is on its way; it works once, for one hour.';
export const EMAIL_CHANGE_MESSAGE = 'A link to confirm the new address is on its way to it; your address changes when it is used.';
const TokenBody = Type.Object({ token: Type.String({ minLength: 10, maxLength: 200 }) }, { additionalProperties: false });
export const ResetRequestBody = Type.Object({ email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 254 }) }, { additionalProperties: false });
export const ResetCompleteBody = Type.Object(
  {
    token: Type.String({ minLength: 10, maxLength: 200 }),
    password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
    revoke_api_keys: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Also revoke every API key of the account: on by default, since a reset is how a stolen account is taken back; false keeps integrations working',
      }),
    ),
  },
  { additionalProperties: false },
);
export const EmailChangeBody = Type.Object(
  { new_email: Type.String({ pattern: EMAIL_PATTERN, maxLength: 254 }), current_password: Type.String({ maxLength: PASSWORD_MAX }) },
  { additionalProperties: false },
);
const Message = Type.Object({ message: Type.String() });
const NoticeSettings = Type.Array(Type.Object({ kind: NoticeKind, enabled: Type.Boolean() }));
export const NoticeSettingsBody = Type.Object(
  Object.fromEntries(NOTICE_KINDS.map((k) => [k, Type.Optional(Type.Boolean())])) as Record<(typeof NOTICE_KINDS)[number], ReturnType<typeof Type.Optional<ReturnType<typeof Type.Boolean>>>>,
  { additionalProperties: false, minProperties: 1 },
);
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
        summary: 'Create an account; then sign in',
        description:
          'The answer is the same whether or not the email is registered already (emails are private): 202 and no session. A new address gets a link to confirm it, a registered one a mail saying it has an account already. Sign in next with `POST /auth/login`; until the address is confirmed the account cannot be named, submit work or make API keys. A taken username is a 409 (usernames are public).',
        body: SignupBody,
        response: { 202: Ok(SignupData) },
        errors: ['409'],
      },
    },
    async (req, reply) => {
      const { username } = await accounts.signup(deps, { ...req.body, locale: localeOf(req.headers['accept-language']) });
      return reply.status(202).send({ success: true as const, data: { username, message: SIGNUP_MESSAGE } });
    },
  );

  app.post(
    '/auth/confirm-email',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: {
        tags: ['auth'],
        summary: 'Confirm an email address with the link mailed to it (works once)',
        description: 'The `token` of the link in the confirmation mail. A used, expired or unknown link is a 404.',
        body: TokenBody,
        response: { 200: Ok(Type.Object({ username: Type.String(), address_changed: Type.Boolean() })) },
        errors: ['404'],
      },
    },
    async (req) => {
      const r = await accounts.confirmEmail(deps, req.body.token);
      return { success: true as const, data: { username: r.username, address_changed: r.changed } };
    },
  );

  app.post(
    '/auth/password-reset',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: {
        tags: ['auth'],
        summary: 'Ask for a password-reset link',
        description:
          'The answer is the same whether or not an account has the address: 202. The link is good once, for one hour. Throttled per address (silently: no more mail) and per caller address (429).',
        body: ResetRequestBody,
        response: { 202: Ok(Message) },
        errors: ['429'],
      },
    },
    async (req, reply) => {
      await accounts.requestPasswordReset(deps, req.body, req.ip);
      return reply.status(202).send({ success: true as const, data: { message: RESET_MESSAGE } });
    },
  );

  app.post(
    '/auth/password-reset/complete',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: {
        tags: ['auth'],
        summary: 'Choose a new password with a reset link; every session of the account ends, and its API keys unless `revoke_api_keys` is false',
        body: ResetCompleteBody,
        response: { 200: Ok(Type.Object({ sessions_ended: Type.Integer(), api_keys_revoked: Type.Integer() })) },
        errors: ['404'],
      },
    },
    async (req) => ({ success: true as const, data: await accounts.completePasswordReset(deps, req.body) }),
  );

  app.post(
    '/auth/unsubscribe',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: {
        tags: ['auth'],
        summary: 'Turn one kind of notice off with the token of its unsubscribe link (no sign-in)',
        body: TokenBody,
        response: { 200: Ok(Type.Object({ kind: NoticeKind, enabled: Type.Boolean() })) },
        errors: ['404'],
      },
    },
    async (req) => {
      const r = await mail.unsubscribe(deps, req.body.token);
      return { success: true as const, data: { kind: r.kind, enabled: false } };
    },
  );

  app.post(
    '/account/email',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'Change the email address: the new one gets a confirmation link, the old one is told when it is used',
        body: EmailChangeBody,
        response: { 202: Ok(Message) },
      },
    },
    async (req, reply) => {
      await accounts.requestEmailChange(deps, sessionOf(req).accountId, req.body);
      return reply.status(202).send({ success: true as const, data: { message: EMAIL_CHANGE_MESSAGE } });
    },
  );

  app.post(
    '/account/email/confirmation',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'Send a new confirmation link to the account’s address (when it is not confirmed yet)',
        response: { 202: Ok(Type.Object({ sent: Type.Boolean() })) },
      },
    },
    async (req, reply) => reply.status(202).send({ success: true as const, data: await accounts.resendConfirmation(deps, sessionOf(req).accountId) }),
  );

  // Mail settings are account management: a session only (SPEC §5: a contributor key takes, submits and withdraws
  // work, nothing else), like the address they are sent to.
  app.get(
    '/account/notices',
    {
      preValidation: [sessionOnly],
      schema: { tags: ['account'], summary: 'Which kinds of notice mail the account gets', response: { 200: Ok(NoticeSettings) } },
    },
    async (req) => ({ success: true as const, data: await mail.noticeSettings(deps, sessionOf(req).accountId) }),
  );

  app.patch(
    '/account/notices',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'Turn kinds of notice mail off (false) or on (true); kinds not named stay as they are',
        body: NoticeSettingsBody,
        response: { 200: Ok(NoticeSettings) },
      },
    },
    async (req) => ({ success: true as const, data: await mail.setNoticeSettings(deps, sessionOf(req).accountId, req.body) }),
  );

  app.post(
    '/auth/login',
    {
      config: { body: 'small' },
      preValidation: [optional],
      schema: { tags: ['auth'], summary: 'Start a session', body: LoginBody, response: { 200: Ok(SessionData) } },
    },
    async (req, reply) => ({ success: true as const, data: await accounts.login(deps, req.body, req.ip, req.headers['user-agent'], untilClientGoes(req, reply)) }),
  );

  app.get(
    '/account/sessions',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'The account’s sessions still signed in, newest first, the caller’s own marked `current`',
        description: 'Each names the browser and system it was opened from (`device`), never more of the User-Agent. End one with DELETE /account/sessions/{id}; every one with POST /auth/logout-everywhere.',
        response: { 200: Ok(Type.Array(SessionEntry)) },
      },
    },
    async (req) => {
      const s = sessionOf(req);
      return { success: true as const, data: await accounts.listSessions(deps, s.accountId, s.sessionId) };
    },
  );

  app.delete(
    '/account/sessions/:id',
    {
      preValidation: [sessionOnly],
      schema: {
        tags: ['account'],
        summary: 'Sign one of the account’s sessions out (another account’s, or one already ended, is 404)',
        params: IdParam,
        response: { 200: Ok(Type.Object({ ended: Type.Literal(true) })) },
      },
    },
    async (req) => {
      await accounts.endOwnSession(deps, sessionOf(req).accountId, req.params.id);
      return { success: true as const, data: { ended: true as const } };
    },
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
