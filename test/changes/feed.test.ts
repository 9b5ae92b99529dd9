// The public change feed on both surfaces: oldest first after a cursor, each surface's envelope and
// words, links to what changed, a live Server-Sent Events stream that resumes with Last-Event-ID; and the record
// cache dropping only what an entry touches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/db/canonical-json.js';
import type { OpenedChange } from '../../src/domain/changes/change.store.js';
import type { MemoryRecordCache } from '../../src/domain/pages/record-cache.js';
import { feedStreamsOf } from '../../src/surfaces/changes.streams.js';
import { Client } from '../client.js';
import { readEvents } from './sse.js';
import { openBody } from '../transparency/commitments.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

const until = async (cond: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('GET /api/v1/changes and /v1/changes', () => {
  it('lists entries oldest first with a cursor to go on from, in each surface’s envelope', async () => {
    const api = await anon.get('/api/v1/changes');
    expect(api.status, api.text).toBe(200);
    expect(api.body.success).toBe(true);
    expect(api.body.data.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
    expect(api.body.meta).toEqual({ limit: 100, next_cursor: 3, has_more: false });
    expect(api.headers.get('ratelimit-policy')).toBeTruthy();
    const v1 = await anon.get('/v1/changes?after=1&limit=1');
    expect(Object.keys(v1.body).sort()).toEqual(['data', 'meta']);
    expect(v1.body.data).toHaveLength(1);
    expect(v1.body.data[0]).toMatchObject({ seq: 2, kind: 'publisher.created', publisher: { slug: pub.slug }, links: { publisher: `https://credence.test/publishers/${pub.slug}` } });
    expect(v1.body.meta).toEqual({ limit: 1, next_cursor: 2, has_more: true });
    const empty = await anon.get('/api/v1/changes?after=999');
    expect(empty.body).toEqual({ success: true, data: [], meta: { limit: 100, next_cursor: 999, has_more: false } });
    expect((await anon.get('/api/v1/changes?limit=100000')).body.meta.limit).toBe(500);
  });

  it('refuses a bad cursor or limit naming the field, in each envelope', async () => {
    const api = await anon.get('/api/v1/changes?after=-1');
    expect(api.status).toBe(400);
    expect(api.body).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'after' }] } });
    const v1 = await anon.get('/v1/changes?limit=0');
    expect(v1.status).toBe(400);
    expect(v1.body).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'limit' }] } });
    expect(v1.body.success).toBeUndefined();
  });

  it('shows accepted work with links, as stored; /v1 says ctb_ ids', async () => {
    const specialist = await signup(t, { name: 'Fay Feed' });
    const key = await contributorKey(specialist);
    const url = `https://${pub.domain}/feed/one`;
    const page = (await pub.api.post('/api/v1/pages', { url, title: 'Feed one', topic: 'science' })).body.data.id;
    const submitted = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', {
      url,
      role: 'correction',
      summary: 'Fixed the date',
      evidence: { before: '1999', after: '2001', reason: 'secret reason', sources: ['https://src.example/a'] },
    });
    const from = (await anon.get('/api/v1/changes?limit=500')).body.meta.next_cursor;
    await pub.api.post('/api/v1/submissions/decide', { submission_id: submitted.body.data.id, decision: 'accept', note: 'secret note' });
    const api = (await anon.get(`/api/v1/changes?after=${from}`)).body.data;
    const accepted = api.find((e: { kind: string }) => e.kind === 'contribution.accepted');
    // Free text and the person are commitments in the bytes; their openings beside them open to what was written.
    const C = { commitment: expect.any(String) };
    expect(accepted).toMatchObject({
      page: { id: page, url, title: C },
      contribution: { role: 'correction', summary: C, change: { from: C, to: C } },
      contributor: C,
      openings: {
        '/contributor': { opening: expect.any(String), value: { username: specialist.username, name: C } },
        '/contributor/name': { opening: expect.any(String), value: 'Fay Feed' },
        '/page/title': { value: 'Feed one' },
      },
      links: {
        record: `https://credence.test/records/${page}`,
        proof: `https://credence.test/proofs/${accepted.contribution.id}`,
        profile: `https://credence.test/contributors/${specialist.username}`,
      },
    });
    const stored = await t.runtime.deps.db.selectFrom('changes').select('body').where('seq', '=', accepted.seq).executeTakeFirstOrThrow();
    const { links: _links, openings, ...entry } = accepted;
    expect(canonicalJson(entry)).toBe(stored.body);
    // The bytes name nobody; what is beside them opens the commitment, checked here with Node's crypto.
    expect(stored.body).not.toContain(specialist.username);
    expect(stored.body).not.toContain('Fay Feed');
    expect(openBody(stored.body, openings)).toMatchObject({
      contributor: { username: specialist.username, name: 'Fay Feed' },
      page: { title: 'Feed one' },
      contribution: { summary: 'Fixed the date', change: { from: '1999', to: '2001' } },
    });
    expect(stored.body).not.toContain('Fixed the date');
    const v1 = (await anon.get(`/v1/changes?after=${from}`)).body.data.find((e: { kind: string }) => e.kind === 'contribution.accepted');
    expect(v1.contribution.id).toBe(`ctb_${accepted.contribution.id}`);
    expect(JSON.stringify(api)).not.toMatch(/secret|src\.example|@mail\.test/);
  });
});

describe('the live stream', () => {
  it('sends every entry after the cursor, then new ones as they commit, and resumes with Last-Event-ID', async () => {
    const start = (await anon.get('/api/v1/changes?limit=500')).body.meta.next_cursor as number;
    const url = `https://${pub.domain}/stream/one`;
    const live = readEvents(`${t.baseUrl}/api/v1/changes?after=${start - 2}`, {}, (ev) => ev.some((e) => e.event === 'page.registered' && e.data.page.url === url));
    await new Promise((r) => setTimeout(r, 300));
    await pub.api.post('/api/v1/pages', { url, title: 'Streamed' });
    const { events, headers } = await live;
    expect(headers.get('x-request-id')).toBeTruthy();
    expect(headers.get('ratelimit-policy')).toBeTruthy();
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => start - 1 + i));
    expect(events.at(-1)!.data).toMatchObject({ seq: Number(events.at(-1)!.id), kind: 'page.registered', links: { record: expect.any(String) } });

    await pub.api.post('/api/v1/pages', { url: `${url}-2`, title: 'After' });
    const resumed = await readEvents(`${t.baseUrl}/v1/changes?after=0`, { 'last-event-id': events.at(-1)!.id }, (ev) => ev.length >= 1);
    expect(resumed.events.map((e) => e.data.page?.url)).toEqual([`${url}-2`]);
  });

  it('carries the openings of each entry to a stream fed by the fan-out', async () => {
    const specialist = await signup(t, { name: 'Liv Live' });
    const key = await contributorKey(specialist);
    const url = `https://${pub.domain}/stream/opened`;
    await pub.api.post('/api/v1/pages', { url, title: 'Opened live' });
    const submitted = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'correction', summary: 'Live fix', evidence: { before: 'a', after: 'b', reason: 'a typo', sources: ['https://src.example/b'] } });
    const start = (await anon.get('/api/v1/changes?limit=500')).body.meta.next_cursor as number;
    const registry = () => feedStreamsOf(t.runtime.deps)!;
    // Streams of the tests before this one end once their clients have gone: this one is then the only one.
    await until(() => (feedStreamsOf(t.runtime.deps)?.open ?? 0) === 0);
    const live = readEvents(`${t.baseUrl}/api/v1/changes?after=${start}`, {}, (ev) => ev.some((e) => e.event === 'contribution.accepted'));
    await until(() => feedStreamsOf(t.runtime.deps)?.caughtUp === 1);
    const catchUps = registry().catchUpReads;
    await pub.api.post('/api/v1/submissions/decide', { submission_id: submitted.body.data.id, decision: 'accept' });
    const accepted = (await live).events.find((e) => e.event === 'contribution.accepted')!;
    // The follower read the entry with its openings for the stream: it did not read the log itself.
    expect(registry().catchUpReads).toBe(catchUps);
    expect(accepted.data.openings).toMatchObject({ '/contributor': { value: { username: specialist.username } }, '/contributor/name': { value: 'Liv Live' } });
    expect(accepted.data.links.profile).toBe(`https://credence.test/contributors/${specialist.username}`);
  });

  it('refuses a Last-Event-ID that is not a seq', async () => {
    const res = await anon.get('/api/v1/changes', { headers: { accept: 'text/event-stream', 'last-event-id': 'abc' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { details: [{ field: 'Last-Event-ID' }] } });
  });
});

describe('the change follower', () => {
  it('hands the entries, with their openings, only to listeners that take them', async () => {
    const follower = t.runtime.deps.changes;
    const taken: (readonly OpenedChange[] | null)[] = [];
    const told: (readonly OpenedChange[] | null)[] = [];
    const offTaken = follower.onAdvance(({ rows }) => taken.push(rows));
    const offTold = follower.onAdvance(({ rows }) => told.push(rows), { entries: false });
    try {
      const specialist = await signup(t, { name: 'Ola Opened' });
      const key = await contributorKey(specialist);
      const url = `https://${pub.domain}/follower/one`;
      await pub.api.post('/api/v1/pages', { url, title: 'Followed' });
      const submitted = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'correction', summary: 'Followed fix', evidence: { before: 'a', after: 'b', reason: 'a typo', sources: ['https://src.example/b'] } });
      await pub.api.post('/api/v1/submissions/decide', { submission_id: submitted.body.data.id, decision: 'accept' });
      await follower.catchUp();
      expect(told.length).toBeGreaterThan(0);
      expect(told.every((rows) => rows === null)).toBe(true);
      const accepted = taken.flatMap((rows) => rows ?? []).find((r) => r.kind === 'contribution.accepted');
      expect(accepted?.openings['/contributor']?.value).toEqual({ username: specialist.username, name: { commitment: expect.any(String) } });
      expect(accepted?.openings['/contributor/name']?.value).toBe('Ola Opened');
    } finally {
      offTaken();
      offTold();
    }
  });
});

describe('the record cache follows the log', () => {
  it('keeps warm records warm while other pages are registered, and drops a record the moment it changes', async () => {
    const cache = t.runtime.deps.recordCache as MemoryRecordCache;
    const url = `https://${pub.domain}/warm/one`;
    await pub.api.post('/api/v1/pages', { url, title: 'Warm' });
    const lookup = () => anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
    expect((await lookup()).body.data.title).toBe('Warm');
    const warm = cache.size;
    await pub.api.post('/api/v1/pages', [1, 2, 3].map((i) => ({ url: `https://${pub.domain}/cold/${i}`, title: `Cold ${i}` })));
    expect(cache.size).toBe(warm);
    await pub.api.post('/api/v1/pages', { url, title: 'Warm, renamed' });
    expect(cache.size).toBeLessThan(warm);
    expect((await lookup()).body.data.title).toBe('Warm, renamed');
  });
});
