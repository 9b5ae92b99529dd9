// The same migrate() runs at boot, in `credence migrate` and in the test harness. Migrations are listed in code
// (not read from a folder) so they work identically from `src/` under tsx and from the compiled `dist/`.
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
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
  const migrator = new Migrator({ db: database.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
