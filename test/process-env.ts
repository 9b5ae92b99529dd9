// For tests that run the real `credence` command as a process: a temporary DATA_DIR, and on PostgreSQL a schema
// of its own passed through the connection string (`options=-c search_path=…`), so it leaves nothing behind.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/client.js';
import { usingPostgres } from './harness.js';
import { confirmByOperator } from '../src/domain/accounts/account.service.js';

export interface ProcessEnv {
  env: Record<string, string>;
  dataDir: string;
  /** This test's own database, opened from the test process (the command's is the same one). */
  open(poolSize?: number): Database;
  cleanup(): Promise<void>;
}

async function onPostgres(url: string, statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(statement);
  } finally {
    await c.end();
  }
}

export async function processEnv(name: string, extra: Record<string, string> = {}): Promise<ProcessEnv> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `credence-${name}-`));
  const env = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '', ...extra };
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (!usingPostgres()) {
    return { env, dataDir, open: () => openDatabase({ sqliteFile: path.join(dataDir, 'credence.sqlite') }), cleanup: removeDir };
  }
  const url = process.env.DATABASE_URL!;
  const schema = `${name.replace(/[^a-z]/g, '')}_${randomBytes(5).toString('hex')}`;
  await onPostgres(url, `create schema ${schema}`);
  env.DATABASE_URL = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    env,
    dataDir,
    open: (poolSize = 1) => openDatabase({ databaseUrl: url, pgSchema: schema, poolSize }),
    async cleanup() {
      await onPostgres(url, `drop schema if exists ${schema} cascade`);
      await removeDir();
    },
  };
}

/**
 * Confirm an address in a running process's database, as an operator's `credence account:confirm` would (issue
 * 33): the process tests are about what confirmed accounts do; test/mail.process.test.ts follows the mailed links.
 */
export async function confirmIn(open: () => Database, email: string): Promise<void> {
  const database = open();
  try {
    if (!(await confirmByOperator(database.db, email, new Date().toISOString()))) throw new Error(`no account has ${email}`);
  } finally {
    await database.close();
  }
}
