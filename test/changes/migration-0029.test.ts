// Migration 0029 on a database that already holds a log: every migration before it runs, entries and openings are
// written as they stood (person slots only, free text in clear), then 0029 runs. Every entry keeps its bytes, every
// opening is kept and now says what it opens (the person's profile), and withholding finds the clear text of an old
// entry by reference. Runs on both databases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrations } from '../../src/db/migrations/index.js';
import { withholdText } from '../../src/domain/changes/withholding.js';
import { usingPostgres } from '../harness.js';

let database: Database;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  if (usingPostgres()) {
    const id = `t_${randomBytes(6).toString('hex')}`;
    const url = process.env.DATABASE_URL!;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${id}`);
    await admin.end();
    database = openDatabase({ databaseUrl: url, pgSchema: id, poolSize: 2 });
    cleanup = async () => {
      await database.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${id} cascade`);
      await c.end();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-0029-'));
    database = openDatabase({ sqliteFile: path.join(dir, 'test.sqlite') });
    cleanup = async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  // Every migration that ran before this one, in the order they are listed.
  for (const [name, m] of Object.entries(migrations)) {
    if (name === '0029_free_text_commitments') break;
    await m.up(database.db as never, database.dialect);
  }
});
afterAll(async () => cleanup?.());

it('keeps every entry’s bytes and every opening, records what each opens, and finds old clear text by reference', async () => {
  const db = database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const bodies = [
    `{"contributor":{"commitment":"AAAA"},"created_at":"${now}","kind":"contributor.created","seq":1}`,
    `{"created_at":"${now}","kind":"page.registered","page":{"id":5,"title":"A title in clear","topic":"health","url":"https://a.example/x"},"publisher":{"name":"The Daily","slug":"daily"},"seq":2}`,
  ];
  for (const [i, body] of bodies.entries()) {
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${i + 1}, ${now}, ${i === 0 ? 'contributor.created' : 'page.registered'}, ${i === 0 ? null : 5}, ${i === 0 ? 7 : null}, ${null}, ${null}, ${body})`.execute(db);
  }
  await sql`insert into change_openings (seq, pointer, opening, value, account_id) values (${1}, ${'/contributor'}, ${'b3BlbmluZw=='}, ${'{"name":"Ada L","username":"ada"}'}, ${7})`.execute(db);

  await migrations['0029_free_text_commitments']!.up(db as never, database.dialect);

  const rows = await db.selectFrom('changes').select(['seq', 'body']).orderBy('seq').execute();
  expect(rows.map((r) => r.body)).toEqual(bodies);
  expect(await db.selectFrom('change_openings').selectAll().execute()).toEqual([
    { seq: 1, pointer: '/contributor', opening: 'b3BlbmluZw==', value: '{"name":"Ada L","username":"ada"}', account_id: 7, subject_kind: 'profile', subject_id: 7, field: null },
  ]);
  // A free-text opening names nobody: account_id may now be null.
  await db
    .insertInto('change_openings')
    .values({ seq: 2, pointer: '/x', opening: 'o', value: '"v"', account_id: null, subject_kind: 'page', subject_id: 5, field: 'title' })
    .execute();
  await db.deleteFrom('change_openings').where('pointer', '=', '/x').execute();

  const withheld = await db.transaction().execute((trx) => withholdText(trx, { kind: 'page', id: 5, field: 'title' }, 9, now));
  expect(withheld).toEqual([{ seq: 2, pointer: '/page/title' }]);
  const slot = await db.transaction().execute((trx) => withholdText(trx, { kind: 'profile', id: 7, field: 'name' }, 10, now));
  expect(slot).toEqual([{ seq: 1, pointer: '/contributor' }]);
  expect(await db.selectFrom('change_openings').selectAll().execute()).toEqual([]);
});
