// Every dashboard and admin page in Chromium: axe-core finds no violations, in light and dark mode, with the pages
// in their interesting states (pending claims and a failed check, an inbox with a diff, a one-time secret, a
// webhook with failed attempts, form errors). And forms work with the keyboard alone.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatement } from '../../src/domain/panels/panel.service.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { statementBody } from '../api/panels.fixtures.js';
import { relayFor } from '../api/webhooks.fixtures.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmClaims } from '../factories.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { registerPage, submitCorrection, type WebPublication, webAdmin, webPublication, webUser, type WebUser } from '../web/dashboard.fixtures.js';
import { AXE_SOURCE, hasChromium, cspViolations, launch } from './chromium.js';

let t: TestApp;
let browser: Browser;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let pub: WebPublication;
let newcomer: WebUser;
/** Invited to `pub` and not answering yet: their /me shows the invitation. */
let invitee: WebUser;
let admin: WebUser;
let statementId: string;
let pageId: number;
let hookId: number;
let fileServer: http.Server;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  fileServer = http.createServer((_req, res) => res.writeHead(404).end('not here'));
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  t.setWellKnownBase(`http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`);
  rx = await WebhookReceiver.start();
  relay = relayFor(t);

  // A publication with something in every section.
  pub = await webPublication(t);
  const author = await webUser(t, 'Nellie Bly');
  const specialist = await webUser(t, 'Ida Wells');
  newcomer = await webUser(t, 'Nico Newcomer');
  admin = await webAdmin(t);
  await pub.owner.api.post(`/api/v1/account/publishers/${pub.slug}/domains`, { domain: `pending-${pub.slug}.example` });
  // Adding someone invites them; the author accepts below, in the browser, once it runs.
  const invited = await pub.owner.api.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: author.username, role: 'editor' });
  expect(invited.status, invited.text).toBe(202);
  invitee = specialist;
  const pending = await pub.owner.api.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: invitee.username, role: 'owner' });
  expect(pending.status, pending.text).toBe(202);
  const reg = await pub.owner.api.post('/api/v1/pages', { url: `https://${pub.domain}/health/measles`, title: 'Measles cases rise in three states', topic: 'health', authors: [author.username] });
  pageId = reg.body.data.id;
  await confirmClaims(author);
  await registerPage(t, pub, 'health/vaccines', 'Vaccination rates fall');
  const accepted = await submitCorrection(specialist, `https://${pub.domain}/health/measles`);
  await pub.owner.api.post('/api/v1/submissions/decide', { submission_id: accepted, decision: 'accept', note: 'Thanks' });
  await submitCorrection(specialist, `https://${pub.domain}/health/vaccines`, {
    summary: 'Corrected the county count',
    evidence: { before: 'Cases were reported in 12 counties.', after: 'Cases were reported in 14 counties.', reason: 'The state bulletin of 3 March lists 14.', sources: ['https://health.example.gov/bulletin'] },
  });
  const open = await pub.owner.api.post('/api/v1/requests', { url: `https://${pub.domain}/health/vaccines`, request_type: 'fact_checker', title: 'Check the rates' });
  await specialist.api.post(`/api/v1/review-requests/${open.body.data.id}/take`);
  await pub.owner.api.post('/api/v1/requests', { article_ref_id: pageId, request_type: 'reviewer', title: 'Review the whole story' });
  await pub.owner.api.post('/api/v1/account/api-keys', { name: 'CMS production', publisher: pub.slug });
  const hook = await pub.owner.api.post('/api/v1/account/webhooks', { url: rx.url('/hook'), publisher: pub.slug });
  hookId = hook.body.data.id;
  rx.answer('/hook', { status: 500, body: 'database unavailable' });
  await registerPage(t, pub, 'health/flu', 'Flu season starts early');
  await relay.tick();

  statementId = (await createStatement(t.runtime.deps, statementBody() as never)).id;
  browser = await launch();

  // The author joins the way people do: the Accept button on their own page.
  const ctx = await as(author);
  const page = await ctx.newPage();
  await page.goto(`${t.baseUrl}/me`);
  await page.getByRole('button', { name: `Accept the invitation to The ${pub.slug}` }).click();
  await page.waitForURL('**/me?done=joined');
  await ctx.close();
  const members = await pub.owner.api.get(`/api/v1/account/publishers/${pub.slug}/members`);
  expect(members.body.data.map((m: { username: string }) => m.username)).toContain(author.username);
  // A key of the author's for the publication: the owner's keys page lists it under other members' keys.
  expect((await author.api.post('/api/v1/account/api-keys', { name: 'Author CMS', publisher: pub.slug })).status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await rx?.close();
  fileServer?.close();
  await t?.close();
  // After the clean-up, so a failure here leaves nothing running.
  expect(cspViolations).toEqual([]);
});

/** A browser context signed in as `who` (their session cookie, as the log-in form sets it). */
async function as(who: WebUser, scheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'credence_session', value: who.b.cookie('credence_session')!, url: t.baseUrl }]);
  return context;
}

async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const a = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await a.run((globalThis as any).document);
    return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
  });
}

/** Open a page (or run `act` on it) and return axe's findings with the address. */
async function check(context: BrowserContext, path: string, act?: (page: Page) => Promise<void>): Promise<string[]> {
  const page = await context.newPage();
  const res = await page.goto(t.baseUrl + path);
  expect(res?.status(), path).toBeLessThan(500);
  if (act) await act(page);
  const found = await axe(page);
  await page.close();
  return found.map((v) => `${path}: ${v}`);
}

describe.skipIf(!hasChromium)('accessibility of every dashboard and admin page (axe-core)', { timeout: 180_000 }, () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no violations on the dashboard, ${scheme}`, async () => {
      const ctx = await as(pub.owner, scheme);
      const b = pub.base;
      const found = [
        ...(await check(ctx, b)),
        ...(await check(ctx, `${b}/domains`)),
        // A failed check: what was found, next to the domain.
        ...(await check(ctx, `${b}/domains`, async (p) => {
          await p.getByRole('button', { name: `Verify pending-${pub.slug}.example` }).click();
          await p.waitForSelector('[role=alert]');
        })),
        ...(await check(ctx, `${b}/pages`)),
        ...(await check(ctx, `${b}/pages`, async (p) => {
          await p.fill('#f-lines', `https://${pub.domain}/a | A\nnot a url\nhttps://elsewhere.example/b`);
          await p.getByRole('button', { name: 'Register the list' }).click();
          await p.waitForSelector('#batch');
        })),
        ...(await check(ctx, `${b}/pages`, async (p) => {
          await p.fill('#f-url', 'https://elsewhere.example/x');
          await p.getByRole('button', { name: 'Register page' }).click();
          await p.waitForSelector('#f-url-error');
        })),
        ...(await check(ctx, `${b}/pages/${pageId}`)),
        ...(await check(ctx, `${b}/requests`)),
        ...(await check(ctx, `${b}/inbox`)),
        ...(await check(ctx, `${b}/inbox?status=all`)),
        ...(await check(ctx, `${b}/keys`)),
        ...(await check(ctx, `${b}/keys`, async (p) => {
          await p.fill('#f-name', `Key ${scheme}`);
          await p.getByRole('button', { name: 'Create key' }).click();
          await p.waitForSelector('#secret');
        })),
        ...(await check(ctx, `${b}/webhooks`)),
        ...(await check(ctx, `${b}/webhooks/${hookId}`)),
        ...(await check(ctx, `${b}/embed?page=${pageId}`)),
        ...(await check(ctx, `${b}/embed?page=${pageId}&style=badge&lang=fr`)),
        ...(await check(ctx, '/dashboard?all=1')),
        ...(await check(ctx, '/dashboard/no-such-publication')),
      ];
      await ctx.close();
      const other = await as(newcomer, scheme);
      found.push(...(await check(other, '/dashboard')));
      found.push(
        ...(await check(other, '/dashboard', async (p) => {
          await p.getByRole('button', { name: 'Create publication' }).click();
          await p.waitForSelector('#f-name-error');
        })),
      );
      found.push(...(await check(other, '/admin')));
      await other.close();
      // A person's own page with an invitation waiting on it.
      const asked = await as(invitee, scheme);
      found.push(...(await check(asked, '/me')));
      await asked.close();
      expect(found).toEqual([]);
    });

    it(`has no violations on the admin pages, ${scheme}`, async () => {
      const ctx = await as(admin, scheme);
      const found = [
        ...(await check(ctx, '/admin')),
        ...(await check(ctx, '/admin/panels/new')),
        ...(await check(ctx, '/admin/panels/new', async (p) => {
          await p.fill('#f-panel', 'Dr. A | chair | perhaps');
          await p.getByRole('button', { name: 'Issue version 1' }).click();
          await p.waitForSelector('#f-panel-error');
        })),
        ...(await check(ctx, `/admin/panels/${statementId}`)),
      ];
      await ctx.close();
      expect(found).toEqual([]);
    });
  }
});

/** Press Tab until the focused element matches `selector`; fails when it is not reachable by keyboard. */
async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => (globalThis as any).document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`${selector} is not reachable with Tab`);
}

describe.skipIf(!hasChromium)('the keyboard alone', { timeout: 60_000 }, () => {
  it('skips to the content, registers a page, decides a submission and copies a new key', async () => {
    const ctx = await as(pub.owner);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}${pub.base}/pages`);
    // The first Tab reaches the skip link, which moves focus past the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    // The fragment navigation lands a moment after the key press on a busy machine: wait for it.
    await page.waitForURL(/#main$/, { timeout: 5000 });

    await tabTo(page, '#f-url');
    // The focused field shows a visible focus ring.
    expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.activeElement).outlineStyle)).toBe('solid');
    await page.keyboard.type(`https://${pub.domain}/typed/by-keyboard`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('Typed with the keyboard');
    await page.keyboard.press('Tab');
    await page.keyboard.type('health');
    // The optional fields (authors, "fetch the page's text") are left as they are on the way to the button.
    const focusedText = () => page.evaluate(() => (globalThis as any).document.activeElement?.textContent ?? '');
    for (let i = 0; i < 6 && (await focusedText()) !== 'Register page'; i++) await page.keyboard.press('Tab');
    expect(await focusedText()).toBe('Register page');
    await Promise.all([page.waitForURL(/done=created/), page.keyboard.press('Enter')]);
    expect(await page.textContent('main')).toContain('Typed with the keyboard');

    // The inbox: a note and Accept, by keyboard.
    await page.goto(`${t.baseUrl}${pub.base}/inbox`);
    await tabTo(page, 'textarea[name=note]');
    await page.keyboard.type('Checked against the bulletin.');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Accept');
    // Enter opens the second step; its one button, next in the tab order, decides.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Accept for good');
    await Promise.all([page.waitForURL(/done=accepted/), page.keyboard.press('Enter')]);
    expect(await page.textContent('main')).toContain('Accepted: the work is on the public record now');

    // A new key: Space on the Copy button puts the secret on the clipboard.
    await page.goto(`${t.baseUrl}${pub.base}/keys`);
    await tabTo(page, '#f-name');
    await page.keyboard.type('Keyboard key');
    await tabTo(page, 'button[type=submit]:not(.link)');
    await Promise.all([page.waitForSelector('#secret-value'), page.keyboard.press('Enter')]);
    const secret = await page.textContent('#secret-value');
    expect(secret).toMatch(/^cred_live_[0-9a-f]{64}$/);
    // The secret card takes focus so nobody misses it; the Copy button is next.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('secret');
    await tabTo(page, 'button[data-copy=secret-value]', 5);
    await page.keyboard.press('Space');
    await expect.poll(() => page.textContent('.copy-status')).toBe('Copied');
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(secret);
    await ctx.close();
  });

  it('keeps the embed snippet in step with the chosen style and language, before any submit, and copies that one', async () => {
    const ctx = await as(pub.owner);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}${pub.base}/embed?page=${pageId}`);
    expect(await page.textContent('#snippet')).toContain('data-style="full" data-lang="en"');
    await tabTo(page, 'input[name=style][value=full]');
    // Arrow keys move through a radio group; the second style is compact, the third the badge.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await tabTo(page, '#f-lang');
    await page.selectOption('#f-lang', 'de');
    expect(page.url()).not.toContain('style=');
    expect(await page.textContent('#snippet')).toContain('data-style="badge" data-lang="de"');
    expect(await page.textContent('#template-snippet')).toContain('data-page="auto" data-style="badge" data-lang="de"');
    await page.click('button[data-copy=snippet]');
    await expect.poll(() => page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toContain('data-style="badge" data-lang="de"');
    await ctx.close();
  });

  it('works without JavaScript: forms post, the secret shows, copy buttons stay hidden', async () => {
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    await ctx.addCookies([{ name: 'credence_session', value: pub.owner.b.cookie('credence_session')!, url: t.baseUrl }]);
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}${pub.base}/keys`);
    await page.getByLabel(/^Name/).fill('No-JS key');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('#secret-value').innerText()).toMatch(/^cred_live_[0-9a-f]{64}$/);
    expect(await page.locator('button[data-copy]').isHidden()).toBe(true);
    await page.goto(`${t.baseUrl}${pub.base}/embed?page=${pageId}&style=compact`);
    // The chosen style's live preview falls back to the server's rendering.
    expect(await page.locator('figure.chosen').innerText()).toContain('Corrected by');
    await page.goto(`${t.baseUrl}${pub.base}/pages`);
    await page.getByLabel(/^URL/).fill(`https://${pub.domain}/no-js`);
    await Promise.all([page.waitForURL(/done=created/), page.getByRole('button', { name: 'Register page' }).click()]);
    await ctx.close();
  });

  it('verifies a domain by hand with the keyboard (admin)', async () => {
    const ctx = await as(admin);
    const page = await ctx.newPage();
    await page.goto(`${t.baseUrl}/admin`);
    await tabTo(page, '#f-publisher');
    await page.keyboard.type(pub.slug);
    await page.keyboard.press('Tab');
    await page.keyboard.type(`hand-${pub.slug}.example`);
    await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(/done=domain-verified/), page.keyboard.press('Enter')]);
    expect(await page.textContent('main')).toContain('The domain is verified');
    await ctx.close();
  });
});
