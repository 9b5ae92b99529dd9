// An endpoint is disabled for failing over time, not for a burst of failures. `failing_since` is when the
// endpoint's current run of failed scheduled attempts began (null while its last scheduled attempt got through).
// Endpoints failing now (from before this migration) start their run at their last failure: the span counts from
// what the database knows.
import { sql } from 'kysely';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('failing_since', 'text').execute();
  await db
    .updateTable('webhooks')
    .set({ failing_since: sql`last_failure_at` })
    .where('consecutive_failures', '>', 0)
    .execute();
}
