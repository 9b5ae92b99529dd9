// Reports, decisions with their statements of reasons, appeals (docs/trust-and-safety.md, DSA Art. 16, 17, 20, 22,
// 23). What a notifier wrote and who they are stays in `reports` and is never in the log; what a decision withheld
// stays in `withheld_texts`, a table no public route reads, until the appeal window closes.
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  // Trusted flaggers (Art. 22): an account an operator named, its notices read first.
  await db.schema
    .createTable('trusted_flaggers')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('organisation', 'text', notNull)
    .addColumn('added_by', 'integer')
    .addColumn('created_at', 'text', notNull)
    .execute();

  await withId(db.schema.createTable('moderation_decisions'), dialect)
    // The item decided on: its kind, id and field (null: the whole item, or an account).
    .addColumn('item_kind', 'text', notNull)
    .addColumn('item_id', 'integer', notNull)
    .addColumn('field', 'text')
    // `no_action`, `restrict_field`, `remove_item`, `suspend_account`, `restore` (an appeal reversed the first).
    .addColumn('type', 'text', notNull)
    .addColumn('category', 'text', notNull)
    // The statement of reasons (Art. 17): `illegal` or `incompatible` with the terms, the law or clause, the facts.
    .addColumn('ground', 'text', notNull)
    .addColumn('legal_reference', 'text')
    .addColumn('terms_clause', 'text')
    .addColumn('facts', 'text', notNull)
    .addColumn('automated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('operator_id', 'integer', notNull)
    // Whose text it was, and the page it shows on: who gets the statement, which answers to purge.
    .addColumn('affected_account_id', 'integer')
    .addColumn('page_id', 'integer')
    .addColumn('appeal_of', 'integer')
    .addColumn('decided_at', 'text', notNull)
    .addColumn('appeal_until', 'text')
    .addColumn('log_seq', 'integer')
    .execute();
  await db.schema.createIndex('moderation_decisions_item').on('moderation_decisions').columns(['item_kind', 'item_id']).execute();

  await withId(db.schema.createTable('reports'), dialect)
    // A reference the notifier is given (`R-` and 10 letters): their way to find the report again, not a secret.
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('item_kind', 'text', notNull)
    .addColumn('item_id', 'integer', notNull)
    .addColumn('field', 'text')
    .addColumn('category', 'text', notNull)
    .addColumn('explanation', 'text', notNull)
    .addColumn('notifier_name', 'text')
    .addColumn('notifier_email', 'text')
    .addColumn('notifier_account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    // `anonymous`, `account`, `trusted_flagger`: how the notice came, as the transparency counts group it.
    .addColumn('source', 'text', notNull)
    .addColumn('good_faith', 'integer', notNull)
    .addColumn('locale', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('decision_id', 'integer', (c) => c.references('moderation_decisions.id'))
    // Found manifestly unfounded by the decision (Art. 23).
    .addColumn('unfounded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('decided_at', 'text')
    .execute();
  await db.schema.createIndex('reports_open').on('reports').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('reports_item').on('reports').columns(['item_kind', 'item_id']).execute();

  await withId(db.schema.createTable('appeals'), dialect)
    .addColumn('decision_id', 'integer', (c) => c.notNull().references('moderation_decisions.id'))
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    // `affected` (whose text it was) or `notifier`.
    .addColumn('appellant', 'text', notNull)
    .addColumn('explanation', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('decided_by', 'integer')
    .addColumn('decided_at', 'text')
    // `upheld` or `reversed`; the decision that says so.
    .addColumn('outcome', 'text')
    .addColumn('outcome_decision_id', 'integer')
    .execute();

  // A notifier's record (Art. 23): keyed by account (`account:<id>`) or by the address's SHA-256 (`email:<hash>`).
  await db.schema
    .createTable('notifier_standing')
    .addColumn('notifier', 'text', (c) => c.primaryKey())
    .addColumn('unfounded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('warned_at', 'text')
    .addColumn('suspended_until', 'text')
    .addColumn('updated_at', 'text', notNull)
    .execute();

  // Accounts suspended by a decision, until when.
  await db.schema
    .createTable('account_suspensions')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('decision_id', 'integer', notNull)
    .addColumn('until', 'text', notNull)
    .execute();

  // What a decision took out of a stored row, byte for byte, to put back if an appeal reverses it; deleted (and the
  // space scrubbed) once the appeal window has closed. No public route reads this table.
  await withId(db.schema.createTable('withheld_texts'), dialect)
    .addColumn('decision_id', 'integer', (c) => c.notNull().references('moderation_decisions.id'))
    .addColumn('table_name', 'text', notNull)
    .addColumn('column_name', 'text', notNull)
    .addColumn('row_id', 'integer', notNull)
    .addColumn('text', 'text', notNull)
    .addColumn('delete_after', 'text', notNull)
    .execute();
  await db.schema.createIndex('withheld_texts_decision').on('withheld_texts').column('decision_id').execute();
}
