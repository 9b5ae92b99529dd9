// Migration 0022: what links publications into one source of reputation is filled from what is stored. Every present
// membership becomes a remembered one, and every claimed domain learns its registrable domain by the Public Suffix
// List (private suffixes included: two github.io sites are two registrants).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../src/db/migrate.js';
import { migrationTestDb, type MigrationTestDb } from './migrate-before.js';

let fresh: MigrationTestDb;
beforeAll(async () => {
  fresh = await migrationTestDb();
});
afterAll(async () => {
  await fresh?.close();
});

it('remembers the present memberships and names each domain’s registrable domain', async () => {
  await fresh.migrateBefore('0022');
  const db = fresh.database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const owner = (
    await db.insertInto('accounts').values({ email: 'o@mail.test', username: 'owner', name: 'Owner', summary: '', topics: '[]', password_hash: 'x', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()
  ).id;
  const pub = async (slug: string) => (await db.insertInto('publishers').values({ slug, name: slug, created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
  const [a, b] = [await pub('a'), await pub('b')];
  await db.insertInto('publisher_members').values([{ publisher_id: a, account_id: owner, role: 'owner', created_at: now }, { publisher_id: b, account_id: owner, role: 'editor', created_at: now }]).execute();
  const domain = (publisher_id: number, d: string) => ({ publisher_id, domain: d, token: 't', status: 'verified' as const, verified_at: now, verified_by: 'operator' as const, created_at: now });
  // The index of one verified holder per domain: these are all different domains.
  await db.insertInto('domains').values([domain(a, 'news.ledger.co.uk'), domain(b, 'alice.github.io'), domain(b, 'ledger.example')]).execute();

  expect(await migrate(fresh.database)).toContain('0022_independent_sources');

  expect(await db.selectFrom('publisher_member_history').select(['publisher_id', 'account_id', 'since']).orderBy('publisher_id').execute()).toEqual([
    { publisher_id: a, account_id: owner, since: now },
    { publisher_id: b, account_id: owner, since: now },
  ]);
  expect(await db.selectFrom('domains').select(['domain', 'registrable_domain']).orderBy('domain').execute()).toEqual([
    { domain: 'alice.github.io', registrable_domain: 'alice.github.io' },
    { domain: 'ledger.example', registrable_domain: 'ledger.example' },
    { domain: 'news.ledger.co.uk', registrable_domain: 'ledger.co.uk' },
  ]);
});
