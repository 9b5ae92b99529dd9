// The change log: one ordered, immutable entry per change to public data, written in the transaction of
// the change. `seq` is the cursor: gapless from 1 and in commit order (appendChange assigns it under a lock), so
// the transparency log can use seq − 1 as its leaf index and `body` as its leaf. Entries are never updated or
// deleted; no foreign keys, so an entry outlives anything it names.
import type { Dialect } from '../client.js';
import { type AnyDb, notNull } from './helpers.js';

export async function up(db: AnyDb, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('changes')
    .addColumn('seq', 'integer', (c) => c.primaryKey())
    .addColumn('created_at', 'text', notNull)
    .addColumn('kind', 'text', notNull)
    .addColumn('page_id', 'integer')
    .addColumn('account_id', 'integer')
    .addColumn('publisher_id', 'integer')
    .addColumn('panel_id', 'text')
    // The exact canonical JSON of the public entry (keys sorted, no whitespace), as the feed shows it.
    .addColumn('body', 'text', notNull)
    .execute();
}
