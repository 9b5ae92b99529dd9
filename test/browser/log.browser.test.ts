// The proof page checks its transparency-log entry in the reader's browser (Debian's Chromium): WebCrypto verifies
// the checkpoint's Ed25519 signature with the published key and walks the inclusion proof, and the page says
// "Verified". When the stored entry is changed in the database, the same page says it is NOT verified. Text a decision
// withheld still verifies, and is said to be removed.
import type { Browser } from 'playwright-core';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withholdText } from '../../src/domain/changes/withholding.js';
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
    // A check shows it, as the extension's popup does, and the signer is the log's origin, not its key's hash.
    expect(await status.evaluate((el) => (globalThis as any).getComputedStyle(el, '::before').content)).toBe('"✓ "');
    expect(await page.locator('[data-log-details]').textContent()).toMatch(/^Signed by the log at [^+\s]+\.$/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says NOT verified when the stored entry was changed', async () => {
    const db = t.runtime.deps.db;
    const seq = logIndex + 1;
    const row = await db.selectFrom('changes').select('body').where('seq', '=', seq).executeTakeFirstOrThrow();
    // The summary is a commitment now: change a field in clear (the acceptance's time) instead.
    const changed = row.body.replace(/"accepted_at":"\d/, '"accepted_at":"1');
    expect(changed).not.toBe(row.body);
    await sql`update changes set body = ${changed} where seq = ${seq}`.execute(db);
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

  it('verifies an entry whose text a decision withheld, from the leaf hash when its clear text was taken out', async () => {
    const db = t.runtime.deps.db;
    const contributionId = Number(proofPath.split('/').at(-1));
    // An entry as they stood before free text was committed to: the page's title in clear.
    const pageId = (await db.selectFrom('contributions').select('page_id').where('id', '=', contributionId).executeTakeFirstOrThrow()).page_id;
    const seq = Number((await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirstOrThrow()).m) + 1;
    const now = new Date().toISOString();
    const body = `{"created_at":"${now}","kind":"page.updated","page":{"id":${pageId},"title":"A headline in clear","topic":"science","url":"https://x.example/a"},"seq":${seq}}`;
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${seq}, ${now}, ${'page.updated'}, ${pageId}, ${null}, ${null}, ${null}, ${body})`.execute(db);
    await db.transaction().execute(async (trx) => {
      await withholdText(trx, { kind: 'contribution', id: contributionId, field: 'summary' }, 5);
      await withholdText(trx, { kind: 'page', id: pageId, field: 'title' }, 6);
    });
    await integrate(t.runtime.deps);
    for (const path of [proofPath, `/log/${seq - 1}`]) {
      const page = await browser.newPage();
      await page.goto(t.baseUrl + path);
      const status = page.locator('[data-log-status]');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/^Verified in your browser/);
      expect(await status.textContent()).toContain('Some of its text was removed after a decision');
      expect(await page.content()).not.toContain('A headline in clear');
      await page.close();
    }
  });
});
