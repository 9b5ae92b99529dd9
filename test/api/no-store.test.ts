// An answer to a request that carried a credential (an API key, a bearer session, the pages' session
// cookie) may hold what only that caller may see, so it says `Cache-Control: no-store`, unless its route set its own
// caching for public data. One hook gives it (http/security-headers.ts); here a sample of routes of both surfaces,
// answers written past Fastify's send (a cached lookup), errors, and the web pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { signedInClient } from '../web/pages.fixtures.js';

let t: TestApp;
let p: TestPublisher;
let user: TestUser;
let userKey: string;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  p = await publisher(t);
  user = await signup(t);
  userKey = await contributorKey(user);
  expect((await p.api.post('/api/v1/pages', { url: `https://${p.domain}/a`, title: 'A' })).status).toBeLessThan(300);
});
afterAll(async () => t?.close());

const cacheControl = (r: { headers: Headers }) => r.headers.get('cache-control');

describe('answers to a credential are not stored', () => {
  it('/api/v1 with a session: the account, its keys, webhooks and publications', async () => {
    for (const path of ['/api/v1/account', '/api/v1/account/api-keys', '/api/v1/account/webhooks', '/api/v1/account/publisher-invitations', '/api/v1/whoami']) {
      const res = await user.client.get(path);
      expect(res.status, path).toBe(200);
      expect(cacheControl(res), path).toBe('no-store');
    }
  });

  it('/api/v1 with a key (Bearer or X-API-Key), a write, and a public read answered from the cache', async () => {
    const anon = new Client(t.baseUrl);
    expect(cacheControl(await anon.as(userKey).get('/api/v1/whoami'))).toBe('no-store');
    expect(cacheControl(await anon.as(p.key).get('/api/v1/whoami', { asHeader: 'x-api-key' }))).toBe('no-store');
    const write = await p.api.post('/api/v1/pages', { url: `https://${p.domain}/b`, title: 'B' });
    expect(write.status).toBeLessThan(300);
    expect(cacheControl(write)).toBe('no-store');
    const lookup = `/api/v1/pages/lookup?url=${encodeURIComponent(`https://${p.domain}/a`)}`;
    for (let i = 0; i < 2; i++) expect(cacheControl(await p.api.get(lookup)), `lookup ${i}`).toBe('no-store');
    // Without a credential the same answer is left to the route's own caching.
    expect(cacheControl(await anon.get(lookup))).not.toBe('no-store');
  });

  it('/v1 with a publisher key; errors answered to a credential too', async () => {
    const list = await p.api.get('/v1/requests');
    expect(list.status, list.text).toBe(200);
    expect(cacheControl(list)).toBe('no-store');
    const anon = new Client(t.baseUrl);
    const bad = await anon.as(`cred_live_${'0'.repeat(64)}`).get('/api/v1/account');
    expect(bad.status).toBe(401);
    expect(cacheControl(bad)).toBe('no-store');
    const missing = await user.client.get('/api/v1/account/webhooks/999999');
    expect(missing.status).toBe(404);
    expect(cacheControl(missing)).toBe('no-store');
    expect(cacheControl(await anon.get('/v1/contributors/nobody-here'))).not.toBe('no-store');
  });

  it('public data keeps the caching its route chose, credential or not (embeds, the stylesheet)', async () => {
    const embed = await p.api.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${p.domain}/a`)}`);
    expect(embed.status).toBe(200);
    expect(cacheControl(embed)).toMatch(/public|max-age/);
    const css = await p.api.get('/embed.css');
    expect(cacheControl(css)).toMatch(/public/);
  });

  it('the web pages with the session cookie: pages, a redirect after a form, and JSON asked of a page address', async () => {
    const { b } = await signedInClient(t);
    const me = await b.get('/me');
    expect(me.status).toBe(200);
    expect(cacheControl(me)).toMatch(/no-store/);
    const dash = await b.get('/dashboard');
    expect(cacheControl(dash)).toMatch(/no-store/);
    await b.get('/me');
    const posted = await b.post('/me/profile', { name: 'New Name', bio: '' });
    expect(posted.status).toBe(303);
    expect(cacheControl(posted)).toMatch(/no-store/);
    const json = await b.get('/api/v1/account', { accept: 'application/json' });
    expect(cacheControl(json)).toBe('no-store');
  });
});
