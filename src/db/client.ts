// One Kysely interface over two databases: SQLite (embedded, the default) and PostgreSQL (DATABASE_URL).
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type SqliteDialectConfig, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** A read-only statement of the hot read path (a cache miss), written once for each database. */
export interface FixedQuery {
  /** PostgreSQL prepares it once per connection under this name. */
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/**
 * Runs a fixed read-only statement outside any transaction, on what is committed: on SQLite a second, read-only
 * connection (WAL lets it read while the writer's transaction is open, where Kysely's one connection would make it
 * wait) with the statement prepared once; on PostgreSQL a named prepared statement straight on the pool. Neither
 * builds a query nor goes through Kysely's executor: a miss's statement cost 36-40 µs through it, 19-24 µs direct.
 */
export type FixedReader = <Row>(query: FixedQuery, params: readonly unknown[]) => Promise<Row[]>;

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  read: FixedReader;
  close(): Promise<void>;
  /** SQLite only: copy the live database to `file` with SQLite's online backup (readers and writers go on). */
  backup?(file: string): Promise<void>;
}

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent, SQLite at `sqliteFile`. */
  databaseUrl?: string | undefined;
  sqliteFile?: string;
  /** PostgreSQL only: the schema to use (tests give every file its own). */
  pgSchema?: string;
  poolSize?: number;
  /** PostgreSQL only: how long to wait for a connection before failing the query. */
  connectTimeoutMs?: number;
}

// int8 (COUNT(*), SUM of integers) arrives as a string by default; our counts fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/** How much of the SQLite file the read-only connection maps (1 GiB; the rest, if any, is read as usual). */
const READER_MMAP_BYTES = 1 << 30;

export function openDatabase(opts: DatabaseOptions): Database {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // PostgreSQL down or unreachable: a request waits at most this long for a connection, then fails with 503
      // (a refused connection fails at once); the pool opens fresh connections when the server is back.
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
      // A connection cut without a reset (a dead host) is noticed by the kernel rather than never.
      keepAlive: true,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    // An idle client that errors (the server restarted) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // A client in use when the server goes away (pg_ctl stop, a failover) reports the error on itself too; without a
    // listener that event would end the process. The query under way fails and the pool drops the client.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const read: FixedReader = async <Row>(q: FixedQuery, params: readonly unknown[]) =>
      (await pool.query({ name: q.name, text: q.postgres, values: params as unknown[] })).rows as Row[];
    return { db, dialect: 'postgres', read, close: () => db.destroy() };
  }
  const file = opts.sqliteFile ?? ':memory:';
  if (file !== ':memory:') prepareFile(file);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted content is overwritten with zeros, not left in free pages and cells: an erased person's strings must
  // not stay readable in the file. Costs a write of the freed bytes; deletes are rare here.
  sqlite.pragma('secure_delete = ON');
  const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  const reader = file === ':memory:' ? null : new SQLite(file, { readonly: true });
  reader?.pragma('busy_timeout = 5000');
  // The reader maps the file instead of copying pages through read(2) into its own 2 MB page cache: a cache miss's
  // random walk over a large database found most pages missing there (a system call each). Mapped, the statement
  // took 17-18 µs instead of 21-24 on 100,000 pages. Address space, not memory: the kernel's page cache
  // holds the pages either way. Reads only; writes go through the writer connection as before.
  reader?.pragma(`mmap_size = ${READER_MMAP_BYTES}`);
  const prepared = new Map<FixedQuery, SQLite.Statement>();
  const read: FixedReader = async <Row>(q: FixedQuery, params: readonly unknown[]) => {
    // An in-memory database has no second connection to open: its one connection, through Kysely.
    if (!reader) return (await db.executeQuery(CompiledQuery.raw(q.sqlite, [...params]))).rows as Row[];
    let statement = prepared.get(q);
    if (!statement) prepared.set(q, (statement = reader.prepare(q.sqlite)));
    return statement.all(...params) as Row[];
  };
  return {
    db,
    dialect: 'sqlite',
    read,
    close: async () => {
      reader?.close();
      await db.destroy();
    },
    // better-sqlite3 copies a few pages per event-loop turn, so the service keeps answering while it runs.
    backup: async (target) => {
      await sqlite.backup(target);
    },
  };
}

/**
 * The database holds password hashes, session and key hashes and webhook secrets: its folder is made 0700 and the
 * file 0600 when they are created, before SQLite opens it (SQLite gives its -wal and -shm files the database's
 * mode). A folder or file that already exists keeps the mode its operator gave it.
 */
function prepareFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Every SQLite transaction here writes, and several processes share the file (`serve --workers`, the CLI beside a
 * running server). Kysely opens a transaction with a plain (deferred) BEGIN, which takes the write lock only at the
 * first write: if another process commits after the transaction's first read, that write fails at once with
 * SQLITE_BUSY_SNAPSHOT, and the busy timeout cannot help because waiting would not make the snapshot current. BEGIN
 * IMMEDIATE takes the write lock at the start, waiting out the busy timeout like any other lock, so a transaction
 * never reads a snapshot it cannot write on. Writers were already serialised by SQLite's one write lock; this only
 * moves the wait to the start.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * Kysely prepares every statement on every query; better-sqlite3 statements are reusable, and preparing costs about
 * as much as running a primary-key read (measured: a record load 187 → 131 µs). The service's SQL is a small fixed
 * set, so a bounded map of prepared statements by SQL text serves nearly every query. Safe because better-sqlite3
 * runs each statement to completion synchronously (Kysely's streaming, which would hold one open, is not used).
 */
function withStatementCache(sqlite: SQLite.Database): Pick<SQLite.Database, 'close' | 'prepare'> {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= 1000) statements.clear();
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  } as Pick<SQLite.Database, 'close' | 'prepare'>;
}

/** Quick liveness check used by the readiness route and the CLI. */
export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}
