// embed.js in a real browser: a publisher's page on another origin includes the script; the block shows accepted
// work only, in each style and language, updates itself when work is accepted, keeps readers private, and the host
// page's CSS cannot reach it. axe-core finds no accessibility violations.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { AXE_SOURCE, hasChromium, cspViolations, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
let pub: TestPublisher;
let author: TestUser;
let host: http.Server;
let hostOrigin: string;
let pageHtml = '';
/** The host page's own Content-Security-Policy, when a test gives it one. */
let hostCsp: string | undefined;
let articleUrl: string;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  pub = await publisher(t);
  author = await signup(t, { name: 'Nellie Bly' });
  articleUrl = `https://${pub.domain}/story`;
  await pub.api.post('/api/v1/pages', { url: articleUrl, title: 'The Story', authors: [author.username] });
  await confirmClaims(author);
  // The publisher's own site: another origin (localhost vs the service's 127.0.0.1).
  host = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(hostCsp ? { 'content-security-policy': hostCsp } : {}) }).end(pageHtml),
  );
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  host?.close();
  await t?.close();
  // After the clean-up, so a failure here leaves nothing running.
  expect(cspViolations).toEqual([]);
});

const tag = (attrs: string) => `<script async src="${t.baseUrl}/embed.js" ${attrs}></script>`;

function hostPage(body: string, opts: { lang?: string; canonical?: string } = {}) {
  return `<!doctype html><html lang="${opts.lang ?? 'en'}"><head><meta charset="utf-8"><title>A publisher article</title>
${opts.canonical ? `<link rel="canonical" href="${opts.canonical}">` : ''}
<style>a{color:rgb(255,0,255)!important;font-size:30px!important}li{color:orange}section,p{border:4px dashed red}*{font-family:cursive!important}</style>
</head><body><main><h1>A publisher article</h1><p>Body text.</p>${body}</main></body></html>`;
}

async function open(html: string): Promise<{ page: Page; requests: string[] }> {
  pageHtml = html;
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(hostOrigin);
  return { page, requests };
}

/** The rendered block inside the n-th host's shadow root (Playwright's CSS pierces open shadow roots). */
const blockText = (page: Page, n = 0) => page.locator('[data-credence-block]').nth(n).locator('.credence:not(.credence--report)');

describe.skipIf(!hasChromium)('embed.js in Chromium', () => {
  it('renders each style and language, with data-page auto and the page language as defaults', async () => {
    const { page } = await open(
      hostPage(
        [
          tag(`data-page="${articleUrl}" data-style="full" data-lang="de"`),
          tag(`data-page="${articleUrl}" data-style="compact" data-lang="es"`),
          tag(`data-page="${articleUrl}" data-style="badge" data-lang="en"`),
          tag('data-style="full"'),
        ].join('\n'),
        { lang: 'fr', canonical: `http://www.${pub.domain}/story/` },
      ),
    );
    await expect.poll(() => blockText(page, 0).textContent().catch(() => ''), { timeout: 10_000 }).toContain('Wer an dieser Seite gearbeitet hat');
    expect(await blockText(page, 0).textContent()).toContain('Nellie Bly');
    await expect.poll(() => blockText(page, 1).textContent()).toContain('Escrito por Nellie Bly');
    await expect.poll(() => blockText(page, 2).textContent()).toContain('Verified record');
    // No data-page and no data-lang: the canonical link and the page's lang (fr).
    await expect.poll(() => blockText(page, 3).textContent()).toContain('Qui a travaillé sur cette page');
    await page.context().close();
  });

  it('renders nothing for a page without accepted work or off a verified domain', async () => {
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/empty`, title: 'Empty' });
    const { page, requests } = await open(hostPage(tag(`data-page="https://${pub.domain}/empty"`) + tag('data-page="https://unverified.example/a"')));
    await expect.poll(() => requests.filter((u) => u.includes('/embed/by-url')).length, { timeout: 10_000 }).toBe(2);
    await page.waitForTimeout(300);
    expect(await page.locator('[data-credence-block]').evaluateAll((els) => els.map((e) => (e as unknown as { hidden: boolean }).hidden))).toEqual([true, true]);
    expect(await page.locator('[data-credence-block] .credence:not(.credence--report)').count()).toBe(0);
    await page.context().close();
  });

  it('shows only accepted work, and updates by itself when work is accepted', async () => {
    const { page } = await open(hostPage(tag(`data-page="${articleUrl}" data-refresh="1"`)));
    await expect.poll(() => blockText(page).textContent(), { timeout: 10_000 }).toContain('Nellie Bly');
    const specialist = await signup(t, { name: 'Ida Wells' });
    const sub = await specialist.client.post('/api/v1/submissions', {
      url: articleUrl,
      role: 'correction',
      summary: 'Fixed a date',
      evidence: { before: 'In 1887', after: 'In 1889', reason: 'Archive', sources: [] },
    });
    expect(sub.status, sub.text).toBe(201);
    await page.waitForTimeout(1500);
    expect(await blockText(page).textContent()).not.toContain('Ida Wells');
    await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    await expect.poll(() => blockText(page).textContent(), { timeout: 10_000 }).toContain('Ida Wells');
    expect(await blockText(page).textContent()).toContain('In 1889');
    await page.context().close();
  });

  it('keeps readers private: no cookie, no storage, no request to anyone but the service', async () => {
    const { page, requests } = await open(hostPage(tag(`data-page="${articleUrl}"`)));
    await expect.poll(() => blockText(page).textContent(), { timeout: 10_000 }).toContain('Nellie Bly');
    const foreign = requests.filter((u) => !u.startsWith(hostOrigin) && !u.startsWith(t.baseUrl));
    expect(foreign).toEqual([]);
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate(() => {
      const w = globalThis as any;
      return [w.document.cookie, w.localStorage.length, w.sessionStorage.length];
    })).toEqual(['', 0, 0]);
    await page.context().close();
  });

  it('cannot be restyled by the host page', async () => {
    const { page } = await open(hostPage(tag(`data-page="${articleUrl}"`)));
    const link = page.locator('[data-credence-block] a').first();
    await expect.poll(() => link.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const style = await link.evaluate((a) => {
      const s = (globalThis as any).getComputedStyle(a);
      return { color: s.color, fontSize: s.fontSize, fontFamily: s.fontFamily };
    });
    expect(style.color).not.toBe('rgb(255, 0, 255)');
    expect(style.fontSize).toBe('14px');
    expect(style.fontFamily).not.toContain('cursive');
    await page.context().close();
  });

  it('is styled on a page whose CSP bars inline styles and other sites’ stylesheets (the sheet is adopted)', async () => {
    hostCsp = `default-src 'self'; script-src ${t.baseUrl}; connect-src ${t.baseUrl}`;
    try {
      const strict = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Strict</title></head><body><main><h1>A</h1>${tag(`data-page="${articleUrl}"`)}</main></body></html>`;
      const { page, requests } = await open(strict);
      const block = blockText(page);
      await expect.poll(() => block.textContent().catch(() => ''), { timeout: 10_000 }).toContain('Nellie Bly');
      expect(await block.evaluate((el) => (globalThis as any).getComputedStyle(el).borderTopLeftRadius)).toBe('8px');
      // The block's own <link> is dropped unfetched: embed.js carries the sheet. (A refused inline <style> or
      // stylesheet would be a CSP violation, which afterAll checks there are none of.)
      expect(requests.filter((u) => u.includes('/embed.css'))).toEqual([]);
      await page.context().close();
    } finally {
      hostCsp = undefined;
    }
  });

  it('styles the block a CMS inserts as HTML, without embed.js, through the stylesheet it links', async () => {
    const res = await fetch(`${t.baseUrl}/api/v1/embed/by-url?url=${encodeURIComponent(articleUrl)}`);
    const { html } = (await res.json()) as { html: string };
    pageHtml = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CMS</title></head><body><main><h1>A</h1>${html}</main></body></html>`;
    const context = await browser.newContext();
    // The service's public name (site_url) answered by the test server: a DNS answer, not a part of ours.
    await context.route(`${t.config.siteUrl}/**`, async (route) => {
      const path = route.request().url().slice(t.config.siteUrl.length);
      await route.fulfill({ response: await route.fetch({ url: `${t.baseUrl}${path}` }) });
    });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(hostOrigin);
    const block = page.locator('main .credence:not(.credence--report)');
    await expect.poll(() => block.evaluate((el) => (globalThis as any).getComputedStyle(el).borderTopLeftRadius).catch(() => ''), { timeout: 10_000 }).toBe('8px');
    expect(requests.filter((u) => u.includes('/embed.css'))).toHaveLength(1);
    await context.close();
  });

  it('styles the block a format=js script injects', async () => {
    const { page, requests } = await open(
      hostPage(`<script src="${t.baseUrl}/api/v1/embed/by-url?url=${encodeURIComponent(articleUrl)}&amp;format=js&amp;style=compact"></script>`),
    );
    const block = blockText(page);
    await expect.poll(() => block.textContent().catch(() => ''), { timeout: 10_000 }).toContain('Nellie Bly');
    expect(await block.evaluate((el) => (globalThis as any).getComputedStyle(el).paddingTop)).toBe('6px');
    expect(requests.filter((u) => u.includes('/embed.css'))).toEqual([]);
    await page.context().close();
  });

  it('has no accessibility violations (axe-core), in every style', async () => {
    const { page } = await open(
      hostPage(['full', 'compact', 'badge'].map((s) => tag(`data-page="${articleUrl}" data-style="${s}"`)).join('\n')),
    );
    await expect.poll(() => page.locator('[data-credence-block] .credence:not(.credence--report)').count(), { timeout: 10_000 }).toBe(3);
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
      const r = await axe.run({ include: [['[data-credence-block]']] });
      return r.violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
