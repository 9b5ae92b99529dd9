// Requests, submissions and their decisions; per-topic reputation.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, float, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('requests'), dialect)
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('brief', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', notNull)
    .addColumn('created_by', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('taken_by', 'integer', (c) => c.references('accounts.id'))
    .addColumn('taken_at', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('requests_publisher').on('requests').columns(['publisher_id', 'id']).execute();
  await db.schema.createIndex('requests_market').on('requests').columns(['status', 'topic', 'kind', 'id']).execute();

  await withId(db.schema.createTable('submissions'), dialect)
    .addColumn('page_id', 'integer', (c) => c.notNull().references('pages.id').onDelete('cascade'))
    // The page's publisher, kept on the row so the publisher's inbox is one indexed read.
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
    .addColumn('request_id', 'integer', (c) => c.references('requests.id').onDelete('set null'))
    .addColumn('kind', 'text', notNull)
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('before_text', 'text')
    .addColumn('after_text', 'text')
    .addColumn('reason', 'text', notNull)
    .addColumn('sources', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', notNull)
    .addColumn('decided_by', 'integer', (c) => c.references('accounts.id'))
    .addColumn('decided_at', 'text')
    .addColumn('decision_note', 'text')
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('submissions_inbox').on('submissions').columns(['publisher_id', 'status', 'id']).execute();
  await db.schema.createIndex('submissions_account').on('submissions').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('submissions_request').on('submissions').column('request_id').execute();

  await db.schema
    .alterTable('contributions')
    .addColumn('submission_id', 'integer', (c) => c.references('submissions.id'))
    .execute();
  // One public record per accepted submission, whatever two concurrent accepts try.
  await db.schema
    .createIndex('contributions_one_per_submission')
    .unique()
    .on('contributions')
    .column('submission_id')
    .where(sql.ref('submission_id'), 'is not', null)
    .execute();

  // Expertise per account and topic: declared topics (weight 0) and the weighted accepted work in each.
  await db.schema
    .createTable('account_topics')
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('topic', 'text', notNull)
    .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('accepted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('authority', float(dialect), (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('account_topics_pk', ['account_id', 'topic'])
    .execute();
  await db.schema.createIndex('account_topics_rank').on('account_topics').columns(['topic', 'authority']).execute();
}
