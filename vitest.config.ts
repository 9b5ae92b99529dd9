import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files whose checks do not depend on the database (a browser on rendered pages, the source tree's imports, the
 * documents' lint, PHP): they run on the SQLite run only, so the PostgreSQL run spends its time where the database
 * matters. `TEST_EVERYWHERE=1` runs them on PostgreSQL too. The process and cluster tests decide for themselves
 * (several need PostgreSQL, several need the SQLite file): each says so in its header.
 */
const ONCE = [
  'test/browser/**',
  'test/architecture.test.ts',
  'test/build-if-stale.test.ts',
  'test/api/openapi.lint.test.ts',
  'test/wordpress/plugin.test.ts',
];
const onPostgres = Boolean(process.env.DATABASE_URL) && process.env.TEST_EVERYWHERE !== '1';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(onPostgres ? ONCE : [])],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database (a SQLite file or a PostgreSQL schema), so files run in parallel safely.
    fileParallelism: true,
  },
});
