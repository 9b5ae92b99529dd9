// Confirmed addresses, password resets and notices, sent from an outbox.
// - `accounts.email_confirmed_at`: when the address was confirmed (null: not yet; see docs/decisions/sign-up-and-email-confirmation.md for what an
//   unconfirmed account cannot do). Accounts made before this migration signed up under the old rules and are taken
//   as confirmed; `accounts.locale`: the language of the account's mail ('en' unless the service learnt another).
// - `username_holds`: a username named in a sign-up for an address that already had an account is held as though
//   the sign-up had made one, so a second sign-up cannot tell the two cases apart.
// - `mail_tokens`: single-use links (confirm an address, reset a password), kept as SHA-256 hashes.
// - `mail_outbox`: one row per message, written in the transaction of the change that causes it; sent by the mail
//   job (jobs/mail.ts) under a lease, with retries and backoff, keeping its Message-ID across attempts.
// - `mail_preferences`: the notice kinds an account turned off; `api_keys.expiry_notice_at`: the key's owner was told
//   it expires within 7 days.
// Every row naming an address or a person is keyed by account id (erasure deletes them with the account).
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('email_confirmed_at', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('locale', 'text', (c) => c.notNull().defaultTo('en')).execute();
  await db.updateTable('accounts').set((eb) => ({ email_confirmed_at: eb.ref('created_at') })).execute();

  await db.schema
    .createTable('username_holds')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('mail_tokens'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // `confirm` (an address: the account's, or the new one of an address change) or `reset` (a password).
    .addColumn('purpose', 'text', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // The address a `confirm` link confirms (an address change's new one); null for resets.
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('mail_tokens_account').on('mail_tokens').columns(['account_id', 'purpose']).execute();

  await withId(db.schema.createTable('mail_outbox'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('to_address', 'text', notNull)
    .addColumn('locale', 'text', notNull)
    // Notices about the same thing share a thread; one not yet sent takes the next one's facts (joined).
    .addColumn('thread', 'text')
    // JSON array: one entry per fact the message tells (several once notices are joined).
    .addColumn('facts', 'text', notNull)
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    // `pending`, `sent`, `failed` (gave up after the last retry).
    .addColumn('status', 'text', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', notNull)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_outbox_thread').on('mail_outbox').columns(['account_id', 'thread', 'status']).execute();

  // When the key's owner was told it expires within 7 days (once a key).
  await db.schema.alterTable('api_keys').addColumn('expiry_notice_at', 'text').execute();
  await db.schema.createIndex('api_keys_expiring').on('api_keys').columns(['expires_at']).execute();

  await db.schema
    .createTable('mail_preferences')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .addPrimaryKeyConstraint('mail_preferences_pk', ['account_id', 'kind'])
    .execute();
}
