// A retraction in a real browser: embed.js on a publisher's article leads the block with the page's
// standing in the reader's language (every style), with the notice's date, reason and link; the accepted work stays.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmClaims, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { AXE_SOURCE, hasChromium, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
let pub: TestPublisher;
let host: http.Server;
let hostOrigin: string;
let pageHtml = '';
let articleUrl: string;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  pub = await publisher(t);
  const author = await signup(t, { name: 'Rosalind Franklin' });
  articleUrl = `https://${pub.domain}/study`;
  const reg = await pub.api.post('/api/v1/pages', { url: articleUrl, title: 'The Study', authors: [author.username] });
  expect(reg.status, reg.text).toBe(201);
  await confirmClaims(author);
  const notice = await pub.api.post(`/api/v1/pages/${reg.body.data.id}/notices`, {
    type: 'retraction',
    date: '2026-11-20',
    reason: 'The images were duplicated.',
    url: `https://${pub.domain}/notices/1`,
  });
  expect(notice.status, notice.text).toBe(201);
  host = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml));
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  host?.close();
  await t?.close();
});

async function open(lang: string, style: string): Promise<Page> {
  pageHtml = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>A publisher article</title></head>
<body><main><h1>A publisher article</h1><script async src="${t.baseUrl}/embed.js" data-page="${articleUrl}" data-style="${style}"></script></main></body></html>`;
  const page = await (await browser.newContext()).newPage();
  await page.goto(hostOrigin);
  return page;
}

// What a reader reads first, in each language: the standing and its plain sentence, then the notice's date.
const READS: Record<string, { label: string; sentence: string; date: string }> = {
  en: { label: 'Retracted.', sentence: 'This page was retracted by its publisher.', date: '20 Nov 2026' },
  de: { label: 'Widerrufen.', sentence: 'Diese Seite wurde von ihrem Herausgeber widerrufen.', date: '20. Nov. 2026' },
  fr: { label: 'Rétractée.', sentence: 'Cette page a été rétractée par son éditeur.', date: '20 nov. 2026' },
  es: { label: 'Retractada.', sentence: 'Esta página fue retractada por su editor.', date: '20 nov 2026' },
};

describe.skipIf(!hasChromium)('a retraction in Chromium', () => {
  it.each(Object.keys(READS))('leads the full block in %s, with the reason and the notice', async (lang) => {
    const page = await open(lang, 'full');
    const standing = page.locator('[data-credence-block] .credence .standing');
    await expect.poll(() => standing.count(), { timeout: 10_000 }).toBe(1);
    const r = READS[lang]!;
    expect(await standing.textContent()).toContain(`${r.label} ${r.sentence} ${r.date}. The images were duplicated.`);
    await expect(standing.isVisible()).resolves.toBe(true);
    // The standing comes before anything else in the block, and the work is still listed after it.
    const first = await page.locator('[data-credence-block] .credence > *').first().getAttribute('class');
    expect(first).toBe('standing');
    await expect(page.locator('[data-credence-block] .credence:not(.credence--report)').textContent()).resolves.toContain('Rosalind Franklin');
    await page.context().close();
  });

  it.each(['compact', 'badge'])('says it first in the %s style too', async (style) => {
    for (const lang of Object.keys(READS)) {
      const page = await open(lang, style);
      const block = page.locator('[data-credence-block] .credence:not(.credence--report)');
      await expect.poll(() => block.count(), { timeout: 10_000 }).toBe(1);
      const text = ((await block.textContent()) ?? '').replace(/^[\s⚠]+/, '');
      expect(text.startsWith(READS[lang]!.label.slice(0, -1)), `${style} ${lang}: ${text}`).toBe(true);
      await page.context().close();
    }
  });

  it('has no accessibility violations (axe-core)', async () => {
    const page = await open('en', 'full');
    await expect.poll(() => page.locator('[data-credence-block] .credence .standing').count(), { timeout: 10_000 }).toBe(1);
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string }[] }> } }).axe;
      return (await axe.run({ include: [['[data-credence-block]']] })).violations.map((v) => v.id);
    });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
