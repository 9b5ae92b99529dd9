// The proof page checks its transparency-log entry in the reader's browser (Debian's Chromium): WebCrypto verifies
// the checkpoint's Ed25519 signature with the published key and walks the inclusion proof, and the page says
// "Verified". When the stored entry is changed in the database, the same page says it is NOT verified.
import type { Browser } from 'playwright-core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { hasChromium, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
let proofPath: string;
let logIndex: number;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  const pub = await publisher(t);
  const author = await signup(t);
  const url = `https://${pub.domain}/news/checked-in-the-browser`;
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'Checked in the browser', authors: [author.username] });
  await confirmClaims(author);
  expect(reg.status, reg.text).toBe(201);
  await integrate(t.runtime.deps);
  const record = await pub.api.get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
  const c = record.body.contributions[0] as { id: string; log: { index: number } };
  proofPath = `/proofs/${c.id.replace('ctb_', '')}`;
  logIndex = c.log.index;
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe.skipIf(!hasChromium)('the proof page in a browser', () => {
  it('verifies the entry against the published key and says so', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(t.baseUrl + proofPath);
    const status = page.locator('[data-log-status]');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Verified in your browser/);
    expect(await status.textContent()).toContain(`entry ${logIndex}`);
    expect(await page.locator('[data-log-index]').getAttribute('data-log-state')).toBe('verified');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says NOT verified when the stored entry was changed', async () => {
    const db = t.runtime.deps.db;
    const seq = logIndex + 1;
    const row = await db.selectFrom('changes').select('body').where('seq', '=', seq).executeTakeFirstOrThrow();
    await sql`update changes set body = ${row.body.replace('Wrote this page', 'Wrote half of this page')} where seq = ${seq}`.execute(db);
    try {
      const page = await browser.newPage();
      await page.goto(t.baseUrl + proofPath);
      const status = page.locator('[data-log-status]');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^NOT verified/);
      expect(await status.textContent()).toContain('do not lead to the signed root');
      await page.close();
    } finally {
      await sql`update changes set body = ${row.body} where seq = ${seq}`.execute(db);
    }
  });
});
