// A person's own webhook: an endpoint an account holds for itself, not for a publication, told of what
// names it. `webhooks.publisher_id` becomes nullable (null: the account's own), and an event learns the account it
// concerns (`events.account_id`), so the fan-out can reach that account's endpoints and a replay can find its events.
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`alter table webhooks alter column publisher_id drop not null`.execute(db);
  else await dropPublisherNotNullOnSqlite(db);
  // Set null when the account goes: an erased person's events keep no link to them (their facts are redacted).
  await db.schema.alterTable('events').addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null')).execute();
  await db.schema.createIndex('events_account').on('events').columns(['account_id', 'id']).where(sql.ref('account_id'), 'is not', null).execute();
  // A person's endpoints, found by the fan-out for each event that names them.
  await db.schema
    .createIndex('webhooks_own')
    .on('webhooks')
    .columns(['account_id', 'id'])
    .where(sql.ref('publisher_id'), 'is', null)
    .execute();
}

/**
 * SQLite cannot drop a NOT NULL: the table is rebuilt (its documented twelve steps). Foreign keys are turned off
 * first, outside any transaction (SQLite ignores the pragma inside one; Kysely runs SQLite migrations outside one),
 * so dropping the old table does not cascade into deliveries, attempts and replays, whose references then name the
 * new table. The copy keeps every id and the AUTOINCREMENT high-water mark, and the indexes are made again as they
 * were.
 */
async function dropPublisherNotNullOnSqlite(db: AnyDb): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      const table = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'webhooks'`.execute(trx)).rows[0];
      if (!table) throw new Error('migration 0019: no webhooks table');
      const column = /"publisher_id" integer not null references/i;
      if (!column.test(table.sql)) throw new Error('migration 0019: webhooks.publisher_id is not as 0004 made it');
      const rebuilt = table.sql.replace(column, '"publisher_id" integer references').replace(/^create table "webhooks"/i, 'create table "webhooks_rebuilt"');
      const indexes = (await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and tbl_name = 'webhooks' and sql is not null`.execute(trx)).rows;
      const sequence = (await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'webhooks'`.execute(trx)).rows[0]?.seq;
      await sql.raw(rebuilt).execute(trx);
      await sql`insert into webhooks_rebuilt select * from webhooks`.execute(trx);
      await sql`drop table webhooks`.execute(trx);
      await sql`alter table webhooks_rebuilt rename to webhooks`.execute(trx);
      for (const index of indexes) await sql.raw(index.sql).execute(trx);
      if (sequence !== undefined) {
        await sql`delete from sqlite_sequence where name = 'webhooks'`.execute(trx);
        await sql`insert into sqlite_sequence (name, seq) values ('webhooks', ${sequence})`.execute(trx);
      }
      const broken = (await sql`pragma foreign_key_check`.execute(trx)).rows;
      if (broken.length > 0) throw new Error(`migration 0019: ${broken.length} rows break a foreign key after the rebuild`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
