// Leaving for good: export everything the service holds about the signed-in account, and delete it.
// Session only, and deleting asks for the password again: a key, or a session left open on someone's computer, is
// not enough to erase a person.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { ACCOUNT_MAIL, LOCALES, NOTICE_KINDS } from '../../domain/mail/mail.kinds.js';
import { INTEREST_KINDS, INTEREST_SUBJECTS } from '../../domain/interests/interest.service.js';
import { eraseOwnAccount } from '../../domain/privacy/erasure.service.js';
import { EXPORT_FORMAT, exportAccount } from '../../domain/privacy/export.service.js';
import { WEBHOOK_FORMATS } from '../../domain/webhooks/events.js';
import { sessionOf, sessionOnly } from '../../http/auth.js';
import { Nullable, Ok, StringEnum } from '../../http/schemas.js';
import { AuthorLinkState, ClaimPreference, ClaimState, EventType, Level, MemberRole, NoticeKind, PageUrl, Provenance, RequestStatus, SubmissionStatus, WebhookUrl, WorkRole } from '../vocabulary.js';
import { PASSWORD_MAX } from '../../domain/accounts/rules.js';

const Time = Type.String({ format: 'date-time' });
const OptTime = Nullable(Time);

/** docs/privacy.md describes every field. */
export const AccountExport = Type.Object({
  format: Type.Literal(EXPORT_FORMAT),
  exported_at: Time,
  account: Type.Object({
    id: Type.Integer(),
    username: Type.String(),
    name: Type.String(),
    email: Type.String(),
    email_confirmed_at: OptTime,
    locale: StringEnum(LOCALES, { description: 'The language of the mail sent to it' }),
    summary: Type.String(),
    topics: Type.Array(Type.String()),
    level: Level,
    trust_score: Type.Number(),
    contribution_score: Type.Number(),
    accepted_count: Type.Integer(),
    rejected_count: Type.Integer(),
    is_admin: Type.Boolean(),
    created_at: Time,
    updated_at: Time,
  }),
  topic_scores: Type.Array(Type.Object({ topic: Type.String(), weight: Type.Number(), accepted: Type.Integer(), authority: Type.Number() })),
  memberships: Type.Array(Type.Object({ publisher: Type.String(), publisher_name: Type.String(), role: MemberRole, since: Time })),
  membership_history: Type.Array(Type.Object({ publisher: Type.String(), publisher_name: Type.String(), since: Time }), {
    description: 'Every publication the account ever joined, present ones included: what links publications into one source of reputation',
  }),
  invitations: Type.Array(Type.Object({ publisher: Type.String(), role: MemberRole, invited_by: Type.String(), created_at: Time })),
  sessions: Type.Array(Type.Object({ created_at: Time, expires_at: Time, ended_at: OptTime, device: Nullable(Type.String()) }), { description: 'Sign-in history: every session the service still holds, with the browser and system each was opened from' }),
  api_keys: Type.Array(
    Type.Object({
      name: Type.String(),
      prefix: Type.String(),
      last4: Type.String(),
      publisher: Nullable(Type.String()),
      created_at: Time,
      expires_at: OptTime,
      revoked_at: OptTime,
      last_used_at: OptTime,
    }),
  ),
  webhooks: Type.Array(
    Type.Object({
      id: Type.Integer(),
      url: WebhookUrl,
      format: StringEnum(WEBHOOK_FORMATS, { description: 'Which surface’s payloads it receives (`contributor`: your own webhook)' }),
      publisher: { ...Nullable(Type.String()), description: 'The publication whose events it receives; null for your own webhook' },
      events: Type.Array(EventType),
      enabled: Type.Boolean(),
      created_at: Time,
      disabled_at: OptTime,
    }),
  ),
  submissions: Type.Array(
    Type.Object({
      id: Type.Integer(),
      kind: WorkRole,
      status: SubmissionStatus,
      page_url: PageUrl,
      summary: Type.String(),
      before: Nullable(Type.String()),
      after: Nullable(Type.String()),
      reason: Type.String(),
      sources: Type.Array(Type.String()),
      created_at: Time,
      decided_at: OptTime,
      decision_note: Nullable(Type.String()),
    }),
  ),
  contributions: Type.Array(
    Type.Object({
      id: Type.Integer(),
      role: WorkRole,
      page_url: PageUrl,
      summary: Type.String(),
      accepted_at: Time,
      provenance: Provenance,
      log_index: Nullable(Type.Integer()),
    }),
  ),
  withdrawn_contributions: Type.Array(Type.Object({ id: Type.Integer(), role: WorkRole, page_url: PageUrl, accepted_at: Time, withdrawn_at: Time })),
  author_claims: Type.Array(
    Type.Object({ id: Type.Integer(), page_url: PageUrl, publisher: Type.String(), state: ClaimState, created_at: Time, decided_at: OptTime }),
  ),
  claim_preferences: Type.Array(Type.Object({ publisher: Type.String(), preference: ClaimPreference, created_at: Time })),
  author_links: Type.Array(
    Type.Object({ id: Type.Integer(), publisher: Type.String(), site: Type.String(), user_id: Type.String(), display_name: Type.String(), state: AuthorLinkState, created_at: Time, decided_at: OptTime }),
    { description: 'Publications’ asks to name the person as the author of a user of their site, and the person’s answers' },
  ),
  requests_taken: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String(), status: RequestStatus, taken_at: OptTime })),
  declared_interests: Type.Array(
    Type.Object({
      subject: StringEnum(INTEREST_SUBJECTS),
      name: Type.String(),
      kind: StringEnum(INTEREST_KINDS),
      note: Type.String(),
      declared_at: Time,
      ended_at: OptTime,
    }),
    { description: 'Interests the account declared, ended ones included' },
  ),
  notices_off: Type.Array(Type.Object({ kind: NoticeKind, since: Time }), { description: 'Kinds of notice mail the account turned off' }),
  mail: Type.Array(
    Type.Object({
      kind: StringEnum([...ACCOUNT_MAIL, ...NOTICE_KINDS], { description: 'What the message was: account mail, or a notice kind' }),
      status: StringEnum(['pending', 'sent', 'failed'] as const),
      created_at: Time,
      sent_at: OptTime,
    }),
    { description: 'Mail the service holds for the account (sent mail is kept 30 days, without its links)' },
  ),
  log_openings: Type.Array(
    Type.Object({ log_index: Type.Integer(), pointer: Type.String() }, { description: 'A transparency-log entry that names the account: its opening is deleted when the account is' }),
  ),
});

const EraseBody = Type.Object(
  { password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX, description: 'The account’s password, again' }) },
  { additionalProperties: false },
);

const Erased = Type.Object({
  erased_at: Time,
  kept_work: Type.Integer({ description: 'Accepted work that stays in the pages’ history, naming “a former contributor”' }),
  withdrawn_submissions: Type.Integer(),
  released_requests: Type.Integer(),
  deleted_webhooks: Type.Integer(),
  forgotten_openings: Type.Integer({ description: 'Transparency-log entries about the account whose openings were deleted; the entries and every proof stay' }),
});

export function privacyRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['account'];

  app.get(
    '/account/export',
    {
      preValidation: [sessionOnly],
      schema: { tags, summary: 'Everything the service holds about the signed-in account, as one JSON document (docs/privacy.md)', response: { 200: Ok(AccountExport) } },
    },
    async (req, reply) => {
      const data = await exportAccount(deps, sessionOf(req).accountId);
      void reply.header('content-disposition', `attachment; filename="credence-${data.account.username}.json"`);
      return { success: true as const, data };
    },
  );

  app.delete(
    '/account',
    {
      preValidation: [sessionOnly],
      schema: {
        tags,
        summary: 'Delete the signed-in account for good (the password again)',
        description:
          'Erases the account: its e-mail, name, username (never given to anyone else), summary and topics; its sessions, keys and webhooks; pending submissions are withdrawn and taken requests released; the openings of every transparency-log entry about it are deleted. Accepted work stays in the pages’ history, naming “a former contributor”. The only owner of a publication must hand it over first (409).',
        body: EraseBody,
        response: { 200: Ok(Erased) },
      },
    },
    async (req) => {
      const r = await eraseOwnAccount(deps, sessionOf(req).accountId, req.body.password, req.ip);
      return {
        success: true as const,
        data: {
          erased_at: r.erased_at,
          kept_work: r.kept_work,
          withdrawn_submissions: r.withdrawn_submissions,
          released_requests: r.released_requests,
          deleted_webhooks: r.deleted_webhooks,
          forgotten_openings: r.forgotten_openings,
        },
      };
    },
  );
}
