// Free text in the change log becomes salted commitments, opened beside each entry like person slots, so that a
// field removed after a report (or an appeal) is withheld by deleting its opening while every leaf hash and proof
// stays (docs/decisions/free-text-in-the-log.md). Each opening now records by reference what it opens: the object
// (`subject_kind`, `subject_id`) and its field, so removal finds it by reference, never by matching text; openings
// that open no person have no account (account_id becomes nullable). Withheld openings are kept, privately, for a
// restore; entries written before this hold their free text in clear inside signed bytes and cannot change, so a
// withholding of such text is a row of `withheld_fields` that every public read applies. Existing entries keep
// their bytes; their person slots are the whole profile of an account (`profile`, its id, no field).
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') {
    await sql`alter table change_openings alter column account_id drop not null`.execute(db);
    await db.schema.alterTable('change_openings').addColumn('subject_kind', 'text').execute();
    await db.schema.alterTable('change_openings').addColumn('subject_id', 'integer').execute();
    await db.schema.alterTable('change_openings').addColumn('field', 'text').execute();
  } else {
    // SQLite cannot drop a NOT NULL: the table is rebuilt with the same rows.
    await sql`alter table change_openings rename to change_openings_0014`.execute(db);
    await sql`drop index if exists change_openings_account`.execute(db);
    await createOpenings(db, 'change_openings', 'change_openings_pk');
    await sql`insert into change_openings (seq, pointer, opening, value, account_id) select seq, pointer, opening, value, account_id from change_openings_0014`.execute(db);
    await sql`drop table change_openings_0014`.execute(db);
  }
  await db.updateTable('change_openings').set({ subject_kind: 'profile', subject_id: sql`account_id` }).where('subject_kind', 'is', null).execute();
  await db.schema.createIndex('change_openings_account').ifNotExists().on('change_openings').column('account_id').execute();
  await db.schema.createIndex('change_openings_subject').on('change_openings').columns(['subject_kind', 'subject_id', 'field']).execute();

  // The openings withheld by a decision, kept for a restore until the appeal window closes; no public route reads it.
  await createOpenings(db, 'withheld_openings', 'withheld_openings_pk', true);
  await db.schema.createIndex('withheld_openings_subject').on('withheld_openings').columns(['subject_kind', 'subject_id', 'field']).execute();

  // Clear text withheld in entries written before commitments: the text stays in the signed bytes (the leaf hash is
  // of them), and every public read serves the entry without it, beside its leaf hash.
  await db.schema
    .createTable('withheld_fields')
    .addColumn('seq', 'integer', notNull)
    .addColumn('pointer', 'text', notNull)
    .addColumn('subject_kind', 'text', notNull)
    .addColumn('subject_id', 'integer', notNull)
    .addColumn('field', 'text', notNull)
    .addColumn('decision_id', 'integer', notNull)
    .addColumn('withheld_at', 'text', notNull)
    .addPrimaryKeyConstraint('withheld_fields_pk', ['seq', 'pointer'])
    .execute();
  await db.schema.createIndex('withheld_fields_subject').on('withheld_fields').columns(['subject_kind', 'subject_id', 'field']).execute();
}

async function createOpenings(db: AnyDb, table: string, pk: string, withheld = false): Promise<void> {
  let t = db.schema
    .createTable(table)
    .addColumn('seq', 'integer', notNull)
    // The JSON Pointer of the commitment in the entry's body (`/page/title`), or inside the opened value of another
    // commitment (`/contributor/name`).
    .addColumn('pointer', 'text', notNull)
    .addColumn('opening', 'text', notNull)
    .addColumn('value', 'text', notNull)
    // The person it names, for erasure; null for text that names nobody by slot (a title, a summary).
    .addColumn('account_id', 'integer')
    // What it opens, by reference: `page`, `contribution`, `notice`, `profile` or `panel`, that object's id, and its
    // field (null for a whole person slot).
    .addColumn('subject_kind', 'text')
    .addColumn('subject_id', 'integer')
    .addColumn('field', 'text');
  if (withheld) t = t.addColumn('decision_id', 'integer', notNull).addColumn('withheld_at', 'text', notNull);
  await t.addPrimaryKeyConstraint(pk, ['seq', 'pointer']).execute();
}
