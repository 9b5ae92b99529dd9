// Which events each kind of endpoint may subscribe to (SPEC §10). An endpoint speaks one format: `api_v1` (the
// account webhooks of the /api/v1 document) or `v1` (the /v1 scheme, one endpoint per publisher).
import type { EventType } from '../events/outbox.js';

export const WEBHOOK_FORMATS = ['api_v1', 'v1'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const API_V1_EVENTS = ['contribution.accepted', 'submission.received', 'page.registered', 'page.changed', 'page.notice'] as const satisfies readonly EventType[];
export const V1_EVENTS = [
  'contribution.submitted',
  'contribution.accepted',
  'contribution.withdrawn',
  'request.taken',
  'panel.updated',
  'page.changed',
  'page.notice',
] as const satisfies readonly EventType[];

export const EVENTS_BY_FORMAT: Record<WebhookFormat, readonly EventType[]> = { api_v1: API_V1_EVENTS, v1: V1_EVENTS };

/** An event as the outbox holds it, with its facts parsed. */
export interface OutboxEvent {
  id: number;
  type: EventType;
  publisherId: number | null;
  pageId: number | null;
  facts: unknown;
  createdAt: string;
}

/** Builds the JSON an endpoint of one format receives for one event; null when the format has no such event. */
export type PayloadBuilder = (event: OutboxEvent) => unknown;
