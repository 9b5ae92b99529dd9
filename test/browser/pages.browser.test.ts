// The public pages and the contributor panel in Debian's Chromium: axe-core finds no violations on any page (light
// at desktop width, dark at phone width), the submission form and the key form work with the keyboard alone, and
// screenshots of every page at 1280 and 390 pixels go to test-results/screenshots/ (kept out of git) for review.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { makePagesWorld, type PagesWorld } from '../web/pages.fixtures.js';
import { AXE_SOURCE, hasChromium, cspViolations, launch } from './chromium.js';

const SHOTS = path.resolve('test-results/screenshots');
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

let t: TestApp;
let w: PagesWorld;
let browser: Browser;
/** A session of `w.specialist`, who holds a request, has pending and accepted work and an API key. */
let session: string;

beforeAll(async () => {
  if (!hasChromium) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  w = await makePagesWorld(t);
  session = w.specialist.token;
  const api = w.specialist.client;
  const take = await api.post(`/api/v1/review-requests/${w.requestIds[0]}/take`);
  expect(take.status, take.text).toBe(200);
  const pending = await api.post('/api/v1/submissions', {
    url: `https://${w.pub.domain}/climate/explainer`,
    role: 'source',
    summary: 'Added the IPCC report as a source',
    evidence: { reason: 'The explainer quotes the report without linking it.', sources: ['https://ipcc.example/ar6'] },
  });
  expect(pending.status, pending.text).toBe(201);
  await api.post('/api/v1/account/api-keys', { name: 'my scripts', publisher: null, expires_in_days: 90 });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  // After the clean-up, so a failure here leaves nothing running.
  expect(cspViolations).toEqual([]);
});

async function context(opts: { signedIn?: boolean; width?: keyof typeof WIDTHS; dark?: boolean; js?: boolean } = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({
    viewport: WIDTHS[opts.width ?? 'desktop'],
    colorScheme: opts.dark ? 'dark' : 'light',
    javaScriptEnabled: opts.js ?? true,
    reducedMotion: 'reduce',
  });
  if (opts.signedIn) await ctx.addCookies([{ name: 'credence_session', value: session, url: t.baseUrl }]);
  return ctx;
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; help: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document);
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
  });
}

/** The pages, by screenshot name. `signedIn` pages are the contributor panel. */
const PAGES = (): { name: string; path: string; signedIn?: boolean; status?: number }[] => [
  { name: 'home', path: '/' },
  { name: 'search', path: '/search?q=ida' },
  { name: 'record', path: `/records/${w.page.id}` },
  { name: 'proof', path: `/proofs/${w.correctionId}` },
  { name: 'proof-author', path: `/proofs/${w.authorshipId}` },
  { name: 'contributor', path: `/contributors/${w.specialist.username}` },
  { name: 'publisher', path: `/publishers/${w.pub.slug}` },
  { name: 'panels', path: '/panels' },
  { name: 'panel', path: `/panels/${w.panelId}` },
  { name: 'requests', path: '/requests' },
  { name: 'not-found', path: '/contributors/nobody-here', status: 404 },
  { name: 'me', path: '/me', signedIn: true },
  { name: 'me-requests', path: '/me/requests', signedIn: true },
  { name: 'me-submit', path: `/me/submit?request=${w.requestIds[0]}`, signedIn: true },
  { name: 'me-submissions', path: '/me/submissions', signedIn: true },
  { name: 'me-profile', path: '/me/profile', signedIn: true },
  { name: 'me-keys', path: '/me/keys', signedIn: true },
];

describe.skipIf(!hasChromium)('pages in Chromium', () => {
  /** Every page in one width and colour scheme: photographed, checked for sideways scrolling, and (`axe`) by axe-core. */
  async function pass(width: keyof typeof WIDTHS, dark: boolean, axe: boolean): Promise<string[]> {
    const failures: string[] = [];
    for (const signedIn of [false, true]) {
      const ctx = await context({ signedIn, width, dark });
      const page = await ctx.newPage();
      for (const p of PAGES().filter((x) => Boolean(x.signedIn) === signedIn)) {
        const res = await page.goto(t.baseUrl + p.path);
        expect(res?.status(), p.path).toBe(p.status ?? 200);
        // Nothing scrolls sideways: wide content (tables, URLs, keys) wraps or scrolls in its own box.
        const overflow = await page.evaluate(() => {
          const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
          return d.documentElement.scrollWidth - d.documentElement.clientWidth;
        });
        const label = `${p.name} (${width}${dark ? ', dark' : ''})`;
        if (overflow > 0) failures.push(`${label}: ${overflow}px of horizontal scroll`);
        await page.screenshot({ path: path.join(SHOTS, `${p.name}-${width}${dark ? '-dark' : ''}.png`), fullPage: true });
        if (axe) for (const v of await axeViolations(page)) failures.push(`${label}: ${v}`);
      }
      await ctx.close();
    }
    return failures;
  }

  it('have no accessibility violations at desktop width, light', async () => {
    expect(await pass('desktop', false, true)).toEqual([]);
  }, 120_000);

  it('have no accessibility violations at phone width, dark', async () => {
    expect(await pass('phone', true, true)).toEqual([]);
  }, 120_000);

  it('fit a phone in light mode too (screenshots)', async () => {
    expect(await pass('phone', false, false)).toEqual([]);
  }, 120_000);

  it('form error states have no accessibility violations either', async () => {
    const ctx = await context({ signedIn: true });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}/me/submit`);
    await page.click('button[type=submit]:has-text("Submit for review")');
    await page.waitForURL(`${t.baseUrl}/me/submissions`);
    expect(await page.locator('.field-error').count()).toBeGreaterThan(1);
    await page.screenshot({ path: path.join(SHOTS, 'me-submit-errors-desktop.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await ctx.close();
  }, 60_000);

  it('submits work with the keyboard alone', async () => {
    const ctx = await context({ signedIn: true });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}/me/submit`);
    const focused = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? '');
    // From the top of the page, Tab until the first field of the form.
    for (let i = 0; i < 40 && (await focused()) !== 'f-url'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('f-url');
    await page.keyboard.type(`https://${w.pub.domain}/climate/explainer`);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('f-role');
    // A select answers typed letters: "Rev" picks Review.
    await page.keyboard.type('Rev');
    const steps: [string, string][] = [
      ['f-summary', 'Reviewed the explainer line by line'],
      ['f-before', 'Temperatures rose 2 degrees.'],
      ['f-after', 'Temperatures rose 1.1 degrees.'],
      ['f-reason', 'The IPCC gives 1.1 °C of warming since 1850-1900.'],
      ['f-sources', 'https://ipcc.example/ar6'],
    ];
    for (const [id, text] of steps) {
      await page.keyboard.press('Tab');
      expect(await focused()).toBe(id);
      await page.keyboard.type(text);
    }
    // The optional quote and fact-check fields come next; a review leaves them empty and Tabs on to the button.
    const focusedText = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent ?? '');
    for (let i = 0; i < 10 && (await focusedText()) !== 'Submit for review'; i++) await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Submit for review');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.baseUrl}/me/submissions?done=submitted`);
    await expect.poll(() => page.locator('[role=status].notice').textContent()).toContain('Your work is submitted.');
    expect(await page.locator('main').textContent()).toContain('Reviewed the explainer line by line');
    const row = await t.runtime.deps.db
      .selectFrom('submissions')
      .select(['kind', 'before_text', 'after_text', 'sources'])
      .where('summary', '=', 'Reviewed the explainer line by line')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ kind: 'review', before_text: 'Temperatures rose 2 degrees.', after_text: 'Temperatures rose 1.1 degrees.', sources: '["https://ipcc.example/ar6"]' });
    await ctx.close();
  }, 60_000);

  it('creates a key, copies it and releases a request with the keyboard alone', async () => {
    const ctx = await context({ signedIn: true });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}/me/keys`);
    const focusedId = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? '');
    for (let i = 0; i < 40 && (await focusedId()) !== 'f-name'; i++) await page.keyboard.press('Tab');
    await page.keyboard.type('laptop');
    await page.keyboard.press('Enter');
    await page.waitForLoadState('load');
    const secret = await page.locator('#new-key').inputValue();
    expect(secret).toMatch(/^cred_live_[0-9a-f]{64}$/);
    await page.screenshot({ path: path.join(SHOTS, 'me-keys-created-desktop.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    // The copy button appears with JavaScript and works from the keyboard.
    for (let i = 0; i < 40 && !(await page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('data-copy'))); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#copy-status').textContent()).toContain('Copied');
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(secret);

    // Release the held request: Tab to its button, press Space; the second step opens and says what happens, then
    // Tab to its one button and press Space.
    await page.goto(`${t.baseUrl}/me/requests`);
    const step = page.locator(`details.confirm:has(form[action="/me/requests/${w.requestIds[0]}/release"])`);
    const focused = (l: typeof step) => l.evaluate((b) => b === (globalThis as any).document.activeElement);
    for (let i = 0; i < 60 && !(await focused(step.locator('summary'))); i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    expect(await step.locator('p').innerText()).toContain('someone else may take it');
    await page.keyboard.press('Tab');
    expect(await focused(step.locator('button'))).toBe(true);
    await page.keyboard.press('Space');
    await page.waitForURL(`${t.baseUrl}/me/requests?done=released`);
    const row = await t.runtime.deps.db.selectFrom('requests').select('status').where('id', '=', w.requestIds[0]!).executeTakeFirstOrThrow();
    expect(row.status).toBe('open');
    await ctx.close();
  }, 60_000);

  it('reads without JavaScript, and the copy button stays hidden then', async () => {
    const ctx = await context({ signedIn: true, js: false });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}/records/${w.page.id}`);
    expect(await page.locator('main').textContent()).toContain('Ida B. Wells');
    await page.goto(`${t.baseUrl}/me/keys`);
    await page.fill('#f-name', 'no script');
    await page.click('button:has-text("Create key")');
    await page.waitForLoadState('load');
    expect(await page.locator('#new-key').inputValue()).toMatch(/^cred_live_/);
    expect(await page.locator('[data-copy]').isVisible()).toBe(false);
    await ctx.close();
  }, 60_000);
});
