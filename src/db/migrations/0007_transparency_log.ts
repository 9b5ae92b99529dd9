// The transparency log: a Merkle tree over the ordered log of public changes (`changes`, 0006), its
// signed checkpoints, and each public record's link to its entry.
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

const EMPTY_ROOT = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex');

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  // Every complete subtree of the tree, by level (0 = leaves) and index: leaves [index·2^level, (index+1)·2^level).
  // Written once, when the subtree's last leaf is appended, and never changed.
  await db.schema
    .createTable('log_nodes')
    .addColumn('level', 'integer', notNull)
    .addColumn('idx', 'bigint', notNull)
    .addColumn('hash', bytes, notNull)
    .addPrimaryKeyConstraint('log_nodes_pk', ['level', 'idx'])
    .execute();

  // One row: how many entries of `changes` the tree holds, and its root. The sequencer locks this row to append,
  // so one process appends at a time on either database.
  await db.schema
    .createTable('log_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('tree_size', 'bigint', notNull)
    .addColumn('root_hash', bytes, notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db
    .insertInto('log_state')
    .values({ id: 1, tree_size: 0, root_hash: EMPTY_ROOT, updated_at: new Date(0).toISOString() })
    .execute();

  // Every checkpoint issued: a signed note (C2SP tlog-checkpoint). `verifier_key` is the public key that signed it (in
  // the note key format), so a rotation stays visible in the history.
  await withId(db.schema.createTable('log_checkpoints'), dialect)
    .addColumn('tree_size', 'bigint', notNull)
    .addColumn('root_hash', bytes, notNull)
    .addColumn('verifier_key', 'text', notNull)
    .addColumn('note', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('log_checkpoints_size').on('log_checkpoints').columns(['tree_size', 'verifier_key']).execute();

  // The log entry that made each public record, written in the same transaction as the entry itself.
  await db.schema.alterTable('contributions').addColumn('log_seq', 'bigint').execute();
  await db.schema.alterTable('panel_versions').addColumn('log_seq', 'bigint').execute();
}
