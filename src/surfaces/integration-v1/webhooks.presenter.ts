// Account webhooks as their owner sees them: the endpoint, its delivery health, the attempt log. Field by field;
// the secret appears only in the answer that creates or rotates it. A receiver's answer is text in a JSON string,
// never markup: whoever shows it must escape it.
import Type from 'typebox';
import type { DeliveryRow, AttemptRow } from '../../domain/webhooks/webhook.store.js';
import type { WebhookView } from '../../domain/webhooks/webhook.service.js';
import { WEBHOOK_FORMATS } from '../../domain/webhooks/events.js';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { DisabledReason, EventType, WebhookUrl } from '../vocabulary.js';
import type { EventType as EventName } from '../../domain/events/outbox.js';

const Timestamp = Type.String({ format: 'date-time' });

export const WebhookData = Type.Object({
  id: Type.Integer(),
  url: { ...WebhookUrl, description: 'The https endpoint' },
  format: StringEnum(WEBHOOK_FORMATS, {
    description:
      '`api_v1` (X-Service-* headers, `{id, event, created, data}`), `v1` (Service-* headers), or `contributor`: your own webhook, told of what names you (the /api/v1 headers and envelope)',
  }),
  publisher: { ...Nullable(Type.Object({ slug: Type.String(), name: Type.String() })), description: 'The publication whose events it receives; null for a `contributor` webhook' },
  events: Type.Array(EventType),
  status: StringEnum(['enabled', 'disabled'] as const),
  disabled_at: Nullable(Timestamp),
  disabled_reason: Nullable(DisabledReason),
  consecutive_failures: Type.Integer(),
  last_attempt_at: Nullable(Timestamp),
  last_success_at: Nullable(Timestamp),
  last_failure_at: Nullable(Timestamp),
  last_status_code: Nullable(Type.Integer({ description: 'null when no answer came (timeout, refused address, reset)' })),
  success_rate_24h: Nullable(Type.Number({ description: 'Share of attempts in the last 24 hours that got a 2xx; null without attempts' })),
  pending: Type.Integer({ description: 'Deliveries not through yet: queued, retrying, or held while disabled' }),
  previous_secret_expires_at: Nullable(Type.String({ format: 'date-time', description: 'After a rotation: until when the previous secret also signs' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function presentWebhook(v: WebhookView, now: Date) {
  const w = v.row;
  const overlap = w.previous_secret_expires_at && w.previous_secret_expires_at > now.toISOString() ? w.previous_secret_expires_at : null;
  return {
    id: w.id,
    url: w.url,
    format: w.format,
    publisher: w.publisher_slug === null || w.publisher_name === null ? null : { slug: w.publisher_slug, name: w.publisher_name },
    events: JSON.parse(w.events) as EventName[],
    status: w.enabled === 1 ? ('enabled' as const) : ('disabled' as const),
    disabled_at: w.disabled_at,
    disabled_reason: w.disabled_reason,
    consecutive_failures: w.consecutive_failures,
    last_attempt_at: w.last_attempt_at,
    last_success_at: w.last_success_at,
    last_failure_at: w.last_failure_at,
    last_status_code: w.last_status_code,
    success_rate_24h: v.health.attempts24h === 0 ? null : Math.round((v.health.successes24h / v.health.attempts24h) * 1000) / 1000,
    pending: v.health.pending,
    previous_secret_expires_at: overlap,
    created_at: w.created_at,
    updated_at: w.updated_at,
  };
}

export const WebhookWithSecret = Type.Intersect([
  WebhookData,
  Type.Object({ secret: Type.String({ description: 'The signing secret (`whsec_…`), shown in this response only' }) }),
]);

export const AttemptData = Type.Object({
  id: Type.Integer(),
  delivery_id: Type.Integer({ description: 'Redeliver with POST …/deliveries/{delivery_id}/redeliver' }),
  event_id: Type.Integer(),
  event: EventType,
  delivery_status: StringEnum(['pending', 'held', 'succeeded', 'failed'] as const),
  attempted_at: Timestamp,
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  success: Type.Boolean(),
  error: Nullable(Type.String({ description: 'Why the attempt failed, in words' })),
  response_body: Type.String({ description: 'The first 1 KB of the answer, as text' }),
  manual: Type.Boolean({ description: 'A redelivery asked for by the owner' }),
});

export function presentAttempt(a: AttemptRow) {
  return {
    id: a.id,
    delivery_id: a.delivery_id,
    event_id: a.event_id,
    event: a.event_type,
    delivery_status: a.delivery_status,
    attempted_at: a.attempted_at,
    status_code: a.status_code,
    duration_ms: a.duration_ms,
    success: a.success === 1,
    error: a.error,
    response_body: a.response_body,
    manual: a.manual === 1,
  };
}

export const DeliveryData = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  event: EventType,
  status: StringEnum(['pending', 'held', 'succeeded', 'failed'] as const, {
    description: '`pending` (queued or retrying), `held` (the endpoint is disabled), `succeeded`, `failed` (given up after 24 hours)',
  }),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Timestamp),
  last_attempt_at: Nullable(Timestamp),
  last_status_code: Nullable(Type.Integer()),
  delivered_at: Nullable(Timestamp),
});

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    event_id: d.event_id,
    event: d.event_type,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    last_attempt_at: d.last_attempt_at,
    last_status_code: d.last_status_code,
    delivered_at: d.delivered_at,
  };
}
