// Notices a publisher attaches to one of its pages (retraction, expression of concern,
// withdrawal, ...), each with its date, reason and optional link to the notice itself. Notices are never edited or
// deleted: a reinstatement is a new notice, so a page's history stays whole (docs/decisions/page-notices.md).
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('page_notices'), dialect)
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    // One of NOTICE_TYPES (src/domain/pages/notices.ts).
    .addColumn('type', 'text', notNull)
    // The notice's own date (YYYY-MM-DD), as the publisher gives it; `created_at` is when Credence learnt of it.
    .addColumn('notice_date', 'text', notNull)
    .addColumn('reason', 'text', notNull)
    .addColumn('notice_url', 'text')
    .addColumn('created_at', 'text', notNull)
    // The change-log entry that published it.
    .addColumn('log_seq', 'integer')
    .execute();
  // The record reads a page's notices newest first.
  await db.schema.createIndex('page_notices_page').on('page_notices').columns(['page_id', 'notice_date', 'id']).execute();

  // A contributor's declared interests: an organisation, a publication or a topic, with its kind (employment,
  // funding, ownership, personal). Keyed by the account (erasure deletes them with it). Ending one keeps the row
  // (`ended_at`): proofs of work accepted while it was held go on showing it.
  await withId(db.schema.createTable('declared_interests'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // `organisation`, `publication`, `topic`.
    .addColumn('subject', 'text', notNull)
    // The organisation's name, the normalised topic, or the publication's name when it was declared.
    .addColumn('name', 'text', notNull)
    .addColumn('publisher_id', 'integer', (c) => c.references('publishers.id').onDelete('cascade'))
    // `employment`, `funding`, `ownership`, `personal`.
    .addColumn('kind', 'text', notNull)
    .addColumn('note', 'text', notNull)
    .addColumn('declared_at', 'text', notNull)
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('declared_interests_account').on('declared_interests').columns(['account_id', 'id']).execute();
  // The pages a panel statement version cites (its sources, by URL), found again by their lookup key (SPEC §3) when
  // the page is corrected, retracted or changes; and the review flags raised on a version. A new version has none.
  await db.schema
    .createTable('panel_sources')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('panel_versions.id').onDelete('cascade'))
    .addColumn('position', 'integer', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('lookup_key', 'text', notNull)
    .addPrimaryKeyConstraint('panel_sources_pk', ['version_id', 'position'])
    .execute();
  await db.schema.createIndex('panel_sources_lookup').on('panel_sources').columns(['lookup_key', 'version_id']).execute();
  await withId(db.schema.createTable('panel_flags'), dialect)
    .addColumn('version_id', 'integer', (c) => c.notNull().references('panel_versions.id').onDelete('cascade'))
    // `source_corrected`, `source_retracted`, `source_concern`, `source_changed`.
    .addColumn('reason', 'text', notNull)
    .addColumn('source_url', 'text', notNull)
    .addColumn('page_id', 'integer')
    // Where to read what happened: the correction's proof, the page's record.
    .addColumn('link', 'text', notNull)
    .addColumn('flagged_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('panel_flags_version').on('panel_flags').columns(['version_id', 'id']).execute();

  // Webhook replay from a point in time or a change-log cursor: the owner's request, carried out by the
  // relay (which builds each format's payloads); a replayed delivery is marked, and its attempts say so in a header.
  await withId(db.schema.createTable('webhook_replays'), dialect)
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('since', 'text', notNull)
    .addColumn('requested_at', 'text', notNull)
    .addColumn('done_at', 'text')
    .addColumn('events', 'integer')
    .execute();
  await db.schema.createIndex('webhook_replays_pending').on('webhook_replays').columns(['done_at', 'id']).execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('replay', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema.createIndex('declared_interests_publisher').on('declared_interests').columns(['publisher_id', 'account_id']).execute();
}
