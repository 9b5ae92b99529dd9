// Log-in throttling by account and address together and by address, and invitations to a
// publication that the invited person accepts (membership needs their consent).
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  // One row per throttled key (`pair:<account hash>:<address>` or `ip:<address>`): failures in a row and when the
  // next attempt may come. Shared by every instance through the database.
  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', notNull)
    .addColumn('last_failure_at', 'text', notNull)
    .addColumn('locked_until', 'text')
    .execute();
  await db.schema.createIndex('login_throttle_age').on('login_throttle').column('last_failure_at').execute();

  await withId(db.schema.createTable('publisher_invitations'), dialect)
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', notNull)
    .addColumn('invited_by', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', notNull)
    .execute();
  // One pending invitation per person and publication; the invitee's list is one indexed read.
  await db.schema.createIndex('publisher_invitations_one').unique().on('publisher_invitations').columns(['publisher_id', 'account_id']).execute();
  await db.schema.createIndex('publisher_invitations_invitee').on('publisher_invitations').columns(['account_id', 'id']).execute();
}
