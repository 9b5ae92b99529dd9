// The same migrate() runs at boot, in `credence migrate` and in the test harness. Migrations are listed in code
// (not read from a folder) so they work identically from `src/` under tsx and from the compiled `dist/`.
import { Migrator, type Migration, type MigrationProvider, sql } from 'kysely';
import type { Database } from './client.js';
import { migrations } from './migrations/index.js';

export async function migrate(database: Database): Promise<string[]> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(migrations)) {
        out[name] = { up: (db) => m.up(db, database.dialect) };
      }
      return out;
    },
  };
  // On PostgreSQL the migration tables live in the current schema: without saying so, Kysely would find another
  // schema's tables in the same database and skip creating its own.
  const schema =
    database.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]?.s
      : undefined;
  // Migration numbers are handed out per piece of work and land in any order (0009 before 0007): a database that
  // already ran a later number still runs an earlier one that lands after it. Each migration touches its own
  // tables and columns, so their order among themselves does not matter.
  const migrator = new Migrator({
    db: database.db,
    provider,
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
