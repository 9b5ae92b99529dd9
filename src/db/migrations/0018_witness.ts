// Witnesses and watching: the cosignatures witnesses gave this log's checkpoints, what each witness holds of this log,
// and (when this service is itself a witness for other logs) the newest checkpoint it cosigned for each. Nothing
// personal: origins, tree sizes, hashes, public keys and signatures.
import type { Dialect } from '../client.js';
import { type AnyDb, notNull } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  // One cosignature (a note signature line, C2SP tlog-cosignature) per witness and checkpoint of this log. Keyed by
  // origin and root as well as size: a log restarted under a new origin never inherits an old tree's cosignatures.
  await db.schema
    .createTable('log_cosignatures')
    .addColumn('origin', 'text', notNull)
    .addColumn('tree_size', 'bigint', notNull)
    .addColumn('root_hash', bytes, notNull)
    .addColumn('witness_key', 'text', notNull)
    .addColumn('line', 'text', notNull)
    .addColumn('signed_at', 'bigint', notNull)
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('log_cosignatures_pk', ['origin', 'tree_size', 'witness_key'])
    .execute();
  // The tree size each witness last cosigned for this log (what `old` must say in the next add-checkpoint).
  await db.schema
    .createTable('log_witness_state')
    .addColumn('witness_key', 'text', notNull)
    .addColumn('origin', 'text', notNull)
    .addColumn('tree_size', 'bigint', notNull)
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'text', notNull)
    .addPrimaryKeyConstraint('log_witness_state_pk', ['witness_key', 'origin'])
    .execute();
  // As a witness (`WITNESS_LOGS`): the newest checkpoint cosigned for each log it watches.
  await db.schema
    .createTable('witnessed_logs')
    .addColumn('origin', 'text', (c) => c.primaryKey())
    .addColumn('tree_size', 'bigint', notNull)
    .addColumn('root_hash', bytes, notNull)
    .addColumn('note', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  // Watching the change feed by contributor, publication or domain reads by these columns.
  await db.schema.createIndex('changes_account_seq').on('changes').columns(['account_id', 'seq']).execute();
  await db.schema.createIndex('changes_publisher_seq').on('changes').columns(['publisher_id', 'seq']).execute();
  await db.schema.createIndex('changes_page_seq').on('changes').columns(['page_id', 'seq']).execute();
}
