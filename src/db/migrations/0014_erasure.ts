// Personal fields leave the change log's bytes for salted commitments, opened beside each entry
// until the person is erased; usernames of erased accounts are retired; the erasure list survives in the database.
// The entries written before this named people in clear, inside bytes the transparency log had hashed: they are
// rewritten here into the committed form, and the log restarts from the rewritten entries under a new origin (the
// old tree's nodes and checkpoints are dropped; docs/decisions/personal-data-as-commitments.md).
import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

const EMPTY_ROOT = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex');
// The personal fields of entries as they stood when this was written (change-log.ts, PERSONAL_FIELDS).
const PERSONAL = ['contributor'];

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('change_openings')
    .addColumn('seq', 'integer', notNull)
    // The JSON Pointer of the commitment in the entry's body (`/contributor`).
    .addColumn('pointer', 'text', notNull)
    // base64 of the 32-byte HMAC key.
    .addColumn('opening', 'text', notNull)
    // The committed value's canonical JSON.
    .addColumn('value', 'text', notNull)
    // Whom it names: no foreign key, so an erasure can run after the account row is gone and a restore can re-run it.
    .addColumn('account_id', 'integer', notNull)
    .addPrimaryKeyConstraint('change_openings_pk', ['seq', 'pointer'])
    .execute();
  await db.schema.createIndex('change_openings_account').on('change_openings').column('account_id').execute();

  await db.schema
    .createTable('retired_usernames')
    .addColumn('username_hash', 'text', (c) => c.primaryKey())
    .addColumn('retired_at', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('erasures'), dialect)
    .addColumn('account_id', 'integer', notNull)
    .addColumn('account_created_at', 'text', notNull)
    .addColumn('erased_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('erasures_account').unique().on('erasures').column('account_id').execute();

  await commitExistingEntries(db);

  await db.deleteFrom('log_nodes').execute();
  await db.deleteFrom('log_checkpoints').execute();
  await db.updateTable('log_state').set({ tree_size: 0, root_hash: EMPTY_ROOT, updated_at: new Date().toISOString() }).execute();
}

/** Rewrite every entry that names a person into the committed form, 500 entries at a time. */
export async function commitExistingEntries(db: AnyDb): Promise<void> {
  for (let after = 0; ; ) {
    const rows: { seq: number; account_id: number | null; body: string }[] = await db
      .selectFrom('changes')
      .select(['seq', 'account_id', 'body'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows.at(-1)!.seq);
    const openings: { seq: number; pointer: string; opening: string; value: string; account_id: number }[] = [];
    for (const row of rows) {
      const body = JSON.parse(row.body) as Record<string, unknown>;
      let changed = false;
      for (const field of PERSONAL) {
        const value = body[field];
        if (!value || typeof value !== 'object' || 'commitment' in value) continue;
        if (row.account_id === null) throw new Error(`migration 0014: entry ${row.seq} names a person but no account`);
        const opening = randomBytes(32);
        const canonical = canonicalJson(value);
        body[field] = { commitment: createHmac('sha256', opening).update(canonical).digest('base64') };
        openings.push({ seq: Number(row.seq), pointer: `/${field}`, opening: opening.toString('base64'), value: canonical, account_id: Number(row.account_id) });
        changed = true;
      }
      if (changed) await db.updateTable('changes').set({ body: canonicalJson(body) }).where('seq', '=', row.seq).execute();
    }
    if (openings.length > 0) await db.insertInto('change_openings').values(openings).execute();
  }
}
