// The /api/v1 webhook payloads (seed §6, SPEC §10): `{id, event, created, data}`, `data` holding the page and the
// contribution, the submission with its evidence, or the registration. Built from the event's facts, field by
// field. The schemas are the OpenAPI `webhooks` section of the /api/v1 document.
import Type, { type TSchema } from 'typebox';
import type { PageChangedFacts } from '../../domain/pages/drift.js';
import type { PageNoticeFacts } from '../../domain/pages/notice.service.js';
import type { OutboxEvent } from '../../domain/webhooks/events.js';
import type { AcceptedFacts, AuthorshipFacts, CreditedFacts, NamedFacts, PageFacts, PageRegisteredFacts, SubmissionFacts, UncreditedFacts, WithdrawnFacts } from '../../domain/webhooks/facts.js';
import { Nullable, StringEnum } from '../../http/schemas.js';
import type { OpenApiCollector } from '../docs/openapi.js';
import { LogLink, presentLogLink } from '../log-link.js';
import { proofUrl, recordUrl } from '../urls.js';
import { DriftingRole, NoticeType, PageUrl, Provenance, ServiceUrl, Standing, SubmissionStatus, WorkRole } from '../vocabulary.js';

const Page = Type.Object({ id: Type.Integer(), url: PageUrl, title: Type.String(), record_url: ServiceUrl });
const Contributor = Type.Object({ username: Type.String(), name: Type.String() });
const Publisher = Type.Object({ slug: Type.String(), name: Type.String() }, { description: 'The publication' });

const Envelope = (name: string, data: TSchema) =>
  Type.Object({
    id: Type.Integer({ description: 'The event id; also in `X-Service-Delivery`, the same on every retry' }),
    event: Type.Literal(name),
    created: Type.String({ format: 'date-time' }),
    data,
  });

export const API_WEBHOOK_PAYLOADS: Record<string, { summary: string; schema: TSchema }> = {
  'contribution.accepted': {
    summary:
      'The publisher accepted work on a page, or a person named as its author confirmed it (or a standing permission of theirs published it at once); its public trust record changed, so cached attribution blocks should be refreshed',
    schema: Envelope(
      'contribution.accepted',
      Type.Object({
        page: Page,
        contribution: Type.Object({
          id: Type.Integer({ description: 'The public contribution' }),
          role: WorkRole,
          summary: Type.String(),
          submission_id: Nullable(Type.Integer({ description: 'The submission accepted; null for an authorship (no submission behind it)' })),
          contributor: Contributor,
          accepted_at: Type.String({ format: 'date-time' }),
          change: Nullable(Type.Object({ from: Type.String(), to: Type.String() }, { description: 'Corrections: the text before and after' })),
          proof_url: ServiceUrl,
        }),
      }),
    ),
  },
  'contribution.withdrawn': {
    summary:
      'Work left the publisher’s pages: a pending submission its contributor withdrew, or published work the named person took their name back from (its public trust record changed, so cached attribution blocks should be refreshed)',
    schema: Envelope(
      'contribution.withdrawn',
      Type.Object({
        page: Page,
        withdrawn: Type.Object({
          submission_id: Nullable(Type.Integer({ description: 'The submission withdrawn; null for an authorship' })),
          contribution_id: Nullable(Type.Integer({ description: 'Published work: the contribution that left the record; null for a pending submission' })),
          role: WorkRole,
          summary: Type.String(),
          contributor: Contributor,
          withdrawn_by: StringEnum(['contributor', 'consent_migration'] as const, {
            description: '`contributor` (the person withdrew), or `consent_migration` (an authorship named before people confirmed their names, off the record until they do)',
          }),
        }),
      }),
    ),
  },
  'submission.received': {
    summary: 'A contributor responded to one of the publisher’s requests, or proposed work on one of its pages',
    schema: Envelope(
      'submission.received',
      Type.Object({
        page: Page,
        submission: Type.Object({
          id: Type.Integer(),
          role: WorkRole,
          status: { ...SubmissionStatus, description: '`pending`' },
          summary: Type.String(),
          request_id: Nullable(Type.Integer()),
          contributor: Contributor,
          evidence: Type.Object({
            before: Nullable(Type.String()),
            after: Nullable(Type.String()),
            reason: Type.String(),
            sources: Type.Array(PageUrl),
          }),
        }),
      }),
    ),
  },
  'page.changed': {
    summary: 'The text of one of the publisher’s pages changed after accepted work on it: that work may need a fresh look',
    schema: Envelope(
      'page.changed',
      Type.Object({
        page: Page,
        changed_at: Type.String({ format: 'date-time' }),
        work: Type.Array(
          Type.Object({
            id: Type.Integer({ description: 'The public contribution' }),
            role: DriftingRole,
            contributor: Contributor,
            accepted_at: Type.String({ format: 'date-time' }),
            correction_missing: Nullable(Type.Boolean({ description: 'Corrections: the corrected text no longer appears (null: unknown)' })),
            proof_url: ServiceUrl,
          }),
          { description: 'Every accepted review, fact check and correction now marked as done on an older version' },
        ),
      }),
    ),
  },
  'page.notice': {
    summary: 'The publisher attached a notice to one of its pages (a retraction, an expression of concern, a reinstatement, …): its record’s standing may have changed',
    schema: Envelope(
      'page.notice',
      Type.Object({
        page: Page,
        notice: Type.Object({
          id: Type.Integer(),
          type: NoticeType,
          date: Type.String({ format: 'date' }),
          reason: Type.String(),
          url: Nullable({ ...PageUrl, description: 'The notice itself, on the publisher’s site' }),
        }),
        standing: { ...Standing, description: 'The page’s standing after this notice' },
        previous_standing: { ...Standing, description: 'Its standing before' },
      }),
    ),
  },
  'page.registered': {
    summary: 'A page was added to the publisher’s publication',
    schema: Envelope(
      'page.registered',
      Type.Object({
        page: Page,
        registration: Type.Object({ topic: Type.String(), registered_at: Type.String({ format: 'date-time' }) }),
      }),
    ),
  },
};

/**
 * A person's own webhook (format `contributor`): what names them. Same envelope and headers as the account
 * webhooks above; `page.notice` is sent to it too, with the payload above, for a page whose record names them.
 */
export const CONTRIBUTOR_WEBHOOK_PAYLOADS: Record<string, { summary: string; schema: TSchema }> = {
  'contributor.named': {
    summary: 'A publication named you as an author of one of its pages and waits for your answer; nothing is public until you confirm',
    schema: Envelope(
      'contributor.named',
      Type.Object({
        claim: Type.Object({
          id: Type.Integer({ description: 'Answer it with POST /account/claims/{id}/confirm or /decline' }),
          role: Type.Literal('author'),
          confirm_url: ServiceUrl,
        }),
        page: Page,
        publisher: Publisher,
      }),
    ),
  },
  'contributor.credited': {
    summary: 'The public record now names you on a page: your work was accepted, or an authorship you confirmed (or gave a standing permission for) was published',
    schema: Envelope(
      'contributor.credited',
      Type.Object({
        page: Page,
        publisher: Publisher,
        contribution: Type.Object({
          id: Type.Integer({ description: 'The public contribution' }),
          role: WorkRole,
          summary: Type.String(),
          accepted_at: Type.String({ format: 'date-time' }),
          change: Nullable(Type.Object({ from: Type.String(), to: Type.String() }, { description: 'Corrections: the text before and after' })),
          provenance: Provenance,
          proof_url: ServiceUrl,
        }),
        seq: Type.Integer({ description: 'The change-log entry that published it (a cursor of GET /changes)' }),
        log: LogLink,
      }),
    ),
  },
  'contributor.uncredited': {
    summary: 'The public record no longer names you on a page: you took your name back, or an authorship named before consent existed waits for your confirmation',
    schema: Envelope(
      'contributor.uncredited',
      Type.Object({
        page: Page,
        publisher: Publisher,
        contribution: Type.Object({
          id: Type.Integer({ description: 'The contribution that left the record' }),
          role: WorkRole,
          withdrawn_at: Type.String({ format: 'date-time' }),
          reason: Type.Union([Type.Literal('withdrawn'), Type.Literal('unconfirmed')], { description: '`withdrawn`: you took your name back; `unconfirmed`: confirm the claim to publish it again' }),
        }),
        seq: Type.Integer({ description: 'The change-log entry that took it off' }),
        log: LogLink,
      }),
    ),
  },
};

const page = (siteUrl: string, p: PageFacts) => ({ id: p.id, url: p.url, title: p.title, record_url: recordUrl(siteUrl, p.id) });

/** The payload a person's own webhook receives, or null when it receives no such event. */
export function presentContributorWebhookEvent(siteUrl: string, e: OutboxEvent): unknown {
  const envelope = (data: unknown) => ({ id: e.id, event: e.type, created: e.createdAt, data });
  switch (e.type) {
    case 'contributor.named': {
      const f = e.facts as NamedFacts;
      return envelope({
        claim: { id: f.claim_id, role: f.role, confirm_url: `${siteUrl}/me/names` },
        page: page(siteUrl, f.page),
        publisher: { slug: f.publisher.slug, name: f.publisher.name },
      });
    }
    case 'contributor.credited': {
      const f = e.facts as CreditedFacts;
      const c = f.contribution;
      return envelope({
        page: page(siteUrl, f.page),
        publisher: { slug: f.publisher.slug, name: f.publisher.name },
        contribution: {
          id: c.id,
          role: c.role,
          summary: c.summary,
          accepted_at: c.accepted_at,
          change: c.change ? { from: c.change.from, to: c.change.to } : null,
          provenance: { asserted_by: c.provenance.asserted_by, consent: c.provenance.consent },
          proof_url: proofUrl(siteUrl, c.id),
        },
        seq: f.seq,
        log: presentLogLink(siteUrl, f.seq),
      });
    }
    case 'contributor.uncredited': {
      const f = e.facts as UncreditedFacts;
      const c = f.contribution;
      return envelope({
        page: page(siteUrl, f.page),
        publisher: { slug: f.publisher.slug, name: f.publisher.name },
        contribution: { id: c.id, role: c.role, withdrawn_at: c.withdrawn_at, reason: c.reason },
        seq: f.seq,
        log: presentLogLink(siteUrl, f.seq),
      });
    }
    case 'page.notice':
      return presentApiWebhookEvent(siteUrl, e);
    default:
      return null;
  }
}

/** The /api/v1 payload of an event, or null when account webhooks do not receive it. */
export function presentApiWebhookEvent(siteUrl: string, e: OutboxEvent): unknown {
  const envelope = (data: unknown) => ({ id: e.id, event: e.type, created: e.createdAt, data });
  switch (e.type) {
    case 'page.registered': {
      const f = e.facts as PageRegisteredFacts;
      return envelope({
        page: page(siteUrl, { id: f.page_id, url: f.url, title: f.title }),
        registration: { topic: f.topic, registered_at: e.createdAt },
      });
    }
    case 'page.changed': {
      const f = e.facts as PageChangedFacts;
      return envelope({
        page: page(siteUrl, f.page),
        changed_at: f.changed_at,
        work: f.work.map((w) => ({
          id: w.id,
          role: w.role,
          contributor: { username: w.contributor.username, name: w.contributor.name },
          accepted_at: w.accepted_at,
          correction_missing: w.correction_missing,
          proof_url: proofUrl(siteUrl, w.id),
        })),
      });
    }
    case 'page.notice': {
      const f = e.facts as PageNoticeFacts;
      const n = f.notice;
      return envelope({
        page: page(siteUrl, f.page),
        notice: { id: n.id, type: n.type, date: n.date, reason: n.reason, url: n.url },
        standing: f.standing,
        previous_standing: f.previous_standing,
      });
    }
    case 'submission.received': {
      const f = e.facts as SubmissionFacts;
      const s = f.submission;
      return envelope({
        page: page(siteUrl, f.page),
        submission: {
          id: s.id,
          role: s.kind,
          status: s.status,
          summary: s.summary,
          request_id: s.request_id,
          contributor: { username: f.contributor.username, name: f.contributor.name },
          evidence: { before: s.evidence.before, after: s.evidence.after, reason: s.evidence.reason, sources: [...s.evidence.sources] },
        },
      });
    }
    case 'contribution.withdrawn': {
      if ('withdrawn' in (e.facts as object)) {
        const f = e.facts as WithdrawnFacts;
        const w = f.withdrawn;
        return envelope({
          page: page(siteUrl, f.page),
          withdrawn: {
            submission_id: w.submission_id,
            contribution_id: w.contribution_id,
            role: w.role,
            summary: w.summary,
            contributor: { username: f.contributor.username, name: f.contributor.name },
            withdrawn_by: w.reason === 'withdrawn' ? 'contributor' : 'consent_migration',
          },
        });
      }
      const f = e.facts as SubmissionFacts;
      return envelope({
        page: page(siteUrl, f.page),
        withdrawn: {
          submission_id: f.submission.id,
          contribution_id: null,
          role: f.submission.kind,
          summary: f.submission.summary,
          contributor: { username: f.contributor.username, name: f.contributor.name },
          withdrawn_by: 'contributor',
        },
      });
    }
    case 'contribution.accepted': {
      if ('authorship' in (e.facts as object)) {
        const f = e.facts as AuthorshipFacts;
        const c = f.contribution;
        return envelope({
          page: page(siteUrl, f.page),
          contribution: {
            id: c.id,
            role: c.role,
            summary: c.summary,
            submission_id: null,
            contributor: { username: f.contributor.username, name: f.contributor.name },
            accepted_at: c.accepted_at,
            change: null,
            proof_url: proofUrl(siteUrl, c.id),
          },
        });
      }
      const f = e.facts as AcceptedFacts;
      const c = f.contribution;
      return envelope({
        page: page(siteUrl, f.page),
        contribution: {
          id: c.id,
          role: c.role,
          summary: f.submission.summary,
          submission_id: f.submission.id,
          contributor: { username: f.contributor.username, name: f.contributor.name },
          accepted_at: c.accepted_at,
          change: c.change && c.change.from !== null && c.change.to !== null ? { from: c.change.from, to: c.change.to } : null,
          proof_url: proofUrl(siteUrl, c.id),
        },
      });
    }
    default:
      return null;
  }
}

/** The /api/v1 document's `webhooks` section: every event an account webhook can select, with its headers. */
export function documentApiWebhooks(openapi: OpenApiCollector): void {
  const headers = [
    { name: 'X-Service-Event', description: 'The event name', event: true },
    { name: 'X-Service-Delivery', description: 'The event id, the same on every retry; use it to drop repeats' },
    { name: 'X-Service-Timestamp', description: 'Unix time in seconds; refuse one more than five minutes from your clock' },
    {
      name: 'X-Service-Signature',
      description:
        '`sha256=<hex>`, exactly one: HMAC-SHA256 keyed with the signing secret (the whole `whsec_…` string) over ' +
        '`<timestamp>.<raw body>`, compared in constant time. Always made with the current secret, also during a rotation.',
    },
    {
      name: 'X-Service-Signature-Previous',
      optional: true,
      description:
        'Only for 24 hours after a secret rotation: `sha256=<hex>`, the same signature made with the previous secret, ' +
        'for a receiver that has not switched to the new one yet. Accept the request when either header matches a secret you hold.',
    },
  ];
  for (const [name, p] of Object.entries(API_WEBHOOK_PAYLOADS)) {
    openapi.addWebhook(name, {
      summary: p.summary,
      description:
        'Sent to account webhooks that selected it (POST /account/webhooks). At least once, in order per endpoint.' +
        (name === 'page.notice' ? ' Also sent to a person’s own webhook (format `contributor`) for a page whose record names them.' : ''),
      body: p.schema,
      headers,
    });
  }
  for (const [name, p] of Object.entries(CONTRIBUTOR_WEBHOOK_PAYLOADS)) {
    openapi.addWebhook(name, {
      summary: p.summary,
      description: 'Sent to a person’s own webhooks (POST /account/webhooks with `format: contributor`) that selected it. At least once, in order per endpoint.',
      body: p.schema,
      headers,
    });
  }
}
