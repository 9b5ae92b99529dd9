#!/usr/bin/env node
// `npm test`: the whole suite on SQLite, then again on PostgreSQL.
//   DATABASE_URL set          → PostgreSQL only, at that URL (CI's second run); unreachable is a failure.
//   DATABASE_URL unset        → SQLite, then PostgreSQL at TEST_DATABASE_URL (default: the local server);
//                               when that server cannot be reached the PostgreSQL run is skipped, loudly.
//   TEST_SKIP_POSTGRES=1      → SQLite only (CI's first run, so PostgreSQL is not run twice).
// Extra arguments go to vitest (e.g. `npm test -- test/api/pages`).
import { spawnSync } from 'node:child_process';
import pg from 'pg';

const args = process.argv.slice(2);
const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/test';

function run(label, env) {
  console.log(`\n=== ${label} ===\n`);
  const r = spawnSync('npx', ['vitest', 'run', ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const explicit = process.env.DATABASE_URL;
if (explicit) {
  if (!(await reachable(explicit))) {
    console.error(`PostgreSQL at DATABASE_URL cannot be reached; the PostgreSQL run cannot happen.`);
    process.exit(1);
  }
  process.exit(run('PostgreSQL (DATABASE_URL)', {}));
}

const sqlite = run('SQLite (embedded)', { DATABASE_URL: '' });
let postgres = 0;
if (process.env.TEST_SKIP_POSTGRES === '1') {
  console.log('\nPostgreSQL run not requested (TEST_SKIP_POSTGRES=1).');
} else {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_PG;
  if (await reachable(url)) {
    postgres = run(`PostgreSQL (${url})`, { DATABASE_URL: url });
  } else {
    console.log('\n' + '!'.repeat(78));
    console.log(`!! PostgreSQL run SKIPPED: no server at ${url}.`);
    console.log('!! Only the SQLite suite ran. Start PostgreSQL or set TEST_DATABASE_URL to run both.');
    console.log('!'.repeat(78));
  }
}
process.exit(sqlite || postgres);
