// All SQL about webhooks: endpoints, their deliveries and attempts, and the relay's bookkeeping (fan-out, due
// endpoints, leases). Reads and writes of an account's endpoints take the account, so another's cannot be touched
// by mistake; the relay's functions act on any endpoint and are not reachable from a route.
import { sql, type Updateable } from 'kysely';
import type { Dialect } from '../../db/client.js';
import type { DeliveryStatus, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js';
import type { Db } from '../../db/schema.js';
import type { EventType } from '../events/outbox.js';
import type { WebhookFormat } from './events.js';

// ---------------------------------------------------------------------------------------------------------------
// Endpoints, as their owner sees them.

const webhookColumns = [
  'w.id',
  'w.account_id',
  'w.publisher_id',
  'w.format',
  'w.url',
  'w.events',
  'w.enabled',
  'w.disabled_at',
  'w.disabled_reason',
  'w.consecutive_failures',
  'w.failing_since',
  'w.last_attempt_at',
  'w.last_success_at',
  'w.last_failure_at',
  'w.last_status_code',
  'w.previous_secret_expires_at',
  'w.created_at',
  'w.updated_at',
  'p.slug as publisher_slug',
  'p.name as publisher_name',
] as const;

// A person's own webhook has no publication: its publisher fields are null.
const webhooksWithPublisher = (db: Db) =>
  db.selectFrom('webhooks as w').leftJoin('publishers as p', 'p.id', 'w.publisher_id').select(webhookColumns);

export type WebhookRow = NonNullable<Awaited<ReturnType<typeof findWebhook>>>;

export const findWebhook = (db: Db, accountId: number, id: number) =>
  webhooksWithPublisher(db).where('w.account_id', '=', accountId).where('w.id', '=', id).executeTakeFirst();

/** The account's own webhooks and every webhook of the publications it owns (`owned`: their ids). */
export const findWebhookFor = (db: Db, accountId: number, owned: number[], id: number) =>
  webhooksWithPublisher(db)
    .where((eb) => (owned.length > 0 ? eb.or([eb('w.account_id', '=', accountId), eb('w.publisher_id', 'in', owned)]) : eb('w.account_id', '=', accountId)))
    .where('w.id', '=', id)
    .executeTakeFirst();

export const listWebhooks = (db: Db, accountId: number, owned: number[], limit: number, offset: number) =>
  webhooksWithPublisher(db)
    .where((eb) => (owned.length > 0 ? eb.or([eb('w.account_id', '=', accountId), eb('w.publisher_id', 'in', owned)]) : eb('w.account_id', '=', accountId)))
    .orderBy('w.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

export async function countWebhooks(db: Db, accountId: number, owned: number[]): Promise<number> {
  const r = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => (owned.length > 0 ? eb.or([eb('account_id', '=', accountId), eb('publisher_id', 'in', owned)]) : eb('account_id', '=', accountId)))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Whether the owner has a webhook of this format for this URL (besides `except`): a publication's whoever
 * registered it, or the account's own (no publication).
 */
export async function hasWebhookFor(
  db: Db,
  o: { accountId: number; publisherId: number | null; format: WebhookFormat; url: string; except?: number | undefined },
): Promise<boolean> {
  let q = db.selectFrom('webhooks').select('id').where('format', '=', o.format).where('url', '=', o.url);
  q = o.publisherId !== null ? q.where('publisher_id', '=', o.publisherId) : q.where('publisher_id', 'is', null).where('account_id', '=', o.accountId);
  if (o.except !== undefined) q = q.where('id', '!=', o.except);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Webhooks the account registered, of every format (WEBHOOKS_PER_ACCOUNT). */
export async function countRegisteredBy(db: Db, accountId: number): Promise<number> {
  const r = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Webhooks of the publication, whoever registered them (WEBHOOKS_PER_PUBLICATION). */
export async function countOfPublisher(db: Db, publisherId: number): Promise<number> {
  const r = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('publisher_id', '=', publisherId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The newest event id: a new endpoint receives only what happens after it exists. */
export async function newestEventId(db: Db): Promise<number> {
  const r = await db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(r?.id ?? 0);
}

export async function insertWebhook(
  db: Db,
  row: {
    account_id: number;
    publisher_id: number | null;
    format: WebhookFormat;
    url: string;
    events: string[];
    secret: string;
    from_event_id: number;
    now: string;
  },
): Promise<number> {
  const { now, events, ...rest } = row;
  const r = await db
    .insertInto('webhooks')
    .values({ ...rest, events: JSON.stringify(events), created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export async function updateWebhook(
  db: Db,
  accountId: number,
  id: number,
  patch: Partial<{
    url: string;
    events: string;
    secret: string;
    previous_secret: string | null;
    previous_secret_expires_at: string | null;
    enabled: number;
    disabled_at: string | null;
    disabled_reason: WebhooksTable['disabled_reason'];
    consecutive_failures: number;
    failing_since: string | null;
    updated_at: string;
  }>,
): Promise<void> {
  await db.updateTable('webhooks').set(patch).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Db, accountId: number, id: number): Promise<boolean> {
  // Attempts and deliveries go with it (ON DELETE CASCADE).
  const r = await db.deleteFrom('webhooks').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Per endpoint: deliveries not yet through (pending or held), and attempts and successes since `since`. */
export async function healthOf(db: Db, ids: number[], since: string) {
  const out = new Map<number, { pending: number; attempts: number; successes: number }>();
  if (ids.length === 0) return out;
  for (const id of ids) out.set(id, { pending: 0, attempts: 0, successes: 0 });
  const pending = await db
    .selectFrom('webhook_deliveries')
    .select(['webhook_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('webhook_id', 'in', ids)
    .where('status', 'in', ['pending', 'held'])
    .groupBy('webhook_id')
    .execute();
  for (const r of pending) out.get(r.webhook_id)!.pending = Number(r.n);
  const recent = await db
    .selectFrom('webhook_attempts')
    .select(['webhook_id', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.sum<number>('success').as('ok')])
    .where('webhook_id', 'in', ids)
    .where('attempted_at', '>', since)
    .groupBy('webhook_id')
    .execute();
  for (const r of recent) Object.assign(out.get(r.webhook_id)!, { attempts: Number(r.n), successes: Number(r.ok ?? 0) });
  return out;
}

/** Deliveries of a disabled endpoint wait, untouched, until it is enabled again. */
export async function holdDeliveries(db: Db, webhookId: number, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'held', updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

/** Re-enabling: every held delivery is due now, with a fresh 24-hour window. */
export async function resumeDeliveries(db: Db, webhookId: number, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, first_attempt_at: null, retry_step: 0, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', 'in', ['pending', 'held'])
    .execute();
  await markDue(db, [webhookId], now);
}

// ---------------------------------------------------------------------------------------------------------------
// The attempt log.

const attemptColumns = [
  'a.id',
  'a.delivery_id',
  'a.attempted_at',
  'a.status_code',
  'a.duration_ms',
  'a.success',
  'a.error',
  'a.response_body',
  'a.manual',
  'd.event_id',
  'd.event_type',
  'd.status as delivery_status',
] as const;

export type AttemptRow = Awaited<ReturnType<typeof listAttempts>>[number];

export const listAttempts = (db: Db, webhookId: number, limit: number, offset: number) =>
  db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(attemptColumns)
    .where('a.webhook_id', '=', webhookId)
    .orderBy('a.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

export const findAttempt = (db: Db, id: number) =>
  db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select(attemptColumns)
    .where('a.id', '=', id)
    .executeTakeFirst();

export async function countAttempts(db: Db, webhookId: number): Promise<number> {
  const r = await db.selectFrom('webhook_attempts').select((eb) => eb.fn.countAll<number>().as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
  return Number(r.n);
}

export type DeliveryRow = NonNullable<Awaited<ReturnType<typeof findDelivery>>>;

/** A delivery of one endpoint (the endpoint's ownership is checked by the caller). */
export const findDelivery = (db: Db, webhookId: number, id: number) =>
  db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();

// ---------------------------------------------------------------------------------------------------------------
// The relay: fan-out.

/**
 * Take the fan-out lock for this transaction. On PostgreSQL several processes may run the relay: one fans out at
 * a time (the others skip the step; they still send). SQLite has one writer at a time anyway.
 */
export async function lockFanout(trx: Db, dialect: Dialect): Promise<boolean> {
  if (dialect !== 'postgres') return true;
  const row = await trx.selectFrom('webhook_relay').select('name').where('name', '=', 'fanout').forUpdate().skipLocked().executeTakeFirst();
  return row !== undefined;
}

export const unrelayedEvents = (db: Db, limit: number) =>
  db
    .selectFrom('events')
    .select(['id', 'type', 'publisher_id', 'page_id', 'account_id', 'payload', 'created_at'])
    .where('relayed_at', 'is', null)
    .orderBy('id')
    .limit(limit)
    .execute();

export async function markRelayed(db: Db, ids: number[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('events').set({ relayed_at: now }).where('id', 'in', ids).execute();
}

export type FanoutTarget = Awaited<ReturnType<typeof endpointsOfPublishers>>[number];

/** Every endpoint of these publishers, enabled or not (a disabled one holds what it receives). */
export const endpointsOfPublishers = (db: Db, publisherIds: number[]) =>
  publisherIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('webhooks')
        .select(['id', 'publisher_id', 'format', 'events', 'enabled', 'from_event_id'])
        .where('publisher_id', 'in', publisherIds)
        .execute();

/** The own endpoints of these accounts, enabled or not. */
export const ownEndpointsOf = (db: Db, accountIds: number[]) =>
  accountIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('webhooks')
        .select(['id', 'account_id', 'format', 'events', 'enabled', 'from_event_id'])
        .where('publisher_id', 'is', null)
        .where('account_id', 'in', accountIds)
        .execute();

/** Who the public record names on these pages (their accepted work or authorship), among people with own endpoints. */
export const peopleNamedOn = (db: Db, pageIds: number[]) =>
  pageIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('contributions as c')
        .innerJoin('webhooks as w', (j) => j.onRef('w.account_id', '=', 'c.account_id').on('w.publisher_id', 'is', null))
        .select(['c.page_id', 'c.account_id'])
        .where('c.page_id', 'in', pageIds)
        .distinct()
        .execute();

/** The topics of these publishers' pages (panel statements reach publishers by topic). */
export const pageTopicsOfPublishers = (db: Db, publisherIds: number[]) =>
  publisherIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('pages').select(['publisher_id', 'topic']).where('publisher_id', 'in', publisherIds).where('topic', '!=', '').distinct().execute();

/** The publishers that have at least one endpoint of a format. */
export async function publishersWithEndpoints(db: Db, format: WebhookFormat): Promise<number[]> {
  const rows = await db.selectFrom('webhooks').select('publisher_id').where('format', '=', format).distinct().execute();
  return rows.flatMap((r) => (r.publisher_id === null ? [] : [r.publisher_id]));
}

export async function insertDeliveries(
  db: Db,
  rows: { webhook_id: number; event_id: number; event_type: EventType; body: string; status: DeliveryStatus; now: string }[],
): Promise<void> {
  // Bound the statement's parameters (SQLite allows 32,766).
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500).map(({ now, ...r }) => ({ ...r, next_attempt_at: now, created_at: now, updated_at: now }));
    await db
      .insertInto('webhook_deliveries')
      .values(chunk)
      .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
      .execute();
  }
}

/**
 * SPEC §10: a new event for an endpoint also retries its waiting deliveries first; so does the owner's redelivery
 * of a queued delivery. Every pending delivery of the endpoint becomes due now (the queue order decides which goes
 * first), and so does the endpoint.
 */
export async function pullQueuesForward(db: Db, webhookIds: number[], now: string): Promise<void> {
  if (webhookIds.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now })
    .where('webhook_id', 'in', webhookIds)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '>', now)
    .execute();
  await markDue(db, webhookIds, now);
}

/** The endpoints have something due now. The sequence moves on every time, whatever `next_due_at` was. */
export async function markDue(db: Db, webhookIds: number[], now: string): Promise<void> {
  if (webhookIds.length === 0) return;
  await db
    .updateTable('webhooks')
    .set((eb) => ({ next_due_at: now, wake_seq: eb('wake_seq', '+', 1) }))
    .where('id', 'in', webhookIds)
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------
// The relay: sending.

/** Enabled endpoints with something due and nobody sending to them, the longest waiting first. */
export async function dueEndpoints(db: Db, now: string, limit: number, exclude: number[]): Promise<number[]> {
  let q = db
    .selectFrom('webhooks')
    .select('id')
    .where('enabled', '=', 1)
    .where('next_due_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
  if (exclude.length > 0) q = q.where('id', 'not in', exclude);
  const rows = await q.orderBy('next_due_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/**
 * A sender leaves the endpoint: `next_due_at` becomes its queue head's time (null when empty), unless a delivery
 * arrived since the sender read `wake_seq` (false: look at the queue again). On PostgreSQL a concurrent fan-out
 * holds the row until it commits, and the condition is then checked against what it wrote.
 */
export async function settleDue(db: Db, id: number, nextDueAt: string | null, seenSeq: number): Promise<boolean> {
  const r = await db.updateTable('webhooks').set({ next_due_at: nextDueAt }).where('id', '=', id).where('wake_seq', '=', seenSeq).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A safety net: an enabled endpoint with deliveries queued but nothing due is made due at its head's time. */
export async function repairDue(db: Db): Promise<number> {
  const r = await db
    .updateTable('webhooks')
    .set((eb) => ({
      next_due_at: eb
        .selectFrom('webhook_deliveries as d')
        .select((e) => e.fn.min('d.next_attempt_at').as('due'))
        .whereRef('d.webhook_id', '=', 'webhooks.id')
        .where('d.status', '=', 'pending'),
      wake_seq: eb('wake_seq', '+', 1),
    }))
    .where('enabled', '=', 1)
    .where('next_due_at', 'is', null)
    .where((eb) =>
      eb.exists(eb.selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.webhook_id', '=', 'webhooks.id').where('d.status', '=', 'pending')),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Claim an endpoint for one relay process until `until`; false when another holds it or it is disabled. */
export async function claimEndpoint(db: Db, id: number, owner: string, now: string, until: string): Promise<boolean> {
  const r = await db
    .updateTable('webhooks')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function renewLease(db: Db, id: number, owner: string, until: string): Promise<boolean> {
  const r = await db.updateTable('webhooks').set({ lease_until: until }).where('id', '=', id).where('lease_owner', '=', owner).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function releaseEndpoint(db: Db, id: number, owner: string): Promise<void> {
  await db.updateTable('webhooks').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** At start on the embedded database (one process by design): leases left by a process that died are void. */
export async function clearLeases(db: Db): Promise<void> {
  await db.updateTable('webhooks').set({ lease_owner: null, lease_until: null }).where('lease_owner', 'is not', null).execute();
}

/** What a sender needs of an endpoint: where, how, and with which secrets. */
export const endpointForSend = (db: Db, id: number) =>
  db
    .selectFrom('webhooks')
    .select(['id', 'format', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at', 'enabled', 'wake_seq'])
    .where('id', '=', id)
    .executeTakeFirst();

export type SendEndpoint = NonNullable<Awaited<ReturnType<typeof endpointForSend>>>;

/** The first deliveries of an endpoint's queue, in order: strict order, so a later one waits while an earlier
 * one is pending. */
export const queue = (db: Db, webhookId: number, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .orderBy('event_id')
    .orderBy('id')
    .limit(limit)
    .execute();

export async function insertAttempt(
  db: Db,
  row: {
    delivery_id: number;
    webhook_id: number;
    attempted_at: string;
    status_code: number | null;
    duration_ms: number;
    success: boolean;
    error: string | null;
    response_body: string;
    manual: boolean;
  },
): Promise<number> {
  const r = await db
    .insertInto('webhook_attempts')
    .values({ ...row, success: row.success ? 1 : 0, manual: row.manual ? 1 : 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export type AttemptInsert = Parameters<typeof insertAttempt>[1];

/** Several attempts in one statement (a sender's run of successes). */
export async function insertAttempts(db: Db, rows: AttemptInsert[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('webhook_attempts')
      .values(rows.slice(i, i + 200).map((row) => ({ ...row, success: row.success ? 1 : 0, manual: row.manual ? 1 : 0 })))
      .execute();
  }
}

/** The delivery after an attempt; `onlyIf` leaves it alone if its status changed meanwhile (held by a disable). */
export async function updateDelivery(
  db: Db,
  id: number,
  patch: Omit<Updateable<WebhookDeliveriesTable>, 'id' | 'attempts'> & { updated_at: string },
  onlyIf?: DeliveryStatus,
): Promise<void> {
  let q = db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ ...patch, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id);
  if (onlyIf) q = q.where('status', '=', onlyIf);
  await q.execute();
}

/** Health after an attempt; returns the endpoint as it is now (the failures in a row, and what the next send
 * needs), or undefined when it was deleted meanwhile. */
export async function recordEndpointOutcome(
  db: Db,
  id: number,
  o: { success: boolean; statusCode: number | null; now: string; counts: boolean },
): Promise<(SendEndpoint & { consecutive_failures: number; failing_since: string | null }) | undefined> {
  return db
    .updateTable('webhooks')
    .set((eb) => ({
      last_attempt_at: o.now,
      last_status_code: o.statusCode,
      ...(o.success ? { last_success_at: o.now } : { last_failure_at: o.now }),
      ...(o.counts
        ? o.success
          ? { consecutive_failures: sql<number>`0`, failing_since: null }
          : { consecutive_failures: eb('consecutive_failures', '+', 1), failing_since: eb.fn.coalesce('failing_since', eb.val(o.now)) }
        : {}),
    }))
    .where('id', '=', id)
    .returning(['id', 'format', 'url', 'secret', 'previous_secret', 'previous_secret_expires_at', 'enabled', 'wake_seq', 'consecutive_failures', 'failing_since'])
    .executeTakeFirst();
}

/** Disable after failing too long (only if still enabled: the owner may have acted meanwhile). */
export async function disableForFailures(db: Db, id: number, now: string): Promise<boolean> {
  const r = await db
    .updateTable('webhooks')
    .set({ enabled: 0, disabled_at: now, disabled_reason: 'failures', updated_at: now, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

// ---------------------------------------------------------------------------------------------------------------
// The ceiling per destination: deliveries sent to one host (WEBHOOK_HOST_DELIVERIES_PER_MINUTE), counted for every
// instance in one row per host.

/**
 * Take up to `want` sends from the host's count for the minute `windowStart` (ISO), at most `cap` in the minute;
 * returns how many were granted (0 when the minute's are gone). One statement, atomic on both databases (every SET
 * expression reads the row as it was), so two senders never both take the last ones and no transaction holds the
 * row: `last_grant` carries this statement's grant back. A row whose minute is later (another instance's clock a
 * little ahead) is counted in, never moved back.
 */
export async function takeHostSends(db: Db, host: string, windowStart: string, want: number, cap: number): Promise<number> {
  const first = Math.max(0, Math.min(want, cap));
  const same = sql`webhook_host_windows.window_start >= excluded.window_start`;
  const grant = sql`(case when webhook_host_windows.sent >= ${cap} then 0 when webhook_host_windows.sent + ${want} <= ${cap} then ${want} else ${cap} - webhook_host_windows.sent end)`;
  const r = await sql<{ last_grant: number }>`
    insert into webhook_host_windows (host, window_start, sent, last_grant) values (${host}, ${windowStart}, ${first}, ${first})
    on conflict (host) do update set
      last_grant = case when ${same} then ${grant} else excluded.sent end,
      sent = case when ${same} then webhook_host_windows.sent + ${grant} else excluded.sent end,
      window_start = case when ${same} then webhook_host_windows.window_start else excluded.window_start end
    returning last_grant`.execute(db);
  return Number(r.rows[0]?.last_grant ?? 0);
}

/** Give back sends taken but not made (a failure held the queue, or the sender stopped), while their minute lasts. */
export async function returnHostSends(db: Db, host: string, windowStart: string, n: number): Promise<void> {
  if (n <= 0) return;
  await db
    .updateTable('webhook_host_windows')
    .set({ sent: sql<number>`case when sent > ${n} then sent - ${n} else 0 end` })
    .where('host', '=', host)
    .where('window_start', '=', windowStart)
    .execute();
}

/**
 * The host's minute is spent: the endpoint's deliveries due before `until` wait until then (not attempted, so not
 * counted as failures nor towards the 24-hour window, which starts at a delivery's first attempt).
 */
export async function deferQueue(db: Db, webhookId: number, until: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: until })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<', until)
    .execute();
}

/** Forget the counts of minutes long gone (one row per host ever sent to would otherwise stay). */
export async function pruneHostWindows(db: Db, before: string): Promise<void> {
  await db.deleteFrom('webhook_host_windows').where('window_start', '<', before).execute();
}

// ---------------------------------------------------------------------------------------------------------------
// Retention.

/** Finished deliveries (and their attempts) older than `before` are forgotten. */
export async function pruneFinished(db: Db, before: string): Promise<number> {
  const r = await db
    .deleteFrom('webhook_deliveries')
    .where('status', 'in', ['succeeded', 'failed'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * A new secret; the old one stays valid until `previousExpiresAt` (one rotation at a time: rotating again during an
 * overlap retires the older secret at once).
 */
export async function rotateSecret(db: Db, accountId: number, id: number, secret: string, previousExpiresAt: string, now: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({ previous_secret: eb.ref('secret'), secret, previous_secret_expires_at: previousExpiresAt, updated_at: now }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

// ---------------------------------------------------------------------------------------------------------------
// Operators: how far behind the relay is (readiness and metrics).

/** Events not yet fanned out (counted up to `cap`, so a huge backlog costs no more than a bounded read) and the
 * commit time of the oldest; served by the partial index on unrelayed events. */
export async function outboxBacklog(db: Db, cap = 10_000): Promise<{ events: number; oldestAt: string | null }> {
  const ids = db.selectFrom('events').select('id').where('relayed_at', 'is', null).orderBy('id').limit(cap).as('u');
  const count = await db.selectFrom(ids).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const oldest = await db.selectFrom('events').select('created_at').where('relayed_at', 'is', null).orderBy('id').limit(1).executeTakeFirst();
  return { events: Number(count.n), oldestAt: oldest?.created_at ?? null };
}

/** Deliveries waiting to be sent to enabled endpoints, and the oldest one's creation time. */
export async function pendingDeliveries(db: Db): Promise<{ deliveries: number; oldestAt: string | null }> {
  const r = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { deliveries: Number(r.n), oldestAt: (r.oldest as string | null) ?? null };
}

// ---------------------------------------------------------------------------------------------------------------
// Replays.

export async function insertReplay(db: Db, row: { webhook_id: number; since: string; requested_at: string }): Promise<number> {
  return (await db.insertInto('webhook_replays').values({ ...row, done_at: null, events: null }).returning('id').executeTakeFirstOrThrow()).id;
}

export const findReplay = (db: Db, webhookId: number, id: number) =>
  db.selectFrom('webhook_replays').selectAll().where('webhook_id', '=', webhookId).where('id', '=', id).executeTakeFirst();

export const pendingReplays = (db: Db, limit: number) =>
  db.selectFrom('webhook_replays').selectAll().where('done_at', 'is', null).orderBy('id').limit(limit).execute();

/** The endpoint a replay is for, as the fan-out reads endpoints. */
export const replayTarget = (db: Db, webhookId: number) =>
  db.selectFrom('webhooks').select(['id', 'account_id', 'publisher_id', 'format', 'events', 'enabled', 'from_event_id']).where('id', '=', webhookId).executeTakeFirst();

/**
 * Events since a time, after an endpoint's first event, oldest first. A publication's endpoint: its publisher's, and
 * panel statements'. A person's own (`publisherId` null): the events about them, and notices on pages that name them
 * now or named them when the endpoint was sent the notice.
 */
export const eventsSince = (
  db: Db,
  target: { webhookId: number; publisherId: number | null; accountId: number },
  since: string,
  fromEventId: number,
  afterId: number,
  limit: number,
) =>
  db
    .selectFrom('events')
    .selectAll()
    .where('created_at', '>=', since)
    .where('id', '>', Math.max(fromEventId, afterId))
    .where((eb) =>
      target.publisherId !== null
        ? eb.or([eb('publisher_id', '=', target.publisherId), eb('type', '=', 'panel.updated')])
        : eb.or([
            eb('account_id', '=', target.accountId),
            eb.and([
              eb('type', '=', 'page.notice'),
              eb.or([
                eb('page_id', 'in', eb.selectFrom('contributions').select('page_id').where('account_id', '=', target.accountId)),
                eb('id', 'in', eb.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', target.webhookId)),
              ]),
            ]),
          ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();

/** Queue deliveries again as replays: a row that exists is made pending now (attempt counters kept), else added. */
export async function queueReplays(db: Db, rows: { webhook_id: number; event_id: number; event_type: EventType; body: string; status: DeliveryStatus; now: string }[]): Promise<void> {
  for (const r of rows) {
    const updated = await db
      .updateTable('webhook_deliveries')
      .set({ status: r.status, replay: 1, body: r.body, next_attempt_at: r.now, retry_step: 0, first_attempt_at: null, updated_at: r.now })
      .where('webhook_id', '=', r.webhook_id)
      .where('event_id', '=', r.event_id)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) continue;
    await db
      .insertInto('webhook_deliveries')
      .values({ webhook_id: r.webhook_id, event_id: r.event_id, event_type: r.event_type, body: r.body, status: r.status, replay: 1, next_attempt_at: r.now, created_at: r.now, updated_at: r.now })
      .execute();
  }
}

export async function finishReplay(db: Db, id: number, events: number, now: string): Promise<void> {
  await db.updateTable('webhook_replays').set({ done_at: now, events }).where('id', '=', id).execute();
}
