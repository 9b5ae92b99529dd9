// The proof page's check tells the truth: with the reader's address on the ordinary limit (60 a minute, no allowlist),
// twenty proof pages opened in a row all say "Verified", because the log's files they read (checkpoint, key, policy,
// tiles) spend no rate budget and the entry comes with the page. A check that could not run (the network, a 429)
// says "Could not check right now" and tries again; it never says "NOT verified".
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { cspViolations, hasChromium, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
const proofs: string[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  const pub = await publisher(t);
  const author = await signup(t);
  for (let i = 0; i < 20; i++) {
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/news/proof-${i}`, title: `Proof ${i}`, authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
  }
  await confirmClaims(author);
  await integrate(t.runtime.deps);
  const ids = await t.runtime.deps.db.selectFrom('contributions').select('id').orderBy('id').execute();
  proofs.push(...ids.map((c) => `/proofs/${c.id}`));
  expect(proofs.length).toBe(20);
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const state = (page: Page) => page.locator('[data-log-index]').getAttribute('data-log-state');
const status = (page: Page) => page.locator('[data-log-status]').textContent();

describe.skipIf(!hasChromium)('the proof page’s check', () => {
  it('stays verified on twenty proof pages in a row, on an ordinary reader’s limit', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const limits: string[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/proofs/')) limits.push(r.headers()['ratelimit'] ?? '');
    });
    for (const path of proofs) {
      await page.goto(t.baseUrl + path);
      await expect.poll(() => state(page), { timeout: 20_000 }).toMatch(/^(verified|failed|unavailable)$/);
      expect(await status(page), path).toMatch(/^Verified in your browser/);
      // The bytes the check started from are shown, behind a disclosure.
      expect(await page.locator('details pre[data-log-entry]').count()).toBe(1);
    }
    // Each page spent one token of the address's bucket (60), not eight: the log's files spent none.
    expect(limits).toHaveLength(20);
    expect(limits.at(-1)).toMatch(/r=(39|4[0-9]);/);
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it('says "Could not check right now" when the log cannot be reached, then tries again and verifies', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    let blocked = true;
    await page.route('**/v1/log/checkpoint', (route) => (blocked ? route.abort('failed') : route.continue()));
    await page.goto(t.baseUrl + proofs[1]!);
    await expect.poll(() => state(page), { timeout: 20_000 }).toBe('unavailable');
    expect(await status(page)).toMatch(/^Could not check right now/);
    expect(await status(page)).not.toMatch(/NOT verified/);
    blocked = false;
    await expect.poll(() => state(page), { timeout: 20_000 }).toBe('verified');
    await context.close();
  }, 60_000);

  it('says "Could not check right now" on a 429 or a 500, never NOT verified', async () => {
    for (const code of [429, 503]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route('**/v1/log/tile/**', (route) => route.fulfill({ status: code, headers: { 'retry-after': '30' }, body: '' }));
      await page.goto(t.baseUrl + proofs[0]!);
      await expect.poll(() => state(page), { timeout: 20_000 }).toBe('unavailable');
      expect(await status(page)).toMatch(new RegExp(`^Could not check right now \\(.*answered ${code}\\); trying again in 30 seconds`));
      await context.close();
    }
    expect(cspViolations).toEqual([]);
  }, 60_000);
});
