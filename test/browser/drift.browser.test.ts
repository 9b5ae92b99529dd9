// The drift note in a real browser: after the page's text changes, embed.js shows, under each review,
// fact check and correction done on the older version, a short note in the reader's language, and flags a
// correction whose new text is gone.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { AXE_SOURCE, hasChromium, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
let pub: TestPublisher;
let host: http.Server;
let hostOrigin: string;
let pageHtml = '';
let articleUrl: string;

async function accept(name: string, item: Record<string, unknown>) {
  const user = await signup(t, { name });
  const sub = await new Client(t.baseUrl).as(await contributorKey(user)).post('/api/v1/submissions', { url: articleUrl, ...item });
  expect(sub.status, sub.text).toBe(201);
  const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
  expect(decided.status, decided.text).toBe(200);
}

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  pub = await publisher(t);
  articleUrl = `https://${pub.domain}/story`;
  await pub.api.post('/api/v1/pages', { url: articleUrl, title: 'The Story', text: 'There were 102 cases in three states.' });
  await accept('Rachel Carson', { role: 'review', summary: 'The numbers hold', evidence: { reason: 'Checked', sources: [] } });
  await accept('Grace Hopper', {
    role: 'correction',
    summary: 'Fix the count',
    evidence: { before: '102 cases', after: '120 cases', reason: 'The table', sources: [] },
  });
  t.clock.advanceDays(3);
  // The page is rewritten and the corrected words are gone.
  const changed = await pub.api.post('/api/v1/pages', { url: articleUrl, text: 'Officials now count more than a hundred cases.' });
  expect(changed.body.data.status).toBe('updated');
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

async function open(lang: string): Promise<Page> {
  pageHtml = `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>A publisher article</title></head>
<body><main><h1>A publisher article</h1><script async src="${t.baseUrl}/embed.js" data-page="${articleUrl}" data-style="full"></script></main></body></html>`;
  const page = await (await browser.newContext()).newPage();
  await page.goto(hostOrigin);
  return page;
}

const NOTES: Record<string, { changed: string; missing: string }> = {
  en: { changed: 'The page has changed since this work, on 24 Nov 2026.', missing: 'The corrected text no longer appears on the page.' },
  de: { changed: 'Die Seite wurde danach geändert, am 24. Nov. 2026.', missing: 'Der korrigierte Text steht nicht mehr auf der Seite.' },
  fr: { changed: 'La page a changé depuis ce travail, le 24 nov. 2026.', missing: 'Le texte corrigé ne figure plus sur la page.' },
  es: { changed: 'La página cambió después de este trabajo, el 24 nov 2026.', missing: 'El texto corregido ya no aparece en la página.' },
};

describe.skipIf(!hasChromium)('the drift note in Chromium', () => {
  it.each(Object.keys(NOTES))('shows under the review and the correction, in %s', async (lang) => {
    const page = await open(lang);
    const notes = page.locator('[data-credence-block] .credence .drift');
    await expect.poll(() => notes.count(), { timeout: 10_000 }).toBe(2);
    const texts = await notes.allTextContents();
    expect(texts[0]).toBe(NOTES[lang]!.changed);
    expect(texts[1]).toBe(`${NOTES[lang]!.changed} ${NOTES[lang]!.missing}`);
    await expect(notes.first().isVisible()).resolves.toBe(true);
    await page.context().close();
  });

  it('has no accessibility violations (axe-core)', async () => {
    const page = await open('en');
    await expect.poll(() => page.locator('[data-credence-block] .credence .drift').count(), { timeout: 10_000 }).toBe(2);
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string }[] }> } }).axe;
      return (await axe.run({ include: [['[data-credence-block]']] })).violations.map((v) => v.id);
    });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
