import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './client.js';
import { isDatabaseUnavailable } from './errors.js';

describe('isDatabaseUnavailable', () => {
  it('counts SQLite busy codes, plain and extended, and not other SQLite errors', () => {
    expect(isDatabaseUnavailable({ code: 'SQLITE_BUSY' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'SQLITE_BUSY_SNAPSHOT' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'SQLITE_BUSY_RECOVERY' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe(false);
    expect(isDatabaseUnavailable({ code: 'SQLITE_ERROR' })).toBe(false);
  });
});

// Another process sharing the SQLite file (a second worker, the CLI) commits while our transaction is open.
describe('SQLite transactions shared with another process', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-tx-'));
  const file = path.join(dir, 'db.sqlite');
  const database = openDatabase({ sqliteFile: file });
  afterAll(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('hold the write lock from the start: a transaction that reads and then writes is never handed a stale snapshot', async () => {
    await sql`create table counter (n integer not null)`.execute(database.db);
    await sql`insert into counter values (0)`.execute(database.db);
    // The other process, with no busy timeout so the test does not block on it.
    const other = new SQLite(file);
    other.pragma('busy_timeout = 0');
    let otherResult = '';
    try {
      await database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ n: number }>`select n from counter`.execute(trx);
        // Under a deferred BEGIN this commit succeeds, and the update below fails with SQLITE_BUSY_SNAPSHOT.
        try {
          other.prepare('update counter set n = n + 100').run();
          otherResult = 'committed';
        } catch (err) {
          otherResult = (err as { code?: string }).code ?? 'error';
        }
        await sql`update counter set n = ${rows[0]!.n + 1}`.execute(trx);
      });
    } finally {
      other.close();
    }
    // The other writer waited its turn (here: gave up at once) instead of slipping in between the read and the write.
    expect(otherResult).toBe('SQLITE_BUSY');
    const { rows } = await sql<{ n: number }>`select n from counter`.execute(database.db);
    expect(rows[0]!.n).toBe(1);
  });
});
