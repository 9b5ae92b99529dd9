// The /v1 webhook payloads (seed §6, SPEC §10): `{event, created, page, ...}` with `contribution`, `request`, or
// for `panel.updated` the panel and its changes. Built from the event's facts, field by field. The schemas are
// the OpenAPI `webhooks` section of the /v1 document.
import Type, { type TSchema } from 'typebox';
import type { PageChangedFacts } from '../../domain/pages/drift.js';
import type { PageNoticeFacts } from '../../domain/pages/notice.service.js';
import type { OutboxEvent } from '../../domain/webhooks/events.js';
import type { AcceptedFacts, AuthorshipFacts, PanelUpdatedFacts, RequestTakenFacts, SubmissionFacts, WithdrawnFacts } from '../../domain/webhooks/facts.js';
import { Nullable, StringEnum } from '../../http/schemas.js';
import type { OpenApiCollector } from '../docs/openapi.js';
import { contributionRef, proofUrl, recordUrl } from '../urls.js';
import { DriftingRole, NoticeType, PageUrl, RequestableKind, RequestStatus, ServiceUrl, Standing, SubmissionStatus } from '../vocabulary.js';

/** A submission as the /v1 webhooks name it: the contribution proposed, `sub_<id>` through its whole life. */
export const submissionRef = (id: number) => `sub_${id}`;

const Base = {
  created: Type.String({ format: 'date-time', description: 'When the event happened' }),
  page: { ...PageUrl, description: 'URL of the page' },
};

const Contribution = {
  id: Type.String({ description: '`sub_<id>`: the same id on `submitted`, `accepted` and `withdrawn` of one piece of work' }),
  type: { ...RequestableKind, description: 'The kind of work' },
  contributor: Type.String({ description: 'Contributor username (profile slug)' }),
  status: { ...SubmissionStatus, description: '`pending`, `accepted` or `withdrawn` (`rejected` work sends no event)' },
  summary: Type.String({ description: 'One line: what the work changes' }),
};

const ContributionEvent = (name: string, extra: Record<string, TSchema> = {}) =>
  Type.Object({
    event: Type.Literal(name),
    ...Base,
    contribution: Type.Object({ ...Contribution, ...extra }),
  });

export const V1_WEBHOOK_PAYLOADS: Record<string, { summary: string; schema: TSchema }> = {
  'contribution.submitted': {
    summary: 'Someone proposes work on one of the publisher’s pages',
    schema: ContributionEvent('contribution.submitted'),
  },
  'contribution.accepted': {
    summary: 'The publisher or a teammate accepts the contribution, or a person named as the page’s author confirms it (`type` `author`, `id` `ctb_<id>`)',
    schema: ContributionEvent('contribution.accepted', {
      id: Type.String({ description: '`sub_<id>` for submitted work (as on `submitted`), `ctb_<id>` for an authorship' }),
      type: Type.Union([RequestableKind, Type.Literal('author')], { description: 'The kind of work; `author` for an authorship' }),
      accepted: Type.String({ format: 'date', description: 'Acceptance date, YYYY-MM-DD' }),
      change: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() }, { description: 'Present on corrections' })),
      record_id: Type.String({ description: '`ctb_<id>`: the public contribution, as page records list it' }),
      proof_url: ServiceUrl,
    }),
  },
  'contribution.withdrawn': {
    summary:
      'The contributor withdraws the contribution: a pending submission (`sub_<id>`), or published work the named person took their name back from (with `record_id`; `id` is `sub_<id>` for submitted work, `ctb_<id>` for an authorship)',
    schema: Type.Object({
      event: Type.Literal('contribution.withdrawn'),
      ...Base,
      contribution: Type.Object({
        ...Contribution,
        id: Type.String({ description: '`sub_<id>` for submitted work (as on `submitted` and `accepted`), `ctb_<id>` for an authorship' }),
        type: Type.Union([RequestableKind, Type.Literal('author')], { description: 'The kind of work; `author` for an authorship' }),
        record_id: Type.Optional(Type.String({ description: 'Published work: `ctb_<id>`, the contribution that left the record' })),
        withdrawn_by: Type.Optional(
          StringEnum(['contributor', 'consent_migration'] as const, {
            description: 'Published work: `contributor` (the named person took their name back) or `consent_migration` (an authorship named before people confirmed their names, off the record until they do)',
          }),
        ),
      }),
    }),
  },
  'request.taken': {
    summary: 'A specialist takes an open request',
    schema: Type.Object({
      event: Type.Literal('request.taken'),
      ...Base,
      request: Type.Object({
        id: Type.String({ description: '`req_<id>`' }),
        type: RequestableKind,
        status: { ...RequestStatus, description: '`taken`' },
        taken_by: Nullable(Type.String({ description: 'Username of the specialist' })),
      }),
    }),
  },
  'page.changed': {
    summary: 'The text of one of the publisher’s pages changed after accepted reviews, fact checks or corrections on it',
    schema: Type.Object({
      event: Type.Literal('page.changed'),
      ...Base,
      changed_at: Type.String({ format: 'date-time' }),
      contributions: Type.Array(
        Type.Object({
          id: Type.String({ description: '`ctb_<id>`, as page records list it' }),
          type: DriftingRole,
          contributor: Type.String({ description: 'Contributor username' }),
          accepted: Type.String({ format: 'date' }),
          correction_missing: Nullable(Type.Boolean({ description: 'Corrections: the corrected text no longer appears (null: unknown)' })),
          proof_url: ServiceUrl,
        }),
        { description: 'Every accepted review, fact check and correction now marked as done on an older version' },
      ),
    }),
  },
  'page.notice': {
    summary: 'The publisher attached a notice to one of its pages (a retraction, an expression of concern, a reinstatement, …)',
    schema: Type.Object({
      event: Type.Literal('page.notice'),
      ...Base,
      notice: Type.Object({
        id: Type.Integer(),
        type: NoticeType,
        date: Type.String({ format: 'date' }),
        reason: Type.String(),
        url: Nullable({ ...PageUrl, description: 'The notice itself, on the publisher’s site' }),
      }),
      standing: { ...Standing, description: 'The page’s standing after this notice' },
      previous_standing: { ...Standing, description: 'Its standing before' },
      record_url: ServiceUrl,
    }),
  },
  'panel.updated': {
    summary: 'A new version of a panel statement on a topic of the publisher’s pages is issued',
    schema: Type.Object({
      event: Type.Literal('panel.updated'),
      created: Base.created,
      page: Type.Null({ description: 'A statement concerns a topic, not one page' }),
      topic: Type.String(),
      panel: Type.Object({ id: Type.String(), version: Type.Integer(), previous_version: Nullable(Type.Integer()) }),
      changes: Type.Record(Type.String(), Type.Object({ from: Type.Unknown(), to: Type.Unknown() }), {
        description: 'Each field that changed: `{from, to}` (`from` is null on version 1)',
      }),
    }),
  },
};

function contribution(f: SubmissionFacts, status: string) {
  return {
    id: submissionRef(f.submission.id),
    type: f.submission.kind,
    contributor: f.contributor.username,
    status,
    summary: f.submission.summary,
  };
}

/** Published work its person took their name back from: `contribution.withdrawn` with its record id. */
function presentWithdrawnWork(f: WithdrawnFacts, created: string) {
  const w = f.withdrawn;
  return {
    event: 'contribution.withdrawn',
    created,
    page: f.page.url,
    contribution: {
      id: w.submission_id !== null ? submissionRef(w.submission_id) : contributionRef(w.contribution_id),
      type: w.role,
      contributor: f.contributor.username,
      status: 'withdrawn',
      summary: w.summary,
      record_id: contributionRef(w.contribution_id),
      withdrawn_by: w.reason === 'withdrawn' ? 'contributor' : 'consent_migration',
    },
  };
}

/** The /v1 payload of an event, or null when /v1 endpoints do not receive it. */
export function presentV1WebhookEvent(siteUrl: string, e: OutboxEvent): unknown {
  switch (e.type) {
    case 'contribution.submitted':
    case 'contribution.withdrawn': {
      if ('withdrawn' in (e.facts as object)) return presentWithdrawnWork(e.facts as WithdrawnFacts, e.createdAt);
      const f = e.facts as SubmissionFacts;
      const status = e.type === 'contribution.submitted' ? 'pending' : 'withdrawn';
      return { event: e.type, created: e.createdAt, page: f.page.url, contribution: contribution(f, status) };
    }
    case 'contribution.accepted': {
      if ('authorship' in (e.facts as object)) {
        const f = e.facts as AuthorshipFacts;
        const c = f.contribution;
        return {
          event: e.type,
          created: e.createdAt,
          page: f.page.url,
          contribution: {
            id: contributionRef(c.id),
            type: c.role,
            contributor: f.contributor.username,
            status: 'accepted',
            summary: c.summary,
            accepted: c.accepted_at.slice(0, 10),
            record_id: contributionRef(c.id),
            proof_url: proofUrl(siteUrl, c.id),
          },
        };
      }
      const f = e.facts as AcceptedFacts;
      const c = f.contribution;
      return {
        event: e.type,
        created: e.createdAt,
        page: f.page.url,
        contribution: {
          ...contribution(f, 'accepted'),
          accepted: c.accepted_at.slice(0, 10),
          ...(c.change && c.change.from !== null && c.change.to !== null ? { change: { from: c.change.from, to: c.change.to } } : {}),
          record_id: contributionRef(c.id),
          proof_url: proofUrl(siteUrl, c.id),
        },
      };
    }
    case 'request.taken': {
      const f = e.facts as RequestTakenFacts;
      return {
        event: e.type,
        created: e.createdAt,
        page: f.page.url,
        request: { id: `req_${f.request.id}`, type: f.request.kind, status: f.request.status, taken_by: f.request.taken_by },
      };
    }
    case 'page.changed': {
      const f = e.facts as PageChangedFacts;
      return {
        event: e.type,
        created: e.createdAt,
        page: f.page.url,
        changed_at: f.changed_at,
        contributions: f.work.map((w) => ({
          id: contributionRef(w.id),
          type: w.role,
          contributor: w.contributor.username,
          accepted: w.accepted_at.slice(0, 10),
          correction_missing: w.correction_missing,
          proof_url: proofUrl(siteUrl, w.id),
        })),
      };
    }
    case 'page.notice': {
      const f = e.facts as PageNoticeFacts;
      const n = f.notice;
      return {
        event: e.type,
        created: e.createdAt,
        page: f.page.url,
        notice: { id: n.id, type: n.type, date: n.date, reason: n.reason, url: n.url },
        standing: f.standing,
        previous_standing: f.previous_standing,
        record_url: recordUrl(siteUrl, f.page.id),
      };
    }
    case 'panel.updated': {
      const f = e.facts as PanelUpdatedFacts;
      return {
        event: e.type,
        created: e.createdAt,
        page: null,
        topic: f.topic,
        panel: { id: f.panel_id, version: f.version, previous_version: f.previous_version },
        changes: f.changes,
      };
    }
    default:
      return null;
  }
}

/** The /v1 document's `webhooks` section: every event a /v1 endpoint receives, with its headers. */
export function documentV1Webhooks(openapi: OpenApiCollector): void {
  const headers = [
    { name: 'Service-Event', description: 'The event name', event: true },
    { name: 'Service-Delivery', description: '`evt_<id>`: the event id, the same on every retry; use it to drop repeats' },
    {
      name: 'Service-Signature',
      description:
        '`t=<unix seconds>,sha256=<hex>`: HMAC-SHA256 keyed with the endpoint secret (the whole `whsec_…` string) over ' +
        '`<t>.<raw body>`. During a secret rotation one `sha256=` per valid secret; accept the request when any matches. ' +
        'Refuse a `t` more than five minutes from your clock.',
    },
  ];
  for (const [name, p] of Object.entries(V1_WEBHOOK_PAYLOADS)) {
    openapi.addWebhook(name, {
      summary: p.summary,
      description: 'Sent to the publisher’s /v1 endpoint (POST /api/v1/account/webhooks with `format: "v1"`). At least once, in order.',
      body: p.schema,
      headers,
    });
  }
}
