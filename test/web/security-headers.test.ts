// Security headers: every page type sends a Content-Security-Policy without inline script,
// frame-ancestors 'none', nosniff and a Referrer-Policy; every JSON answer (errors too) sends nosniff; no page holds an
// inline script or an on*= handler (JSON-LD data blocks aside); the embeds stay loadable from any site; HSTS only
// under REQUIRE_HTTPS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { webAdmin, webPublication, type WebPublication, type WebUser } from './dashboard.fixtures.js';
import { makePagesWorld, type PagesWorld } from './pages.fixtures.js';

let t: TestApp;
let w: PagesWorld;
let pub: WebPublication;
let admin: WebUser;
beforeAll(async () => {
  t = await startTestApp();
  w = await makePagesWorld(t);
  pub = await webPublication(t);
  admin = await webAdmin(t);
});
afterAll(async () => t?.close());

function expectPageHeaders(h: Headers, where: string) {
  const csp = h.get('content-security-policy') ?? '';
  expect(csp, where).toContain("script-src 'self'");
  expect(csp, where).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(csp, where).toContain("frame-ancestors 'none'");
  expect(csp, where).toContain("object-src 'none'");
  expect(h.get('x-content-type-options'), where).toBe('nosniff');
  expect(h.get('referrer-policy'), where).toBe('same-origin');
  expect(h.get('x-frame-options'), where).toBe('DENY');
  expect(h.get('strict-transport-security'), where).toBeNull();
}

/** Every <script> loads a file of this site or is a JSON-LD data block; no element carries an on*= handler. */
function expectNoInlineScript(html: string, where: string) {
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const attrs = m[1]!;
    if (/type="application\/ld\+json"/.test(attrs)) continue;
    expect(attrs, `${where}: ${m[0].slice(0, 80)}`).toMatch(/\ssrc="\/[^/]/);
    expect(m[2]!.trim(), where).toBe('');
  }
  // Attributes only: inside a tag, a space then on<letters>=.
  expect(html.match(/<[a-z][^>]*\son[a-z]+\s*=/gi) ?? [], where).toEqual([]);
}

describe('every page type', () => {
  const anonymous = () => [
    '/',
    '/login',
    '/signup',
    '/requests',
    '/panels',
    `/panels/${w.panelId}`,
    '/search?q=measles',
    `/records/${w.page.id}`,
    `/proofs/${w.correctionId}`,
    `/contributors/${w.specialist.username}`,
    `/publishers/${w.pub.slug}`,
    '/docs',
    '/embed/demo',
  ];
  const signedIn = () => [
    '/me',
    '/me/requests',
    '/me/submit',
    '/me/submissions',
    '/me/profile',
    '/me/keys',
    '/me/security',
    '/dashboard?all=1',
    ...['', '/domains', '/pages', '/requests', '/inbox', '/keys', '/webhooks', '/embed'].map((s) => `${pub.base}${s}`),
  ];

  it('sends the headers and holds no inline script, signed out', async () => {
    for (const path of anonymous()) {
      const res = await fetch(t.baseUrl + path, { headers: { accept: 'text/html', 'x-forwarded-for': '10.31.0.1' } });
      const text = await res.text();
      expect(res.headers.get('content-type'), path).toContain('text/html');
      expectPageHeaders(res.headers, path);
      expectNoInlineScript(text, path);
    }
  });

  it('sends the headers and holds no inline script, signed in (the dashboard, /me, admin)', async () => {
    for (const path of signedIn()) {
      const res = await pub.owner.b.get(path);
      expect(res.status, path).toBe(200);
      expectPageHeaders(res.headers, path);
      expectNoInlineScript(res.text, path);
    }
    for (const path of ['/admin', '/admin/panels/new', `/admin/panels/${w.panelId}`]) {
      const res = await admin.b.get(path);
      expect(res.status, path).toBe(200);
      expectPageHeaders(res.headers, path);
      expectNoInlineScript(res.text, path);
    }
  });

  it('the new-key page loads its copy script as a file', async () => {
    await pub.owner.b.get('/me/keys');
    const res = await pub.owner.b.postFollow('/me/keys', { name: 'for the header test', expires: '', publisher: '' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<script src="/assets/me.js" defer></script>');
    expectNoInlineScript(res.text, 'POST /me/keys');
    const js = await fetch(`${t.baseUrl}/assets/me.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });
});

describe('JSON answers', () => {
  it('carry nosniff, errors and 404s included', async () => {
    const c = new Client(t.baseUrl);
    for (const path of ['/api/v1/pages/lookup?url=https://x.example/a', '/v1/panels', '/api/v1/account', '/api/v1/nope', '/v1/nope', '/no-such-page', `/records/${w.page.id}`, '/api/v1/%E0%A4%A']) {
      const res = await c.get(path);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
  });
});

describe('answers of the JSON surfaces (/v1, /api/v1)', () => {
  const DOCUMENT_ONLY = [
    'cross-origin-opener-policy',
    'origin-agent-cluster',
    'referrer-policy',
    'x-dns-prefetch-control',
    'x-download-options',
    'x-permitted-cross-domain-policies',
    'x-xss-protection',
  ];
  it('carry the API set (nothing loads, nothing frames, nosniff), errors included, and none of the documents-only headers', async () => {
    const c = new Client(t.baseUrl);
    const paths = [
      `/api/v1/pages/lookup?url=${encodeURIComponent(w.page.url)}`,
      '/api/v1/pages/lookup?url=nope',
      '/api/v1/account',
      '/api/v1/nope',
      '/api/v1',
      '/v1/panels',
      '/v1/nope',
      '/v1?x=1',
      `/api/v1/embed/by-url?url=${encodeURIComponent(w.page.url)}&format=jsonld`,
      // Written past Fastify's send (http/wire.ts), twice so the second is a cached answer.
      `/api/v1/embed/by-url?url=${encodeURIComponent(w.page.url)}`,
      `/api/v1/embed/by-url?url=${encodeURIComponent(w.page.url)}`,
      // Refused by Fastify before any hook runs (a malformed percent-encoding).
      '/api/v1/pages/%E0%A4%A',
    ];
    for (const path of paths) {
      const res = await c.get(path);
      expect(res.headers.get('x-request-id'), path).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('content-security-policy'), path).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('cross-origin-resource-policy'), path).toBe(path.includes('/embed/') ? 'cross-origin' : 'same-origin');
      for (const name of DOCUMENT_ONLY) expect(res.headers.get(name), `${path}: ${name}`).toBeNull();
    }
  });

  it('leave paths that only start alike (/v1x, /api/v10) with the pages\' set', async () => {
    for (const path of ['/v1x', '/api/v10/pages']) {
      const res = await fetch(t.baseUrl + path, { headers: { accept: 'text/html' } });
      expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      expect(res.headers.get('referrer-policy'), path).toBe('same-origin');
    }
  });
});

describe('the embeds', () => {
  it('stay loadable from any site: CORS *, CORP cross-origin', async () => {
    for (const path of ['/embed.js', '/v1/embed.js', `/api/v1/embed/article/${w.page.id}`, `/api/v1/embed/by-url?url=${encodeURIComponent(w.page.url)}&format=js`]) {
      const res = await fetch(t.baseUrl + path, { headers: { origin: 'https://reader-site.example' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('cross-origin-resource-policy'), path).toBe('cross-origin');
      expect(res.headers.get('cross-origin-embedder-policy'), path).toBeNull();
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), path).toBe("default-src 'none';frame-ancestors 'none'");
      // Each header once: the route's own CORS and caching headers do not repeat the security set's.
      expect(res.headers.get('x-content-type-options'), path).not.toContain(',');
      expect(res.headers.get('cross-origin-resource-policy'), path).not.toContain(',');
    }
  });

  it('answer errors and revalidations with the same set, open to every origin, but errors are not cached', async () => {
    const bad = await fetch(`${t.baseUrl}/api/v1/embed/by-url?url=not-a-url`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(bad.headers.get('x-content-type-options')).toBe('nosniff');
    expect(bad.headers.get('cache-control')).toBeNull();
    // Browser code must read the error, or it sees a CORS failure instead.
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    const first = await fetch(`${t.baseUrl}/api/v1/embed/article/${w.page.id}`);
    const again = await fetch(`${t.baseUrl}/api/v1/embed/article/${w.page.id}`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('only on the embeds\' paths: a path that starts alike keeps its surface\'s set', async () => {
    for (const path of ['/api/v1/embedded', '/embed.jsx', '/v1/embed.json']) {
      const res = await fetch(t.baseUrl + path);
      expect(res.headers.get('cross-origin-resource-policy'), path).toBe('same-origin');
    }
  });
});

describe('HSTS', () => {
  it('is sent under REQUIRE_HTTPS only', async () => {
    const strict = await startTestApp({ requireHttps: true });
    try {
      const res = await fetch(`${strict.baseUrl}/`, { headers: { accept: 'text/html', 'x-forwarded-proto': 'https' } });
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
      const api = await fetch(`${strict.baseUrl}/v1/panels`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(api.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await strict.close();
    }
    const plain = await fetch(`${t.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    expect(plain.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
  });
});
