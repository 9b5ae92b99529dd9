// Verifiable credentials of accepted contributions (docs/credentials.md). Each issued credential's row holds only
// what presenting it again and its status need: the contribution, the holder's choice of identifier (and the salt
// of an e-mail hash, never the hash or the address), and its place in the status lists. Whether its bit is set is
// not stored: the status lists are computed from the record (contributions, notices, decisions) when served.
// Erasure deletes the rows; an allocated index without a row reads as revoked, so indexes are never reused: the
// counter lives in its own row, not in max(status_index).
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('issued_credentials'), dialect)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // No foreign key: a withdrawn contribution leaves `contributions`, and its credential must then read as revoked.
    .addColumn('contribution_id', 'integer', notNull)
    // `profile` (the person's profile URL) or `email_hash` (a salted SHA-256 of the address, Open Badges' IdentityObject).
    .addColumn('holder', 'text', notNull)
    .addColumn('salt', 'text')
    .addColumn('status_index', 'integer', (c) => c.notNull().unique())
    .addColumn('issued_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('issued_credentials_one').unique().on('issued_credentials').columns(['contribution_id', 'account_id', 'holder']).execute();
  await db.schema
    .createTable('credential_status_counter')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('next_index', 'integer', notNull)
    .execute();
  await db.insertInto('credential_status_counter').values({ id: 1, next_index: 0 }).execute();
}
