// Which events each kind of endpoint may subscribe to (SPEC §10). An endpoint speaks one format: `api_v1` (the
// account webhooks of the /api/v1 document), `v1` (the /v1 scheme, one endpoint per publisher) or `contributor` (a
// person's own endpoint, told of what names them: docs/webhooks.md, "Your own webhook").
import type { EventType } from '../events/outbox.js';

export const WEBHOOK_FORMATS = ['api_v1', 'v1', 'contributor'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
/** The formats of a publication's endpoints (the dashboard offers these); `contributor` is a person's own. */
export const PUBLICATION_FORMATS = ['api_v1', 'v1'] as const satisfies readonly WebhookFormat[];

export const API_V1_EVENTS = ['contribution.accepted', 'contribution.withdrawn', 'submission.received', 'page.registered', 'page.changed', 'page.notice'] as const satisfies readonly EventType[];
export const V1_EVENTS = [
  'contribution.submitted',
  'contribution.accepted',
  'contribution.withdrawn',
  'request.taken',
  'panel.updated',
  'page.changed',
  'page.notice',
] as const satisfies readonly EventType[];

/**
 * A person's own endpoint: a publication asks them to confirm they are named (`contributor.named`), the public record
 * names them (`contributor.credited`) or no longer does (`contributor.uncredited`), a page that names them gets a
 * notice (`page.notice`).
 */
export const CONTRIBUTOR_EVENTS = ['contributor.named', 'contributor.credited', 'contributor.uncredited', 'page.notice'] as const satisfies readonly EventType[];

export const EVENTS_BY_FORMAT: Record<WebhookFormat, readonly EventType[]> = { api_v1: API_V1_EVENTS, v1: V1_EVENTS, contributor: CONTRIBUTOR_EVENTS };

/** An event as the outbox holds it, with its facts parsed. */
export interface OutboxEvent {
  id: number;
  type: EventType;
  publisherId: number | null;
  pageId: number | null;
  /** The person it concerns (their own endpoints receive it), or null. */
  accountId: number | null;
  facts: unknown;
  createdAt: string;
}

/** Builds the JSON an endpoint of one format receives for one event; null when the format has no such event. */
export type PayloadBuilder = (event: OutboxEvent) => unknown;
