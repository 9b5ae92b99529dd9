// The test harness: a fresh database (a SQLite file, or a PostgreSQL schema when DATABASE_URL is set), the real
// app listening on a loopback port, a clock the test moves, and a DNS stub. Everything is removed at close.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { type Config, testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { createRuntime, type Runtime } from '../src/deps.js';
import type { Clock } from '../src/domain/clock.js';
import { type DomainVerifier, systemVerifier } from '../src/domain/publishers/domain-verifier.js';
import { systemPageFetcher } from '../src/domain/pages/page-fetcher.js';
import type { FastifyInstance } from 'fastify';

export class TestClock implements Clock {
  private t: number;
  constructor(start = Date.parse('2026-11-21T10:00:00.000Z')) {
    this.t = start;
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  advanceDays(days: number): void {
    this.advance(days * 86_400_000);
  }
}

/** DNS answers the test decides; the well-known file is fetched for real from `wellKnownBase` when set. */
export class DnsStub {
  readonly txt = new Map<string, string[][]>();
  async resolveTxt(host: string): Promise<string[][]> {
    const answer = this.txt.get(host);
    if (!answer) throw Object.assign(new Error(`queryTxt ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  }
}

export const usingPostgres = () => Boolean(process.env.DATABASE_URL);

export interface TestApp {
  app: FastifyInstance;
  runtime: Runtime;
  clock: TestClock;
  dns: DnsStub;
  config: Config;
  baseUrl: string;
  /** Set the base the well-known file is fetched from (a local HTTP server in tests). */
  setWellKnownBase(base: string | null): void;
  /** Set the base the publisher's pages are fetched from (`fetch: true`), a local HTTP server. */
  setPageBase(base: string | null): void;
  /**
   * Every byte the database keeps on disk for this test (erasure tests search them): the SQLite file and its
   * write-ahead log, or on PostgreSQL, after a checkpoint, the files of every table, index and TOAST table of the
   * test's schema.
   */
  databaseBytes(): Promise<Buffer>;
  close(): Promise<void>;
}

export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const clock = new TestClock();
  const dns = new DnsStub();
  let wellKnownBase: string | null = null;
  const real = systemVerifier({
    allowPrivate: true,
    resolver: dns,
    wellKnownUrl: (d) => `${wellKnownBase ?? `https://${d}`}/.well-known/credence-verification.txt`,
  });
  const verifier: DomainVerifier = real;
  // Pages the service fetches (`fetch: true`) come from a local server when a test sets one: same path and query.
  let pageBase: string | null = null;
  const pageFetcher = systemPageFetcher({
    allowPrivate: true,
    rewrite: (url) => {
      if (!pageBase) return url;
      const u = new URL(url);
      return `${pageBase}${u.pathname}${u.search}`;
    },
  });

  const id = `t_${randomBytes(6).toString('hex')}`;
  let cleanup: () => Promise<void>;
  let databaseBytes: () => Promise<Buffer>;
  let database;
  if (usingPostgres()) {
    const url = process.env.DATABASE_URL!;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${id}`);
    await admin.end();
    database = openDatabase({ databaseUrl: url, pgSchema: id, poolSize: 5 });
    databaseBytes = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query('checkpoint');
        const dataDir = (await c.query<{ data_directory: string }>('show data_directory')).rows[0]!.data_directory;
        const { rows } = await c.query<{ file: string | null }>(
          `with own as (select oid, reltoastrelid from pg_class where relnamespace = $1::regnamespace)
           select pg_relation_filepath(oid) as file from own
           union all select pg_relation_filepath(reltoastrelid) from own where reltoastrelid <> 0
           union all select pg_relation_filepath(indexrelid) from pg_index where indrelid in (select reltoastrelid from own where reltoastrelid <> 0)`,
          [id],
        );
        return Buffer.concat(rows.filter((r) => r.file).map((r) => fs.readFileSync(path.join(dataDir, r.file!))));
      } finally {
        await c.end();
      }
    };
    cleanup = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${id} cascade`);
      await c.end();
    };
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-test-'));
    database = openDatabase({ sqliteFile: path.join(dir, 'test.sqlite') });
    databaseBytes = async () =>
      Buffer.concat(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f))));
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  }

  // Tests reach the app from many simulated addresses (X-Forwarded-For), so IP buckets stay per test.
  // A fresh transparency-log key (and witness key) per test app, so no test writes one into ./data.
  const logSigningKey = randomBytes(32).toString('base64');
  const witnessSigningKey = randomBytes(32).toString('base64');
  const config = testConfig({ trustProxy: true, siteUrl: 'https://credence.test', logSigningKey, witnessSigningKey, ...overrides });
  const runtime = await createRuntime(config, { clock, verifier, database, pageFetcher });
  const { app } = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    runtime,
    clock,
    dns,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    setWellKnownBase(base) {
      wellKnownBase = base;
    },
    setPageBase(base) {
      pageBase = base;
    },
    databaseBytes: () => databaseBytes(),
    async close() {
      await app.close();
      await runtime.close();
      await cleanup();
    },
  };
}
