// A publication's pages and contributors, a page at a time by cursor: every item once, newest (or most) first,
// steady while pages are added between two calls; a cursor the list did not give is a 400 naming `after`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { accept, registerPage, submit } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
const anon = () => new Client(t.baseUrl);
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  const many = Array.from({ length: 25 }, (_, i) => ({ url: `https://${pub.domain}/p/${i}`, title: `Page ${i}`, topic: 'news' }));
  expect((await pub.api.post('/api/v1/pages', many)).status).toBe(200);
});
afterAll(async () => t?.close());

async function walk(path: string, limit: number, between?: () => Promise<void>) {
  const seen: any[] = [];
  let after: string | null = null;
  for (let calls = 0; calls < 20; calls++) {
    const res: { status: number; text: string; body: any } = await anon().get(`${path}?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    expect(res.status, res.text).toBe(200);
    seen.push(...res.body.data);
    expect(res.body.meta.limit).toBe(limit);
    if (!res.body.meta.has_more) {
      expect(res.body.meta.next_cursor).toBeNull();
      return seen;
    }
    after = res.body.meta.next_cursor;
    if (calls === 0) await between?.();
  }
  throw new Error('the list did not end');
}

describe('GET /api/v1/publishers/{slug}/records', () => {
  it('gives every page once, newest first, even when one is registered between two calls', async () => {
    const pages = await walk(`/api/v1/publishers/${pub.slug}/records`, 10, async () => {
      await registerPage(pub, 'added-meanwhile');
    });
    expect(pages).toHaveLength(25);
    expect(new Set(pages.map((p) => p.id)).size).toBe(25);
    expect(pages.map((p) => p.id)).toEqual([...pages.map((p) => p.id)].sort((a, b) => b - a));
    expect(pages[0]).toMatchObject({ url: `https://${pub.domain}/p/24`, title: 'Page 24', record_url: expect.stringMatching(/\/records\/\d+$/) });
    // The one added meanwhile is newer than the cursor: it heads the next walk.
    const first = await anon().get(`/api/v1/publishers/${pub.slug}/records?limit=1`);
    expect(first.body.data[0].url).toBe(`https://${pub.domain}/added-meanwhile`);
  });

  it('refuses a cursor it did not give, naming after; an unknown publication is 404', async () => {
    for (const bad of ['nonsense', Buffer.from('{"id":"x"}').toString('base64url'), Buffer.from('[1]').toString('base64url')]) {
      const res = await anon().get(`/api/v1/publishers/${pub.slug}/records?after=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe('after');
    }
    expect((await anon().get(`/api/v1/publishers/${pub.slug}/records?limit=101`)).status).toBe(400);
    expect((await anon().get('/api/v1/publishers/no-such-publication/records')).status).toBe(404);
  });
});

describe('GET /api/v1/publishers/{slug}/credits', () => {
  it('gives every contributor once, most accepted work first, then by username', async () => {
    const people = await Promise.all(Array.from({ length: 5 }, () => signup(t)));
    // Person i has i + 1 accepted reviews; two share a count, ordered by username.
    const counts = [1, 2, 2, 3, 1];
    let n = 0;
    for (const [i, person] of people.entries()) {
      for (let k = 0; k < counts[i]!; k++) {
        const page = await registerPage(pub, `reviewed/${n++}`);
        await accept(pub, await submit(person, { url: page.url, role: 'review', summary: 'Read it', evidence: { reason: 'Checked the figures', sources: [] } }));
      }
    }
    const listed = await walk(`/api/v1/publishers/${pub.slug}/credits`, 2);
    expect(listed).toHaveLength(5);
    const expected = people
      .map((p, i) => ({ username: p.username, contributions: counts[i]! }))
      .sort((a, b) => b.contributions - a.contributions || (a.username < b.username ? -1 : 1));
    expect(listed.map((c) => ({ username: c.username, contributions: c.contributions }))).toEqual(expected);
  });
});
