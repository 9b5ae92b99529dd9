// What the tests of one migration share: a database of their own (a SQLite file, or a PostgreSQL schema), migrated
// to just before the migration under test, so the test can lay down rows as they were and then run it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Migrator, type Migration } from 'kysely';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/client.js';
import { migrations } from '../src/db/migrations/index.js';
import { usingPostgres } from './harness.js';

export interface MigrationTestDb {
  database: Database;
  /** Apply every migration named before `name` (e.g. '0020'). */
  migrateBefore(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function migrationTestDb(): Promise<MigrationTestDb> {
  let database: Database;
  let schema: string | undefined;
  let cleanup: () => Promise<void>;
  if (usingPostgres()) {
    schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    database = openDatabase({ databaseUrl: process.env.DATABASE_URL!, pgSchema: schema, poolSize: 2 });
    cleanup = async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-migration-'));
    database = openDatabase({ sqliteFile: path.join(dir, 'test.sqlite') });
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    database,
    async migrateBefore(name) {
      const earlier: Record<string, Migration> = {};
      for (const [n, m] of Object.entries(migrations)) if (n < name) earlier[n] = { up: (db) => m.up(db, database.dialect) };
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => earlier },
        allowUnorderedMigrations: true,
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      const { error } = await migrator.migrateToLatest();
      if (error) throw error;
    },
    async close() {
      await database.close();
      await cleanup();
    },
  };
}
