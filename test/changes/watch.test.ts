// Watching a name or a domain: the change feed filtered by contributor (username), publication (slug) or
// domain, list and live stream, on both surfaces; filtered by the entries' id columns, so it keeps working when the
// bodies commit names. Unknown names are a 404; bad ones a 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { readEvents } from './sse.js';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let a: TestPublisher;
let b: TestPublisher;
let ana: TestUser;
let ben: TestUser;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  a = await publisher(t);
  b = await publisher(t);
  ana = await signup(t);
  ben = await signup(t);
  anon = new Client(t.baseUrl);
  for (const [pub, who, path] of [
    [a, ana, 'one'],
    [a, ben, 'two'],
    [b, ana, 'three'],
  ] as const) {
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/news/${path}`, title: path, authors: [who.username] });
    expect(reg.status, reg.text).toBe(201);
  }
  await confirmClaims(ana, ben);
});
afterAll(async () => t?.close());

type Entry = { seq: number; kind: string; page?: { url: string }; contributor?: { commitment: string }; openings?: Record<string, { value: { username?: string } }>; publisher?: { slug: string } };
/** Who an entry names: a commitment in its bytes, opened beside it. */
const named = (e: Entry) => e.openings?.['/contributor']?.value.username;

describe('watching the change feed', () => {
  it('filters by contributor: every entry about them, nothing about others', async () => {
    for (const path of ['/api/v1/changes', '/v1/changes']) {
      const res = await anon.get(`${path}?contributor=${ana.username}`);
      expect(res.status, res.text).toBe(200);
      const data = res.body.data as Entry[];
      const accepted = data.filter((e) => e.kind === 'contribution.accepted');
      expect(accepted.map((e) => e.page!.url).sort()).toEqual([`https://${a.domain}/news/one`, `https://${b.domain}/news/three`].sort());
      expect(data.every((e) => !e.contributor || named(e) === ana.username)).toBe(true);
    }
  });

  it('filters by publication and by domain, and together', async () => {
    const byPub = (await anon.get(`/v1/changes?publication=${b.slug}`)).body.data as Entry[];
    expect(byPub.length).toBeGreaterThan(0);
    expect(byPub.every((e) => !e.page || e.page.url.startsWith(`https://${b.domain}/`))).toBe(true);
    expect(byPub.some((e) => e.kind === 'contribution.accepted')).toBe(true);
    const byDomain = (await anon.get(`/api/v1/changes?domain=${a.domain.toUpperCase()}`)).body.data as Entry[];
    expect(byDomain.filter((e) => e.kind === 'contribution.accepted').map((e) => e.page!.url).sort()).toEqual(
      [`https://${a.domain}/news/one`, `https://${a.domain}/news/two`].sort(),
    );
    expect(byDomain.some((e) => e.kind === 'domain.verified')).toBe(true);
    const both = (await anon.get(`/v1/changes?publication=${a.slug}&contributor=${ben.username}`)).body.data as Entry[];
    expect(both.filter((e) => e.kind === 'contribution.accepted').map((e) => e.page!.url)).toEqual([`https://${a.domain}/news/two`]);
    // A domain nobody registered yet: nothing so far, and a watcher may start now.
    expect((await anon.get('/v1/changes?domain=not-yet.example')).body.data).toEqual([]);
  });

  it('streams only what the filter names, live', async () => {
    const head = (await anon.get('/v1/changes?limit=500')).body.meta.next_cursor as number;
    const seen = readEvents(`${t.baseUrl}/v1/changes?contributor=${ben.username}&after=${head}`, {}, (ev) => ev.some((e) => e.event === 'contribution.accepted'));
    await new Promise((r) => setTimeout(r, 300));
    // Someone else's entry first, then one naming ben.
    await b.api.post('/api/v1/pages', { url: `https://${b.domain}/news/four`, title: 'four', authors: [ana.username] });
    await confirmClaims(ana);
    await b.api.post('/api/v1/pages', { url: `https://${b.domain}/news/five`, title: 'five', authors: [ben.username] });
    await confirmClaims(ben);
    const { events } = await seen;
    const accepted = events.filter((e) => e.event === 'contribution.accepted');
    expect(accepted.map((e) => (e.data as Entry).page!.url)).toEqual([`https://${b.domain}/news/five`]);
    expect(events.every((e) => !(e.data as Entry).contributor || named(e.data as Entry) === ben.username)).toBe(true);
  });

  it('answers 404 for an unknown contributor or publication and 400 for a malformed one, naming the field', async () => {
    const unknown = await anon.get('/v1/changes?contributor=nobody-here');
    expect(unknown.status).toBe(404);
    expect((await anon.get('/api/v1/changes?publication=no-such-pub')).status).toBe(404);
    const bad = await anon.get('/v1/changes?domain=not a domain');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('domain');
    const badName = await anon.get('/api/v1/changes?contributor=Bad Name!');
    expect(badName.status).toBe(400);
    expect(JSON.stringify(badName.body)).toContain('contributor');
  });
});
