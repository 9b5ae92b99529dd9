// The cache tier's purger. One row: which process holds the purger's lease, until when, and the change
// log's seq through which every entry's keys were purged at every node (twice: docs/cache.md). A process that takes
// the lease over goes on from there, so a purger that dies loses no purge.
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('cache_purger')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('holder', 'text')
    // ISO 8601, compared as text (as webhooks.lease_until).
    .addColumn('lease_until', 'text')
    .addColumn('seq', 'integer', (c) => c.notNull())
    .execute();
  // Starts at the log's end: nothing before the tier existed needs purging.
  const r = await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('max')).executeTakeFirst();
  await db.insertInto('cache_purger').values({ id: 1, holder: null, lease_until: null, seq: Number(r?.max ?? 0) }).execute();
}
