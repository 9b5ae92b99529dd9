// The contributor directory by topic reads the top of one topic's ranking: an index on (topic, authority,
// account_id) serves that order and its LIMIT without sorting every account in the topic (measured: bench/work.ts).
import type { Dialect } from '../client.js';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('account_topics_ranking').on('account_topics').columns(['topic', 'authority', 'account_id']).execute();
  await db.schema.dropIndex('account_topics_rank').execute();
}
