// Webhooks (SPEC §10): endpoints, one delivery per event and endpoint, every attempt, and the outbox's own mark of
// which events the relay has fanned out.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  // An endpoint. The signing secret is kept as written (it signs every delivery, so a hash would not do); the
  // previous one stays valid until `previous_secret_expires_at` after a rotation. `from_event_id` is the newest
  // event when the endpoint was made: older events are not sent to it. The lease says which relay process is
  // sending to it now, so two processes never send to one endpoint at once (that would break the order).
  await withId(db.schema.createTable('webhooks'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('format', 'text', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('events', 'text', notNull)
    .addColumn('secret', 'text', notNull)
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_failure_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('from_event_id', 'integer', (c) => c.notNull().defaultTo(0))
    // When the head of the endpoint's queue is due (null: nothing queued). `wake_seq` grows with every new
    // delivery, so a sender that found the queue empty cannot clear `next_due_at` over a delivery it did not see.
    .addColumn('next_due_at', 'text')
    .addColumn('wake_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('webhooks_account').on('webhooks').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('webhooks_publisher').on('webhooks').column('publisher_id').execute();
  // The relay's question, many times a second: which enabled endpoints have something due now.
  await db.schema
    .createIndex('webhooks_due')
    .on('webhooks')
    .column('next_due_at')
    .where(sql.ref('enabled'), '=', 1)
    .execute();
  // One /v1 endpoint per publisher (SPEC §10), whatever two registrations at once try.
  await db.schema
    .createIndex('webhooks_one_v1')
    .unique()
    .on('webhooks')
    .column('publisher_id')
    .where(sql.ref('format'), '=', 'v1')
    .execute();

  // One delivery per event and endpoint: the body is built once, so every retry sends the same bytes.
  // status: pending (queued or retrying), held (the endpoint is disabled), succeeded, failed (gave up after 24 h).
  await withId(db.schema.createTable('webhook_deliveries'), dialect)
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id'))
    .addColumn('event_type', 'text', notNull)
    .addColumn('body', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // Failed attempts since the retry window opened; the index into the schedule.
    .addColumn('retry_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_attempt_at', 'text')
    .addColumn('next_attempt_at', 'text', notNull)
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('delivered_at', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  // The fan-out may run twice over one event (a crash between its steps): the second insert is a no-op.
  await db.schema
    .createIndex('webhook_deliveries_once')
    .unique()
    .on('webhook_deliveries')
    .columns(['webhook_id', 'event_id'])
    .execute();
  // An endpoint's queue in order, and its pending count.
  await db.schema
    .createIndex('webhook_deliveries_queue')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'status', 'event_id'])
    .execute();

  // Every attempt, with the first 1 KB of the answer as text.
  await withId(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', notNull)
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', notNull)
    .addColumn('success', 'integer', notNull)
    .addColumn('error', 'text')
    .addColumn('response_body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('manual', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('webhook_attempts_log').on('webhook_attempts').columns(['webhook_id', 'id']).execute();
  await db.schema.createIndex('webhook_attempts_recent').on('webhook_attempts').columns(['webhook_id', 'attempted_at']).execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();

  // One row per relay step that must run in one process at a time (the fan-out): on PostgreSQL a process takes
  // the row with FOR UPDATE SKIP LOCKED, so fan-outs never interleave and an endpoint's deliveries stay in order.
  await db.schema
    .createTable('webhook_relay')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.insertInto('webhook_relay').values({ name: 'fanout', updated_at: new Date().toISOString() }).execute();

  // The outbox learns which events have been fanned out. A column rather than a cursor: on PostgreSQL ids are
  // taken before commit, so a lower id can commit after a higher one and a cursor would step over it for good.
  await db.schema.alterTable('events').addColumn('relayed_at', 'text').execute();
  // Events written before this migration predate every endpoint.
  await db.updateTable('events').set({ relayed_at: sql`created_at` }).execute();
  await db.schema
    .createIndex('events_unrelayed')
    .on('events')
    .column('id')
    .where(sql.ref('relayed_at'), 'is', null)
    .execute();
}
