// Migration 0019: `webhooks.publisher_id` becomes nullable. On SQLite that is a rebuild of the table with
// foreign keys off; this checks, on a database migrated to just before it, that every endpoint keeps its row and id,
// that its deliveries, attempts and replays still belong to it (deleting it still takes them along), that the
// AUTOINCREMENT mark is kept (a deleted endpoint's id is never given again), and that a person's own endpoint fits.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { migrationTestDb, type MigrationTestDb } from './migrate-before.js';

let fresh: MigrationTestDb;
let database: Database;

beforeAll(async () => {
  fresh = await migrationTestDb();
  database = fresh.database;
});
afterAll(async () => {
  await fresh?.close();
});

const migrateBefore0019 = () => fresh.migrateBefore('0019');

it('keeps every endpoint, its deliveries, attempts and replays, and lets a person’s own endpoint in', async () => {
  await migrateBefore0019();
  const db = database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const account = (await db.insertInto('accounts').values({ email: 'a@mail.test', username: 'ada', name: 'Ada', summary: '', topics: '[]', password_hash: 'x', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id;
  const publisher = (await db.insertInto('publishers').values({ slug: 'daily', name: 'The Daily', created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
  const event = (await db.insertInto('events').values({ type: 'page.registered', payload: '{}', created_at: now, publisher_id: publisher }).returning('id').executeTakeFirstOrThrow()).id;
  const hook = (values: { url: string }) =>
    db.insertInto('webhooks').values({ account_id: account, publisher_id: publisher, format: 'api_v1', events: '[]', secret: 'whsec_x', created_at: now, updated_at: now, ...values }).returning('id').executeTakeFirstOrThrow();
  const kept = (await hook({ url: 'https://a.example/kept' })).id;
  const gone = (await hook({ url: 'https://a.example/gone' })).id;
  await db.deleteFrom('webhooks').where('id', '=', gone).execute();
  const delivery = (
    await db
      .insertInto('webhook_deliveries')
      .values({ webhook_id: kept, event_id: event, event_type: 'page.registered', body: '{}', status: 'succeeded', next_attempt_at: now, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  await db.insertInto('webhook_attempts').values({ delivery_id: delivery, webhook_id: kept, attempted_at: now, duration_ms: 5, success: 1 }).execute();
  await db.insertInto('webhook_replays').values({ webhook_id: kept, since: now, requested_at: now }).execute();
  const before = await db.selectFrom('webhooks').selectAll().execute();

  expect((await migrate(database))[0]).toBe('0019_own_webhooks');

  expect(await db.selectFrom('webhooks').selectAll().execute()).toEqual(before);
  expect((await db.selectFrom('webhook_deliveries').select('webhook_id').execute()).map((r) => r.webhook_id)).toEqual([kept]);
  // A person's own endpoint: no publication. Its id is past the deleted one's.
  const own = (await db.insertInto('webhooks').values({ account_id: account, publisher_id: null, format: 'contributor', url: 'https://a.example/own', events: '[]', secret: 'whsec_y', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id;
  expect(own).toBeGreaterThan(gone);
  await db.insertInto('events').values({ type: 'contributor.named', payload: '{}', created_at: now, account_id: account }).execute();
  if (database.dialect === 'sqlite') {
    expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
    expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]!.foreign_keys).toBe(1);
  }
  // The references still hold: deleting the endpoint takes its deliveries, attempts and replays along.
  await db.deleteFrom('webhooks').where('id', '=', kept).execute();
  for (const table of ['webhook_deliveries', 'webhook_attempts', 'webhook_replays'] as const) {
    expect(await db.selectFrom(table).select('id').execute(), table).toEqual([]);
  }
  // And an erased account's events keep no link to it.
  await db.deleteFrom('webhooks').where('account_id', '=', account).execute();
  await db.deleteFrom('accounts').where('id', '=', account).execute();
  expect(await db.selectFrom('events').select('account_id').where('type', '=', 'contributor.named').execute()).toEqual([{ account_id: null }]);
});
