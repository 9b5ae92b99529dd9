// Who asserted each public contribution and how its person agreed; a publisher naming an author
// is a claim until the person confirms it; a person can take their name back (the row moves out of
// `contributions`, so every public read stays as it is), refuse a publication's claims, or let one publish them.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  // `publisher` (named by a publication), `contributor` (submitted by the person), `operator`. Work that came from a
  // submission was agreed by submitting it.
  await db.schema.alterTable('contributions').addColumn('asserted_by', 'text', (c) => c.notNull().defaultTo('publisher')).execute();
  // `confirmed`, `standing_permission`, `submitted`, `operator`. Every named authorship before this migration was
  // published without asking; it becomes a pending claim below and leaves the public record until confirmed.
  await db.schema.alterTable('contributions').addColumn('consent', 'text', (c) => c.notNull().defaultTo('confirmed')).execute();
  await db.updateTable('contributions').set({ asserted_by: 'contributor', consent: 'submitted' }).where('submission_id', 'is not', null).execute();

  // One claim per page and person, whatever its state: a declined claim is why the publication cannot name them
  // on that page again.
  await withId(db.schema.createTable('author_claims'), dialect)
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // `pending`, `confirmed`, `declined`.
    .addColumn('state', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('decided_at', 'text')
    .execute();
  await db.schema.createIndex('author_claims_one').unique().on('author_claims').columns(['page_id', 'account_id']).execute();
  await db.schema.createIndex('author_claims_person').on('author_claims').columns(['account_id', 'state', 'id']).execute();
  await db.schema.createIndex('author_claims_publisher').on('author_claims').columns(['publisher_id', 'created_at']).execute();

  // A person's standing answers to one publication: `refuse` (no claims from it at all) or `permit` (its claims
  // publish at once; members only).
  await db.schema
    .createTable('claim_preferences')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('preference', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('claim_preferences_pk', ['account_id', 'publisher_id'])
    .execute();

  // Work whose person took their name back: what the withdrawal entry said, kept for the person and the publisher;
  // never read by a public route.
  await db.schema
    .createTable('withdrawn_contributions')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', notNull)
    .addColumn('accepted_at', 'text', notNull)
    .addColumn('withdrawn_at', 'text', notNull)
    .addColumn('log_seq', 'integer')
    .execute();
  await db.schema.createIndex('withdrawn_contributions_account').on('withdrawn_contributions').columns(['account_id', 'id']).execute();

  // Existing named authorships were never agreed to: marked `not_asked` here, then taken off the public record
  // through the domain's own path when the service starts (a claim to confirm, and a public entry saying so:
  // docs/decisions/consent-to-be-named.md), so the feed, the log, the caches and the scores all see it.
  await db.updateTable('contributions').set({ consent: 'not_asked' }).where('role', '=', 'author').where('submission_id', 'is', null).execute();
  // Every start looks for them (consent.service `retractNotAsked`): a partial index keeps that look one probe, not a
  // scan of every contribution, once there are none left.
  await db.schema.createIndex('contributions_not_asked').on('contributions').column('id').where(sql.ref('consent'), '=', 'not_asked').execute();
}
