// Migration 0014: entries written before commitments existed named people in clear. The migration
// rewrites each into the committed form, keeping every other field, with an opening that opens it (checked here with
// the independent reader of test/transparency/commitments.ts), and leaves entries that name nobody as they were.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitExistingEntries } from '../../src/db/migrations/0014_erasure.js';
import { startTestApp, type TestApp } from '../harness.js';
import { openBody } from '../transparency/commitments.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

it('rewrites entries that name a person into commitments, and nothing else', async () => {
  const db = t.runtime.deps.db;
  const now = '2026-11-01T00:00:00.000Z';
  const old = [
    { seq: 1, kind: 'contributor.created', account_id: 7, body: { kind: 'contributor.created', seq: 1, created_at: now, contributor: { username: 'ada', name: 'Ada L', summary: 'Counts' } } },
    { seq: 2, kind: 'publisher.created', account_id: null, body: { kind: 'publisher.created', seq: 2, created_at: now, publisher: { slug: 'daily', name: 'The Daily' } } },
    {
      seq: 3,
      kind: 'contribution.accepted',
      account_id: 7,
      body: { kind: 'contribution.accepted', seq: 3, created_at: now, page: { id: 1, url: 'https://a.example/x', title: 'X' }, contribution: { id: 4, role: 'review' }, contributor: { username: 'ada', name: 'Ada L' } },
    },
  ];
  const canonical = (v: unknown): string =>
    v === null || typeof v !== 'object'
      ? JSON.stringify(v)
      : `{${Object.keys(v as object)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`;
  for (const e of old) {
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${e.seq}, ${now}, ${e.kind}, ${null}, ${e.account_id}, ${null}, ${null}, ${canonical(e.body)})`.execute(db);
  }
  await commitExistingEntries(db as never);
  const rows = await db.selectFrom('changes').selectAll().orderBy('seq').execute();
  const openings = await db.selectFrom('change_openings').selectAll().orderBy('seq').execute();
  expect(openings.map((o) => [o.seq, o.pointer, o.account_id])).toEqual([
    [1, '/contributor', 7],
    [3, '/contributor', 7],
  ]);
  expect(rows[1]!.body).toBe(canonical(old[1]!.body));
  for (const i of [0, 2]) {
    expect(rows[i]!.body).not.toContain('Ada L');
    const o = openings.find((x) => x.seq === rows[i]!.seq)!;
    expect(openBody(rows[i]!.body, { '/contributor': { opening: o.opening, value: JSON.parse(o.value) } })).toEqual(old[i]!.body);
  }
  // Run again, it changes nothing: committed entries are left alone.
  await commitExistingEntries(db as never);
  expect(await db.selectFrom('changes').selectAll().orderBy('seq').execute()).toEqual(rows);
  expect((await db.selectFrom('change_openings').selectAll().execute()).length).toBe(2);
});
