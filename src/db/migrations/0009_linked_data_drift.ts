// Fact-check claims and verdicts, quotes of the page, and the page version work applies to (drift).
// Submissions keep what the contributor proposed; accepting copies it onto the contribution, as change_from/to
// already are, so a record is still read without a join to submissions.
import type { Dialect } from '../client.js';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb, _dialect: Dialect): Promise<void> {
  for (const table of ['submissions', 'contributions']) {
    await db.schema.alterTable(table).addColumn('quote_exact', 'text').execute();
    await db.schema.alterTable(table).addColumn('quote_prefix', 'text').execute();
    await db.schema.alterTable(table).addColumn('quote_suffix', 'text').execute();
    await db.schema.alterTable(table).addColumn('claim', 'text').execute();
    // 1 (false) to 5 (true): docs/decisions/linked-data.md, the verdict scale.
    await db.schema.alterTable(table).addColumn('verdict', 'integer').execute();
  }
  // The page's current version: sha256 of its normalised text, when the service last learnt it, and when the
  // text last changed (null until it changes once).
  await db.schema.alterTable('pages').addColumn('content_hash', 'text').execute();
  await db.schema.alterTable('pages').addColumn('content_seen_at', 'text').execute();
  await db.schema.alterTable('pages').addColumn('content_changed_at', 'text').execute();
  // The version the work applies to; when the page changed after it; a correction whose new text is gone (1),
  // still there (0) or unknown (null: only a hash was given).
  await db.schema.alterTable('contributions').addColumn('page_hash', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('page_changed_at', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('correction_missing', 'integer').execute();
}
