// A request line answered before from the cache is answered again ahead of validation (http/request-lines.ts).
// Each case here asks for a line twice to warm it, then asks again in a way only the full route would get
// right if the warm answer skipped a rule: a credential revoked in between, another Accept, HEAD, a change to the
// record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let author: TestUser;
let anon: Client;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  author = await signup(t, { name: 'Nellie Bly' });
  anon = new Client(t.baseUrl);
  url = `https://${pub.domain}/warm`;
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'Warm', authors: [author.username] });
  await confirmClaims(author);
  expect(reg.status, reg.text).toBeLessThan(300);
});
afterAll(async () => t?.close());

const lookup = (u: string) => `/api/v1/pages/lookup?url=${encodeURIComponent(u)}`;
const record = (u: string) => `/v1/pages/record?url=${encodeURIComponent(u)}`;
const embed = (u: string) => `/api/v1/embed/by-url?url=${encodeURIComponent(u)}`;

describe('a warm request line', () => {
  it('is answered by the hook once the handler answered it from the cache', async () => {
    const cache = t.runtime.deps.recordCache;
    const calls = { handler: 0, hook: 0 };
    const [getNow, peek] = [cache.getNow.bind(cache), cache.peek.bind(cache)];
    cache.getNow = (key, load) => (calls.handler++, getNow(key, load));
    cache.peek = (key) => (calls.hook++, peek(key));
    try {
      // A line of its own (a parameter the routes ignore), so nothing before remembered it.
      for (const path of [lookup(url), record(url), embed(url)].map((p) => `${p}&line=hook`)) {
        const seen: (typeof calls)[] = [];
        for (let i = 0; i < 4; i++) {
          expect((await anon.get(path)).status).toBe(200);
          seen.push({ ...calls });
        }
        // Through the handler until it answered from the cache (the first, or the second after a miss), then by the
        // hook: the third and fourth do not reach the handler.
        const [, second, third, fourth] = seen;
        expect([third!.handler, fourth!.handler], path).toEqual([second!.handler, second!.handler]);
        expect(fourth!.hook - second!.hook, path).toBe(2);
      }
    } finally {
      Object.assign(cache, { getNow, peek });
    }
  });

  it('still runs the credential and the guard: a key revoked since is a 401', async () => {
    const made = await pub.owner.client.post('/api/v1/account/api-keys', { name: 'soon revoked', publisher: pub.slug });
    const key = made.body.data.key as string;
    for (const path of [lookup(url), record(url)]) {
      expect((await anon.get(path, { token: key })).status).toBe(200);
      expect((await anon.get(path, { token: key })).status).toBe(200);
    }
    expect((await pub.owner.client.delete(`/api/v1/account/api-keys/${made.body.data.id}`)).status).toBe(200);
    for (const path of [lookup(url), record(url)]) {
      const res = await anon.get(path, { token: key });
      expect(res.status, path).toBe(401);
      expect((await anon.get(path, { token: 'not-a-credential' })).status).toBe(401);
      expect((await anon.get(path)).status).toBe(200);
    }
  });

  it('answers what Accept asks for, JSON or JSON-LD, each time', async () => {
    for (const path of [lookup(url), record(url)]) {
      const json = await anon.get(path);
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(json.headers.get('vary')).toBe('Accept');
      const ld = await anon.get(path, { headers: { accept: 'application/ld+json' } });
      expect(ld.headers.get('content-type')).toMatch(/^application\/ld\+json/);
      expect(ld.headers.get('vary')).toBe('Accept');
      expect(ld.body['@context']).toBeDefined();
      expect((await anon.get(path)).text).toBe(json.text);
      // The format in the line decides whatever Accept says.
      const asked = await anon.get(`${path}&format=jsonld`);
      const again = await anon.get(`${path}&format=jsonld`, { headers: { accept: 'application/json' } });
      expect(again.text).toBe(asked.text);
      expect(again.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    }
  });

  it('answers HEAD with the head of GET and no body', async () => {
    for (const path of [lookup(url), record(url), embed(url)]) {
      const get = await anon.get(path);
      const head = await anon.req('HEAD', path);
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    }
  });

  it('gives a page with no record its 404 each time, and its record once it has one', async () => {
    const later = `https://${pub.domain}/later`;
    for (let i = 0; i < 2; i++) expect((await anon.get(record(later))).status).toBe(404);
    await pub.api.post('/api/v1/pages', { url: later, title: 'Later', authors: [author.username] });
    await confirmClaims(author);
    const now = await anon.get(record(later));
    expect(now.status).toBe(200);
    expect(now.body.title).toBe('Later');
  });

  it('never answers what the record no longer says', async () => {
    // Asked for twice: a line is remembered once the handler answered it from the cache.
    for (const path of [lookup(url), record(url), embed(url)]) for (let i = 0; i < 2; i++) await anon.get(path);
    const changed = await pub.api.post('/api/v1/pages', { url, title: 'Warm, renamed', authors: [author.username] });
    await confirmClaims(author);
    expect(changed.status, changed.text).toBeLessThan(300);
    expect((await anon.get(lookup(url))).body.data.title).toBe('Warm, renamed');
    expect((await anon.get(record(url))).body.title).toBe('Warm, renamed');
    expect((await anon.get(embed(url))).body.title).toBe('Warm, renamed');
  });
});
