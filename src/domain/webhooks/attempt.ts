// One delivery attempt: sign the stored body, send it, record what happened, and plan what comes next. The relay
// (jobs/relay.ts) and a manual redelivery (webhook.service.ts) both use it, so it lives here, below both. It knows
// nothing of events or payloads (the presenters built the body at fan-out); it signs, sends, records and backs off.
import { noticeToOwners } from '../mail/mail.service.js';
import type { Deps } from '../deps.js';
import { signedHeaders } from './signature.js';
import { disableForFailures, nextAttemptMs } from './schedule.js';
import * as store from './webhook.store.js';
import { fetchSmall, type KeepAliveAgents, type Resolve } from '../../net/safe-fetch.js';

export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept: text, never rendered. */
export const ANSWER_BYTES = 1024;

export interface SendOptions {
  allowPrivate: boolean;
  /** The resolver behind the connect-time address check (tests play DNS with it). */
  resolve?: Resolve;
  timeoutMs?: number;
  /** Connections kept open between attempts (the relay's); each new one is still checked at connect time. */
  agents?: KeepAliveAgents;
}

export interface AttemptResult {
  success: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string;
}

export interface DeliveryToSend {
  id: number;
  event_id: number;
  event_type: string;
  body: string;
  /** 1 for a delivery queued again by a replay. */
  replay?: number;
}

/** The secrets that sign now: the current one, and the previous one during its overlap after a rotation. */
export function validSecrets(e: store.SendEndpoint, now: Date): string[] {
  const keepPrevious = e.previous_secret && e.previous_secret_expires_at && e.previous_secret_expires_at > now.toISOString();
  return keepPrevious ? [e.secret, e.previous_secret!] : [e.secret];
}

/** Sign and send one delivery. Never throws: a refused address, a timeout or a reset is a failed attempt. */
export async function sendOnce(endpoint: store.SendEndpoint, delivery: DeliveryToSend, now: Date, opts: SendOptions): Promise<AttemptResult> {
  const body = Buffer.from(delivery.body, 'utf8');
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Credence-Webhooks/1',
    ...signedHeaders(endpoint.format, {
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      timestamp,
      body,
      secrets: validSecrets(endpoint, now),
      replay: delivery.replay === 1,
    }),
  };
  const r = await fetchSmall(endpoint.url, {
    method: 'POST',
    body,
    headers,
    allowPrivate: opts.allowPrivate,
    timeoutMs: opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    maxBytes: ANSWER_BYTES,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
    ...(opts.agents ? { agents: opts.agents } : {}),
  });
  // No redirect is followed: a 3xx is a failure like any other non-2xx answer.
  const success = r.status !== null && r.status >= 200 && r.status < 300;
  return {
    success,
    statusCode: r.status,
    durationMs: r.durationMs,
    error: r.error ?? (success ? null : r.status === null ? 'no answer' : `answered ${r.status}`),
    responseBody: r.body.slice(0, ANSWER_BYTES),
  };
}

export interface Recorded {
  attemptId: number;
  /** The delivery's state after the attempt. */
  status: 'pending' | 'held' | 'succeeded' | 'failed';
  nextAttemptAt: string | null;
  disabled: boolean;
  /** The endpoint as the attempt left it (for the next send), undefined if it was deleted meanwhile. */
  endpoint: store.SendEndpoint | undefined;
}

/**
 * Record a scheduled attempt in one transaction: the attempt, the delivery's next state (done, retried later, or
 * given up after its 24 hours), the endpoint's health, and the endpoint's disabling after 20 failures in a row
 * spanning at least 24 hours (schedule.ts), its deliveries then held.
 */
export async function recordScheduled(
  deps: Deps,
  delivery: { id: number; webhook_id: number; retry_step: number; first_attempt_at: string | null },
  result: AttemptResult,
  times: { started: Date; finished: Date },
  random: () => number,
): Promise<Recorded> {
  const now = times.started.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const attemptId = await store.insertAttempt(trx, attemptRow(delivery, result, now, false));
    const first = delivery.first_attempt_at ?? now;
    let status: Recorded['status'];
    let nextAttemptAt: string | null = null;
    if (result.success) {
      status = 'succeeded';
      await store.updateDelivery(
        trx,
        delivery.id,
        { status, first_attempt_at: first, last_attempt_at: now, last_status_code: result.statusCode, delivered_at: now, updated_at: now },
        'pending',
      );
    } else {
      const failures = delivery.retry_step + 1;
      // The next wait counts from the end of this attempt, which may have taken up to its 10 s.
      const next = nextAttemptMs(Date.parse(first), failures, times.finished.getTime(), random());
      nextAttemptAt = next === null ? null : new Date(next).toISOString();
      status = nextAttemptAt === null ? 'failed' : 'pending';
      await store.updateDelivery(
        trx,
        delivery.id,
        {
          status,
          retry_step: failures,
          first_attempt_at: first,
          ...(nextAttemptAt ? { next_attempt_at: nextAttemptAt } : {}),
          last_attempt_at: now,
          last_status_code: result.statusCode,
          updated_at: now,
        },
        'pending',
      );
    }
    const health = await store.recordEndpointOutcome(trx, delivery.webhook_id, {
      success: result.success,
      statusCode: result.statusCode,
      now,
      counts: true,
    });
    let disabled = false;
    if (health?.enabled === 1 && health.failing_since && disableForFailures(health.consecutive_failures, Date.parse(health.failing_since), times.started.getTime())) {
      disabled = await store.disableForFailures(trx, delivery.webhook_id, now);
      if (disabled) {
        await store.holdDeliveries(trx, delivery.webhook_id, now);
        const hook = await trx
          .selectFrom('webhooks as w')
          .innerJoin('publishers as p', 'p.id', 'w.publisher_id')
          .select(['w.url', 'p.id', 'p.name'])
          .where('w.id', '=', delivery.webhook_id)
          .executeTakeFirst();
        if (hook) {
          await noticeToOwners(trx, deps, hook.id, {
            kind: 'webhook_disabled',
            thread: `webhook:${delivery.webhook_id}`,
            fact: { url: hook.url, publisher: hook.name, link: `${deps.config.siteUrl}/dashboard` },
          });
        }
        if (status === 'pending') status = 'held';
      }
    }
    const endpoint = health && { ...health, enabled: disabled ? 0 : health.enabled };
    return { attemptId, status, nextAttemptAt, disabled, endpoint };
  });
}

/** A scheduled attempt that got through, waiting to be recorded with others of its run. */
export interface Success {
  delivery: { id: number; webhook_id: number; first_attempt_at: string | null };
  result: AttemptResult;
  started: Date;
}

/**
 * Record a run of successful scheduled attempts of one endpoint in one transaction: each attempt, each delivery
 * done, the endpoint's health once. Sending a few before recording them costs nothing in safety: a crash before
 * this commit sends them again (at least once, still in order).
 */
export async function recordSuccesses(deps: Deps, webhookId: number, runs: Success[]): Promise<store.SendEndpoint | undefined> {
  const last = runs.at(-1);
  if (!last) return undefined;
  return deps.db.transaction().execute(async (trx) => {
    await store.insertAttempts(
      trx,
      runs.map((r) => attemptRow(r.delivery, r.result, r.started.toISOString(), false)),
    );
    for (const r of runs) {
      const at = r.started.toISOString();
      await store.updateDelivery(
        trx,
        r.delivery.id,
        { status: 'succeeded', first_attempt_at: r.delivery.first_attempt_at ?? at, last_attempt_at: at, last_status_code: r.result.statusCode, delivered_at: at, updated_at: at },
        'pending',
      );
    }
    return store.recordEndpointOutcome(trx, webhookId, {
      success: true,
      statusCode: last.result.statusCode,
      now: last.started.toISOString(),
      counts: true,
    });
  });
}

/**
 * Record a manual redelivery: the attempt and the endpoint's last-attempt fields. It moves a held or given-up
 * delivery to `succeeded` when it gets through, but neither counts towards disabling nor resets the count: a
 * test by hand says nothing about the schedule.
 */
export async function recordManual(
  deps: Deps,
  delivery: { id: number; webhook_id: number; status: string },
  result: AttemptResult,
  at: Date,
): Promise<number> {
  const now = at.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const attemptId = await store.insertAttempt(trx, attemptRow(delivery, result, now, true));
    await store.updateDelivery(trx, delivery.id, {
      ...(result.success && delivery.status !== 'succeeded' ? { status: 'succeeded', delivered_at: now } : {}),
      last_attempt_at: now,
      last_status_code: result.statusCode,
      updated_at: now,
    });
    await store.recordEndpointOutcome(trx, delivery.webhook_id, { success: result.success, statusCode: result.statusCode, now, counts: false });
    return attemptId;
  });
}

function attemptRow(delivery: { id: number; webhook_id: number }, r: AttemptResult, now: string, manual: boolean) {
  return {
    delivery_id: delivery.id,
    webhook_id: delivery.webhook_id,
    attempted_at: now,
    status_code: r.statusCode,
    duration_ms: r.durationMs,
    success: r.success,
    error: r.error,
    response_body: r.responseBody,
    manual,
  };
}
