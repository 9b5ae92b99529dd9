// The embed routes (SPEC §11): headers, ETag and 304, CORS, URL matching, empty html, unverified sites, the
// server-side cache invalidated by acceptance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { EMBED_CSS, EMBED_CSS_VERSION } from '../../src/surfaces/embed/renderer.js';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let author: TestUser;
let anon: Client;
let pageId: number;

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  author = await signup(t, { name: 'Nellie Bly' });
  anon = new Client(t.baseUrl);
  const reg = await pub.api.post('/api/v1/pages', { url: `https://www.${pub.domain}/story/?ref=1`, title: 'The Story', authors: [author.username] });
  await confirmClaims(author);
  pageId = reg.body.data.id;
});
afterAll(async () => t?.close());

const byUrl = (url: string, extra = '') => anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(url)}${extra}`);

describe('embed by URL', () => {
  it.each([
    (d: string) => `https://www.${d}/story/?ref=1`,
    (d: string) => `http://${d}/story`,
    (d: string) => `https://${d}/story/`,
    (d: string) => `https://WWW.${d.toUpperCase()}/story?utm_source=x#comments`,
  ])('matches %#', async (make) => {
    const res = await byUrl(make(pub.domain));
    expect(res.status).toBe(200);
    expect(res.body.title).toBe('The Story');
    expect(res.body.html).toContain('Nellie Bly');
  });

  it('answers an empty html for a page without accepted work, or an unknown page', async () => {
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/empty`, title: 'Empty' });
    const empty = await byUrl(`https://${pub.domain}/empty`);
    expect(empty.body).toEqual({ success: true, html: '', title: 'Empty' });
    const unknown = await byUrl('https://unknown.example/x');
    expect(unknown.body).toEqual({ success: true, html: '', title: '' });
  });

  it('is CORS-open without credentials, cached 5 minutes, with an ETag and 304', async () => {
    const res = await byUrl(`https://${pub.domain}/story`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('public, max-age=300, stale-if-error=86400');
    expect(res.headers.get('set-cookie')).toBeNull();
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await byUrl(`https://${pub.domain}/story`);
    expect(again.headers.get('etag')).toBe(etag);
    const cond = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/story`)}`, { headers: { 'if-none-match': etag } });
    expect(cond.status).toBe(304);
    expect(cond.text).toBe('');
    expect(cond.headers.get('etag')).toBe(etag);
    const pre = await anon.req('OPTIONS', '/api/v1/embed/by-url', { headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-headers')).toContain('If-None-Match');
  });

  it('is not rate limited', async () => {
    const one = anon.from('10.200.0.1');
    const statuses = await Promise.all(Array.from({ length: 80 }, () => one.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/story`)}`)));
    expect(statuses.every((r) => r.status === 200)).toBe(true);
    expect(statuses[0]!.headers.get('ratelimit')).toBeNull();
  });

  it('changes the ETag and the block the moment work is accepted', async () => {
    const before = await byUrl(`https://${pub.domain}/story`);
    const specialist = await signup(t, { name: 'Ida Wells' });
    const sub = await specialist.client.post('/api/v1/submissions', {
      article_ref_id: pageId,
      role: 'correction',
      summary: 'Fixed a date',
      evidence: { before: 'In 1887', after: 'In 1889', reason: 'Archive', sources: [] },
    });
    const pending = await byUrl(`https://${pub.domain}/story`);
    expect(pending.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(pending.body.html).not.toContain('Ida Wells');
    await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    const after = await byUrl(`https://${pub.domain}/story`);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body.html).toContain('Ida Wells');
    expect(after.body.html).toContain('<del>In 1887</del>');
    const cond = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/story`)}`, { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(cond.status).toBe(200);
  });

  it('shows nothing once the site is no longer verified', async () => {
    const other = await publisher(t);
    await other.api.post('/api/v1/pages', { url: `https://${other.domain}/gone`, title: 'Gone', authors: [author.username] });
    await confirmClaims(author);
    expect((await byUrl(`https://${other.domain}/gone`)).body.html).not.toBe('');
    const taker = await publisher(t);
    await verifyDomainByOperator(t.runtime.deps, taker.slug, other.domain);
    expect((await byUrl(`https://${other.domain}/gone`)).body.html).toBe('');
  });

  it('renders the style and language asked for; unknown languages fall back to English', async () => {
    const de = await byUrl(`https://${pub.domain}/story`, '&style=full&lang=de-AT');
    expect(de.body.html).toContain('lang="de"');
    expect(de.body.html).toContain('Wer an dieser Seite gearbeitet hat');
    const xx = await byUrl(`https://${pub.domain}/story`, '&lang=xx');
    expect(xx.body.html).toContain('Who worked on this page');
    const badge = await byUrl(`https://${pub.domain}/story`, '&style=badge');
    expect(badge.body.html).toContain('credence--badge');
    const bad = await byUrl(`https://${pub.domain}/story`, '&style=huge');
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
  });

  it('refuses a missing or bad url', async () => {
    expect((await anon.get('/api/v1/embed/by-url')).status).toBe(400);
    expect((await byUrl('javascript:alert(1)')).body.error.code).toBe('invalid_url');
  });
});

describe('embed by article id', () => {
  it('answers {html}, and a self-injecting script with format=js', async () => {
    const res = await anon.get(`/api/v1/embed/article/${pageId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'html']);
    expect(res.body.html).toContain('Nellie Bly');
    const js = await anon.get(`/api/v1/embed/article/${pageId}?format=js&style=compact`);
    expect(js.headers.get('content-type')).toContain('application/javascript');
    expect(js.text).toContain('attachShadow');
    expect(js.text).not.toContain('</');
    expect(js.headers.get('access-control-allow-origin')).toBe('*');
    expect((await anon.get('/api/v1/embed/article/999999')).status).toBe(404);
  });
});

describe('embed.js', () => {
  it('is served with CORS, a long cache and an ETag, within its 6 KB gzipped budget', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await anon.get('/embed.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/javascript');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('etag')).toBeTruthy();
    expect(gzipSync(res.text).length).toBeLessThan(6 * 1024);
    expect(res.text).not.toMatch(/localStorage|sessionStorage|document\.cookie|indexedDB/);
    expect(res.text).toContain("credentials: 'omit'");
    // The block's stylesheet is put in as it is served, to be adopted into each block's shadow root.
    expect(res.text).not.toContain('__CREDENCE_EMBED_CSS__');
    expect(res.text).toContain(JSON.stringify(EMBED_CSS.slice(0, 40)).slice(0, -1));
  });

  it('has a demo page showing every style and language', async () => {
    const res = await anon.get('/embed/demo');
    expect(res.status).toBe(200);
    expect(res.text.match(/<script async src="\/embed.js"/g)?.length).toBe(12);
  });
});

describe('the block’s stylesheet', () => {
  it('is linked by every block, not carried in it', async () => {
    for (const style of ['full', 'compact', 'badge']) {
      const { html } = (await byUrl(`https://${pub.domain}/story`, `&style=${style}`)).body;
      expect(html.startsWith(`<link rel="stylesheet" href="https://credence.test/embed.css?v=${EMBED_CSS_VERSION}">`), html).toBe(true);
      expect(html).not.toContain('<style');
    }
    const js = await anon.get(`/api/v1/embed/article/${pageId}?format=js`);
    expect(js.text).toContain('adoptedStyleSheets');
  });

  it('is served as CSS to every origin, for a year at its version’s address and five minutes at any other', async () => {
    const res = await anon.get(`/embed.css?v=${EMBED_CSS_VERSION}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(EMBED_CSS);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // Loaded by readers' browsers from every publisher's site.
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    for (const path of ['/embed.css', '/embed.css?v=an-older-one']) {
      const other = await anon.get(path);
      expect(other.text).toBe(EMBED_CSS);
      expect(other.headers.get('cache-control'), path).toBe('public, max-age=300, stale-if-error=86400');
    }
    const cond = await anon.get(`/embed.css?v=${EMBED_CSS_VERSION}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(cond.status).toBe(304);
    expect((await anon.get(`/embed.css?v=${'x'.repeat(65)}`)).status).toBe(400);
  });
});

describe('reader privacy in logs', () => {
  it('logs no reader address or user agent for embed requests', async () => {
    const { PassThrough } = await import('node:stream');
    const { buildApp } = await import('../../src/app.js');
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (d: Buffer) => lines.push(d.toString()));
    const { app } = await buildApp({ ...t.runtime.deps, config: { ...t.config, logLevel: 'info' } }, { logStream: stream });
    await app.inject({
      method: 'GET',
      url: `/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/story`)}`,
      headers: { 'user-agent': 'ReaderBrowser/1.0', 'x-forwarded-for': '203.0.113.77' },
      remoteAddress: '198.51.100.23',
    });
    await app.inject({ method: 'GET', url: '/embed.js', headers: { 'user-agent': 'ReaderBrowser/1.0' }, remoteAddress: '198.51.100.23' });
    await app.close();
    const log = lines.join('');
    expect(log).toContain('/api/v1/embed/by-url');
    expect(log).not.toContain('ReaderBrowser');
    expect(log).not.toContain('198.51.100.23');
    expect(log).not.toContain('203.0.113.77');
  });
});
