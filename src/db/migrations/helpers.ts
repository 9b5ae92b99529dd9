// Small dialect differences, kept in one place so each migration reads as one schema for both databases.
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../client.js';

// Migrations see the database as it was when they were written, not as `DB` is today.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

export interface MigrationModule {
  up(db: AnyDb, dialect: Dialect): Promise<void>;
}

/** An integer primary key the database assigns: INTEGER PRIMARY KEY AUTOINCREMENT / integer identity. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === 'postgres'
    ? table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();
/** REAL in SQLite, double precision in PostgreSQL (both arrive as JS numbers). */
export const float = (dialect: Dialect) => (dialect === 'postgres' ? 'double precision' : 'real');
