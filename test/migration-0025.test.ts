// Migration 0025: one webhook per URL and format per owner. An upgraded database that already holds duplicates
// (the same URL registered again and again, in either spelling of an RFC 3986 character) does not fail: each group
// keeps its oldest webhook, subscribed to every event any of the group was, and the others go with their deliveries.
// Other owners' and other formats' webhooks of the same URL stay.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { migrate } from '../src/db/migrate.js';
import { parsePageUrl } from '../src/domain/pages/url-keys.js';
import { migrationTestDb, type MigrationTestDb } from './migrate-before.js';

let fresh: MigrationTestDb;
beforeAll(async () => {
  fresh = await migrationTestDb();
});
afterAll(async () => {
  await fresh?.close();
});

it('merges duplicate webhooks into the oldest of each, and then refuses a new duplicate', async () => {
  await fresh.migrateBefore('0025');
  const db = fresh.database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const account = async (username: string) =>
    (await db.insertInto('accounts').values({ email: `${username}@mail.test`, username, name: username, summary: '', topics: '[]', password_hash: 'x', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id as number;
  const [ada, bob] = [await account('ada'), await account('bob')];
  const pub = (await db.insertInto('publishers').values({ slug: 'daily', name: 'The Daily', created_at: now }).returning('id').executeTakeFirstOrThrow()).id as number;
  const event = (await db.insertInto('events').values({ type: 'page.registered', payload: '{}', created_at: now, publisher_id: pub }).returning('id').executeTakeFirstOrThrow()).id as number;
  const hook = async (v: { account_id: number; publisher_id: number | null; format: 'v1' | 'api_v1' | 'contributor'; url: string; events: string[] }) =>
    (await db.insertInto('webhooks').values({ ...v, events: JSON.stringify(v.events), secret: 'whsec_x', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id as number;

  const kept = await hook({ account_id: ada, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/in', events: ['page.registered'] });
  // The same publication's, registered by another member, subscribed to more: merged into the oldest.
  const dupe = await hook({ account_id: bob, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/in', events: ['submission.received'] });
  const dupe2 = await hook({ account_id: ada, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/in', events: ['page.registered'] });
  await db.insertInto('webhook_deliveries').values({ webhook_id: dupe, event_id: event, event_type: 'page.registered', body: '{}', status: 'pending', next_attempt_at: now, created_at: now, updated_at: now }).execute();
  // Two spellings of one URL: the raw one is rewritten as a URI, then merged.
  const raw = await hook({ account_id: ada, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/a|b?q={x}', events: ['page.registered'] });
  const encoded = await hook({ account_id: ada, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/a%7Cb?q=%7Bx%7D', events: ['page.registered'] });
  // Not duplicates: another format, and a person's own webhooks of two people.
  const v1 = await hook({ account_id: ada, publisher_id: pub, format: 'v1', url: 'https://hooks.example/in', events: ['request.taken'] });
  const ownAda = await hook({ account_id: ada, publisher_id: null, format: 'contributor', url: 'https://hooks.example/in', events: ['contributor.named'] });
  const ownBob = await hook({ account_id: bob, publisher_id: null, format: 'contributor', url: 'https://hooks.example/in', events: ['contributor.named'] });

  expect(await migrate(fresh.database)).toContain('0025_webhook_caps');

  const rows = await db.selectFrom('webhooks').select(['id', 'url', 'events']).orderBy('id').execute();
  expect(rows.map((r) => r.id)).toEqual([kept, raw, v1, ownAda, ownBob]);
  expect(rows.find((r) => r.id === kept)!.events).toBe(JSON.stringify(['page.registered', 'submission.received']));
  expect(rows.find((r) => r.id === raw)!.url).toBe('https://hooks.example/a%7Cb?q=%7Bx%7D');
  expect(await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', 'in', [dupe, dupe2, encoded]).execute()).toEqual([]);

  // The index now stands behind the rule.
  await expect(hook({ account_id: bob, publisher_id: pub, format: 'api_v1', url: 'https://hooks.example/in', events: [] })).rejects.toThrow();
  await expect(hook({ account_id: ada, publisher_id: null, format: 'contributor', url: 'https://hooks.example/in', events: [] })).rejects.toThrow();
  expect(await db.selectFrom('webhook_host_windows').selectAll().execute()).toEqual([]);
});

it('writes stored page URLs with characters RFC 3986 does not allow raw as URIs, and keys them so', async () => {
  const other = await migrationTestDb();
  try {
    await other.migrateBefore('0025');
    const db = other.database.db;
    const now = '2026-11-01T00:00:00.000Z';
    const pub = (await db.insertInto('publishers').values({ slug: 'daily', name: 'The Daily', created_at: now }).returning('id').executeTakeFirstOrThrow()).id as number;
    const page = async (url: string, lookup_key: string, embed_key: string) =>
      (await db.insertInto('pages').values({ publisher_id: pub, url, lookup_key, embed_key, embed_key_hash: 'x', host: 'daily.example', title: 'T', topic: '', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow()).id as number;
    const plain = await page('https://daily.example/a?b=1', 'daily.example/a?b=1', 'daily.example/a');
    const raw = await page('https://daily.example/pipe|bar?q={a}', 'daily.example/pipe|bar?q={a}', 'daily.example/pipe|bar');
    // Both spellings registered as two pages before: the one in URI form keeps its keys, the raw one is left alone.
    const twinRaw = await page('https://daily.example/x|y', 'daily.example/x|y', 'daily.example/x|y');
    const twin = await page('https://daily.example/x%7Cy', 'daily.example/x%7Cy', 'daily.example/x%7Cy');

    expect(await migrate(other.database)).toContain('0025_webhook_caps');
    const rows = await db.selectFrom('pages').select(['id', 'url', 'lookup_key', 'embed_key', 'embed_key_hash']).orderBy('id').execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(plain)).toMatchObject({ url: 'https://daily.example/a?b=1', lookup_key: 'daily.example/a?b=1', embed_key_hash: 'x' });
    expect(byId.get(raw)).toMatchObject({
      url: 'https://daily.example/pipe%7Cbar?q=%7Ba%7D',
      lookup_key: 'daily.example/pipe%7Cbar?q=%7Ba%7D',
      embed_key: 'daily.example/pipe%7Cbar',
      embed_key_hash: createHash('sha256').update('daily.example/pipe%7Cbar').digest('hex'),
    });
    expect(byId.get(twinRaw)).toMatchObject({ url: 'https://daily.example/x|y', lookup_key: 'daily.example/x|y' });
    expect(byId.get(twin)).toMatchObject({ lookup_key: 'daily.example/x%7Cy' });
    // What registration computes now agrees with what the migration stored.
    expect(parsePageUrl('https://daily.example/pipe|bar?q={a}')).toMatchObject({ url: byId.get(raw)!.url, lookupKey: byId.get(raw)!.lookup_key, embedKey: byId.get(raw)!.embed_key });
  } finally {
    await other.close();
  }
});
