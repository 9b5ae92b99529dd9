// Migration 0020: every stored event and mail message is linked to the accounts it names, from the slots that name
// people, so that an erasure after the upgrade finds them by reference too. Words elsewhere (a title, a URL) that
// happen to be someone's username link nobody.
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

it('links the events and mail written before it to the people they name', async () => {
  await fresh.migrateBefore('0020');
  const db = fresh.database.db;
  const now = '2026-11-01T00:00:00.000Z';
  const person = (username: string) =>
    db.insertInto('accounts').values({ email: `${username}@mail.test`, username, name: username, summary: '', topics: '[]', password_hash: 'x', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
  const ada = (await person('ada')).id;
  const westbrook = (await person('westbrook')).id;
  const owner = (await person('owner')).id;
  const event = async (payload: unknown, account_id: number | null = null) =>
    (await db.insertInto('events').values({ type: 'contribution.accepted', payload: JSON.stringify(payload), created_at: now, publisher_id: null, account_id }).returning('id').executeTakeFirstOrThrow()).id;
  const accepted = await event({ contributor: { username: 'ada', name: 'Ada' }, page: { id: 1, url: 'https://westbrook.example/', title: 'westbrook' } });
  const taken = await event({ request: { id: 1, taken_by: 'westbrook' }, page: { id: 1, url: 'https://a.example/', title: 'ada' } });
  const own = await event({ seq: 3 }, ada);
  const mail = (
    await db
      .insertInto('mail_outbox')
      .values({ account_id: owner, kind: 'request_taken', to_address: 'owner@mail.test', locale: 'en', thread: null, facts: JSON.stringify([{ username: 'ada', url: 'https://westbrook.example/' }]), message_id: '<m@x>', status: 'pending', attempts: 0, next_attempt_at: now, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

  expect(await migrate(fresh.database)).toContain('0020_mentions');

  const events = await db.selectFrom('event_mentions').select(['event_id', 'account_id']).orderBy('event_id').orderBy('account_id').execute();
  expect(events).toEqual([
    { event_id: accepted, account_id: ada },
    { event_id: taken, account_id: westbrook },
    { event_id: own, account_id: ada },
  ]);
  expect(await db.selectFrom('mail_mentions').select(['mail_id', 'account_id']).execute()).toEqual([{ mail_id: mail, account_id: ada }]);
});
