// The OAuth authorization server's storage (docs/decisions/oauth-authorization-server.md). `oauth_records` holds
// oidc-provider's models (clients, interactions, sessions, grants, codes, tokens) as its adapter asks: found by id, by
// `uid` (an interaction's session) or deleted by `grant_id`. A code's or token's id is its secret, so it is stored as
// its SHA-256 (`id_hash`), never as sent. `oauth_connections` is ours: one row per grant, what a person approved for
// which publication, listed on /me/security and the dashboard and revoked from there.
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', notNull)
    .addColumn('id_hash', 'text', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    // ISO 8601; null when the model does not expire (a registered client).
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').column('uid').execute();
  await db.schema.createIndex('oauth_records_expires').on('oauth_records').column('expires_at').execute();

  await withId(db.schema.createTable('oauth_connections'), dialect)
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('client_id', 'text', notNull)
    // Shown as the client registered them: the site's name and the host its codes go to.
    .addColumn('client_name', 'text', notNull)
    .addColumn('client_host', 'text', notNull)
    // Null for a connection with `profile:read` alone.
    .addColumn('publisher_id', 'integer', (c) => c.references('publishers.id').onDelete('cascade'))
    // Space-separated, as OAuth writes scopes.
    .addColumn('scopes', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_connections_account').on('oauth_connections').column('account_id').execute();
}
