// Migration 0021: the search index is built from what the database already holds (pages, public people, publishers,
// panel statements' issued versions), and from then on kept by triggers: a row written after it is found at once.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { search } from '../src/domain/search/search.service.js';
import type { Deps } from '../src/domain/deps.js';
import { migrationTestDb, type MigrationTestDb } from './migrate-before.js';

let fresh: MigrationTestDb;
beforeAll(async () => {
  fresh = await migrationTestDb();
});
afterAll(async () => {
  await fresh?.close();
});

it('indexes the pages, public people, publishers and current panel questions written before it', async () => {
  await fresh.migrateBefore('0021');
  const db = fresh.database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const person = (username: string, confirmed: boolean) =>
    db
      .insertInto('accounts')
      .values({ email: `${username}@mail.test`, username, name: `Name ${username}`, summary: '', topics: '[]', password_hash: 'x', created_at: now, updated_at: now, email_confirmed_at: confirmed ? now : null })
      .returning('id')
      .executeTakeFirstOrThrow();
  await person('quillon', true);
  await person('hidden-quillon', false);
  await person('former-contributor', true);
  const pub = await db.insertInto('publishers').values({ slug: 'quillon-times', name: 'The Quillon Times', created_at: now }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('pages')
    .values({ publisher_id: pub.id, url: 'https://quillon.example/health/measles-wave', lookup_key: 'quillon.example/health/measles-wave', embed_key: 'k1', host: 'quillon.example', title: 'A wave of cases', topic: 'health', created_at: now, updated_at: now })
    .execute();
  const statement = await db.insertInto('panel_statements').values({ slug: 'mmr-timing', topic: 'health', current_version: 2, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  const version = (v: number, status: 'issued' | 'superseded', question: string) =>
    db
      .insertInto('panel_versions')
      .values({ statement_id: statement.id, version: v, status, topic: 'health', question, answer: 'a', certainty: 'high', vote_agree: 1, vote_dissent: 0, revisit_by: '2027-01-01', reopen_triggers: '[]', issued_at: now })
      .execute();
  await version(1, 'superseded', 'Is the early dose useless?');
  await version(2, 'issued', 'Does an early MMR dose help?');

  expect(await migrate(fresh.database)).toContain('0021_search');

  // Search reads the database only.
  const deps = { db } as unknown as Deps;
  const kinds = async (q: string) => (await search(deps, q, { page: 1, perPage: 20 })).items.map((i) => `${i.kind}:${'username' in i ? i.username : 'slug' in i ? i.slug : i.id}`);
  expect(await kinds('quillon')).toEqual(expect.arrayContaining(['contributor:quillon', 'publisher:quillon-times']));
  expect(await kinds('quillon')).not.toContain('contributor:hidden-quillon');
  expect(await kinds('measles')).toEqual([expect.stringMatching(/^page:\d+$/)]);
  expect(await kinds('early mmr')).toEqual(['panel:mmr-timing']);
  expect(await kinds('useless')).toEqual([]);
  expect(await kinds('former')).toEqual([]);

  // Kept by triggers from here on.
  await person('quillonette', true);
  expect(await kinds('quillonette')).toEqual(['contributor:quillonette']);
});
