// Accounts, sessions, publishers, domains, API keys, pages, contributions and the event outbox.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, float, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('accounts'), dialect)
    .addColumn('email', 'text', notNull)
    .addColumn('username', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('topics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('password_hash', 'text', notNull)
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('trust_score', float(dialect), (c) => c.notNull().defaultTo(0))
    .addColumn('contribution_score', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('accepted_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rejected_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('level', 'text', (c) => c.notNull().defaultTo('newcomer'))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('accounts_email').unique().on('accounts').column('email').execute();
  await db.schema.createIndex('accounts_username').unique().on('accounts').column('username').execute();

  await withId(db.schema.createTable('sessions'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('sessions_token_hash').unique().on('sessions').column('token_hash').execute();

  await withId(db.schema.createTable('publishers'), dialect)
    .addColumn('slug', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('publishers_slug').unique().on('publishers').column('slug').execute();

  await db.schema
    .createTable('publisher_members')
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('publisher_members_pk', ['publisher_id', 'account_id'])
    .execute();
  await db.schema.createIndex('publisher_members_account').on('publisher_members').column('account_id').execute();

  await withId(db.schema.createTable('domains'), dialect)
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('domain', 'text', notNull)
    .addColumn('token', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('verified_at', 'text')
    .addColumn('verified_by', 'text')
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema
    .createIndex('domains_publisher_domain')
    .unique()
    .on('domains')
    .columns(['publisher_id', 'domain'])
    .execute();
  // One publisher at a time may hold a verified domain (SPEC §1): the database enforces it, not a read-then-write.
  await db.schema
    .createIndex('domains_verified_once')
    .unique()
    .on('domains')
    .column('domain')
    .where(sql.ref('status'), '=', 'verified')
    .execute();

  await withId(db.schema.createTable('api_keys'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.references('publishers.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('key_hash', 'text', notNull)
    .addColumn('prefix', 'text', notNull)
    .addColumn('last4', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_key_hash').unique().on('api_keys').column('key_hash').execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await withId(db.schema.createTable('pages'), dialect)
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('url', 'text', notNull)
    .addColumn('lookup_key', 'text', notNull)
    .addColumn('embed_key', 'text', notNull)
    .addColumn('host', 'text', notNull)
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('pages_lookup_key').unique().on('pages').column('lookup_key').execute();
  await db.schema.createIndex('pages_embed_key').on('pages').column('embed_key').execute();
  await db.schema.createIndex('pages_publisher').on('pages').columns(['publisher_id', 'id']).execute();

  await withId(db.schema.createTable('contributions'), dialect)
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('role', 'text', notNull)
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('change_from', 'text')
    .addColumn('change_to', 'text')
    .addColumn('accepted_at', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('contributions_page').on('contributions').columns(['page_id', 'accepted_at']).execute();
  await db.schema.createIndex('contributions_account').on('contributions').column('account_id').execute();
  // Naming an author twice on one page is one authorship, whatever the registration call repeats.
  await db.schema
    .createIndex('contributions_one_author')
    .unique()
    .on('contributions')
    .columns(['page_id', 'account_id'])
    .where(sql.ref('role'), '=', 'author')
    .execute();

  await withId(db.schema.createTable('events'), dialect)
    .addColumn('type', 'text', notNull)
    .addColumn('publisher_id', 'integer', (c) => c.references('publishers.id').onDelete('set null'))
    .addColumn('page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
    .addColumn('payload', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
}
