// Expert panels (SPEC §14): a statement, its immutable versions and each version's panellists.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  // The statement itself: its public id (a slug) and which version is current. `topic` and `updated_at` repeat the
  // current version's topic and issue time so that `GET /v1/panels?topic=` is one indexed read.
  await withId(db.schema.createTable('panel_statements'), dialect)
    .addColumn('slug', 'text', notNull)
    .addColumn('topic', 'text', notNull)
    .addColumn('current_version', 'integer', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('panel_statements_slug').unique().on('panel_statements').column('slug').execute();
  await db.schema.createIndex('panel_statements_topic').on('panel_statements').columns(['topic', 'updated_at']).execute();

  await withId(db.schema.createTable('panel_versions'), dialect)
    .addColumn('statement_id', 'integer', (c) => c.notNull().references('panel_statements.id').onDelete('cascade'))
    .addColumn('version', 'integer', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('topic', 'text', notNull)
    .addColumn('question', 'text', notNull)
    .addColumn('answer', 'text', notNull)
    .addColumn('certainty', 'text', notNull)
    .addColumn('vote_agree', 'integer', notNull)
    .addColumn('vote_dissent', 'integer', notNull)
    .addColumn('revisit_by', 'text', notNull)
    .addColumn('reopen_triggers', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('issued_at', 'text', notNull)
    .execute();
  // Two admins issuing the same next version at once: exactly one insert succeeds, the other is a 409.
  await db.schema
    .createIndex('panel_versions_statement_version')
    .unique()
    .on('panel_versions')
    .columns(['statement_id', 'version'])
    .execute();
  // At most one current version per statement, whatever a bug in the service might try.
  await db.schema
    .createIndex('panel_versions_one_issued')
    .unique()
    .on('panel_versions')
    .column('statement_id')
    .where(sql.ref('status'), '=', 'issued')
    .execute();

  // Panellists in the order the statement lists them. `account_id` links a panellist who has an account; the
  // name stays as the version printed it.
  await db.schema
    .createTable('panel_entries')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('panel_versions.id').onDelete('cascade'))
    .addColumn('position', 'integer', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('role', 'text', notNull)
    .addColumn('vote', 'text', notNull)
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .addPrimaryKeyConstraint('panel_entries_pk', ['version_id', 'position'])
    .execute();
  await db.schema.createIndex('panel_entries_account').on('panel_entries').column('account_id').execute();
}
