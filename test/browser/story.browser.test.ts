// The whole story, in Chromium, as people would walk it: a publisher signs up, creates a publication,
// claims a domain and verifies it against a well-known file served locally, registers pages, opens a request,
// creates an API key and two webhooks (one per format); a contributor signs up, takes the request in their panel
// and submits a correction; the publisher accepts it in the inbox; the public record, the proof, the contributor's
// profile and the embed on the publisher's own site show it; the webhook receiver got every event, signed.
// Screenshots of the main pages at desktop and phone widths go to test-results/screenshots/ (kept out of git).
import { confirmAddress } from '../factories.js';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { relayFor } from '../api/webhooks.fixtures.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { hasChromium, cspViolations, launch } from './chromium.js';

const SHOTS = path.join(process.cwd(), 'test-results', 'screenshots');
const SLUG = 'daily-ledger';
const DOMAIN = 'dailyledger.example';
const ARTICLE = `https://${DOMAIN}/health/measles-cases-rise`;

let t: TestApp;
let browser: Browser;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let files: Map<string, string>;
let fileServer: http.Server;
/** The publisher's own site, on another origin, where the embed goes. */
let site: http.Server;
let siteOrigin: string;

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  files = new Map();
  fileServer = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(body ?? 'not found');
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  t.setWellKnownBase(`http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`);
  site = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Measles cases rise</title>
<link rel="canonical" href="${ARTICLE}"></head><body><main><h1>Measles cases rise in three states</h1><p>Rates fell to 79% last year.</p>
<script async src="${t.baseUrl}/embed.js" data-page="auto" data-style="full" data-refresh="1"></script></main></body></html>`),
  );
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
  rx = await WebhookReceiver.start();
  // The relay runs as `credence serve` runs it: in the background, polling the outbox.
  relay = relayFor(t, { pollMs: 50 });
  relay.start();
  browser = await launch();
  fs.mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await rx?.close();
  fileServer?.close();
  site?.close();
  await t?.close();
  // After the clean-up, so a failure here leaves nothing running.
  expect(cspViolations).toEqual([]);
});

async function signUp(context: BrowserContext, who: { name: string; username: string; email: string }): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${t.baseUrl}/signup`);
  await page.getByLabel(/^Name/).fill(who.name);
  await page.getByLabel(/^Username/).fill(who.username);
  await page.getByLabel(/^Email/).fill(who.email);
  await page.getByLabel(/^Password/).fill('a long enough password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await confirmAddress(t, who.email);
  // Sign-up redirects to the log-in form (the same for a taken email): log in.
  await page.waitForURL(/\/login\?done=signed-up/);
  await page.getByLabel(/^Email/).fill(who.email);
  await page.getByLabel(/^Password/).fill('a long enough password');
  await Promise.all([page.waitForURL(/\/me\?done=welcome/), page.getByRole('button', { name: 'Sign in' }).click()]);
  return page;
}

const main = (page: Page) => page.locator('main').innerText();

/** A section of the publication, from the dashboard's own navigation. */
const tab = (page: Page, name: string | RegExp) => page.getByRole('navigation', { name: /^Sections of/ }).getByRole('link', { name });

/** Every main page at desktop and phone widths. */
async function screenshots(context: BrowserContext, name: string, url: string): Promise<void> {
  const page = await context.newPage();
  for (const [label, width, height] of [
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto(t.baseUrl + url);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`), fullPage: true });
    // Nothing sticks out sideways on a phone.
    if (label === 'phone') {
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth);
      expect(overflow, `${url} is wider than a phone`).toBeLessThanOrEqual(0);
    }
  }
  await page.close();
}

describe.skipIf(!hasChromium)('the whole story, in a browser', { timeout: 90_000 }, () => {
  let publisher: BrowserContext;
  let contributor: BrowserContext;
  let pub: Page;
  let requestId: number;
  let proofId: number;
  const secrets: Record<string, string> = {};

  it('a publisher signs up, creates a publication, and verifies its domain with the well-known file', async () => {
    publisher = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    publisher.setDefaultTimeout(8000);
    pub = await signUp(publisher, { name: 'Paula Publisher', username: 'paula', email: 'paula@dailyledger.example' });
    await Promise.all([pub.waitForURL(/\/dashboard$/), pub.getByRole('link', { name: 'For publishers' }).click()]);
    expect(await main(pub)).toContain('Create your publication');
    await pub.getByLabel(/^Name/).fill('The Daily Ledger');
    await pub.getByLabel(/^Short name/).fill(SLUG);
    await Promise.all([pub.waitForURL(/done=created/), pub.getByRole('button', { name: 'Create publication' }).click()]);
    expect(await main(pub)).toContain('Your publication is ready');

    await tab(pub, 'Domains').click();
    await pub.getByLabel(/^Domain/).fill(DOMAIN);
    await Promise.all([pub.waitForURL(/done=claimed/), pub.getByRole('button', { name: 'Claim domain' }).click()]);
    const token = (await pub.locator('#file-0').innerText()).trim();
    expect(await pub.locator('#txt-0').innerText()).toBe(`credence-verification=${token}`);
    // Verify before publishing anything: the page says what the check found.
    await pub.getByRole('button', { name: `Verify ${DOMAIN}` }).click();
    await expect.poll(() => pub.locator('[role=alert]').innerText()).toContain('File: answered HTTP 404');
    // The publisher puts the file on their site, and tries again.
    files.set('/.well-known/credence-verification.txt', `${token}\n`);
    await Promise.all([pub.waitForURL(/done=verified/), pub.getByRole('button', { name: `Verify ${DOMAIN}` }).click()]);
    expect(await main(pub)).toContain('by well-known file');
  });

  it('registers pages (a pasted list and one more), and opens a request', async () => {
    await tab(pub, 'Pages').click();
    await pub.getByLabel(/^Pages, one per line/).fill(
      [
        `${ARTICLE} | Measles cases rise in three states | health`,
        `https://${DOMAIN}/health/vaccination-rates | Vaccination rates fall | health`,
        'https://someone-else.example/story',
      ].join('\n'),
    );
    await pub.getByRole('button', { name: 'Register the list' }).click();
    await expect.poll(() => pub.locator('#batch').innerText()).toContain('2 created, 1 failed');
    expect(await pub.locator('#batch').innerText()).toContain('someone-else.example is not a verified site');
    await pub.getByLabel(/^URL/).fill(`https://${DOMAIN}/economy/rents`);
    await pub.getByLabel(/^Title/).fill('Rents climb again');
    await pub.getByLabel(/^Topic/).fill('economy');
    await Promise.all([pub.waitForURL(/done=created/), pub.getByRole('button', { name: 'Register page' }).click()]);
    expect(await main(pub)).toContain('On record (3)');

    await tab(pub, 'Requests').click();
    // One field for the page: its address, the publication's pages offered as one types.
    const measles = await pub.locator('#your-pages option', { hasText: 'Measles cases rise in three states' }).getAttribute('value');
    await pub.locator('#f-url').fill(measles!);
    await pub.getByLabel(/^Kind of work/).selectOption('correction');
    await pub.getByLabel(/^Title/).fill('Check the vaccination figure');
    await pub.getByLabel(/^Brief/).fill('The second paragraph quotes a rate; check it against the CDC table.');
    await Promise.all([pub.waitForURL(/done=opened/), pub.getByRole('button', { name: 'Open request' }).click()]);
    expect(await main(pub)).toContain('Check the vaccination figure');
    requestId = (await t.runtime.deps.db.selectFrom('requests').select('id').executeTakeFirstOrThrow()).id;
  });

  it('creates an API key (shown once, copied) and a webhook in each format', async () => {
    await publisher.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await tab(pub, 'API keys').click();
    await pub.getByLabel(/^Name/).fill('CMS production');
    await pub.getByRole('button', { name: 'Create key' }).click();
    const key = (await pub.locator('#secret-value').innerText()).trim();
    expect(key).toMatch(/^cred_live_[0-9a-f]{64}$/);
    await pub.getByRole('button', { name: 'Copy the secret' }).click();
    await expect.poll(() => pub.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(key);
    // The key works for the CMS, and the page never shows it again.
    const lookup = await fetch(`${t.baseUrl}/api/v1/pages`, { headers: { 'x-api-key': key } });
    expect(lookup.status).toBe(200);
    // (A reload would post the form again and make a second key, as a browser warns; the page is opened anew.)
    await pub.goto(`${t.baseUrl}/dashboard/${SLUG}/keys`);
    expect(await pub.content()).not.toContain(key);
    expect(await pub.locator('main').innerText()).toContain(`${key.slice(0, 14)}…${key.slice(-4)}`);

    await tab(pub, 'Webhooks').click();
    await pub.getByLabel(/^Endpoint URL/).fill(rx.url('/cms'));
    await pub.getByRole('button', { name: 'Register webhook' }).click();
    secrets.cms = (await pub.locator('#secret-value').innerText()).trim();
    rx.trust('/cms', secrets.cms);
    await pub.getByLabel(/^Endpoint URL/).fill(rx.url('/newsroom'));
    await pub.getByLabel(/Public API \(\/v1\)/).check();
    await pub.getByRole('button', { name: 'Register webhook' }).click();
    secrets.newsroom = (await pub.locator('#secret-value').innerText()).trim();
    rx.trust('/newsroom', secrets.newsroom);
    expect(secrets.newsroom).toMatch(/^whsec_/);
    expect(secrets.newsroom).not.toBe(secrets.cms);
    // A page registered now reaches the /api/v1 endpoint.
    await tab(pub, 'Pages').click();
    await pub.getByLabel(/^URL/).fill(`https://${DOMAIN}/health/flu-season`);
    await pub.getByLabel(/^Title/).fill('Flu season starts early');
    await pub.getByLabel(/^Topic/).fill('health');
    await Promise.all([pub.waitForURL(/done=created/), pub.getByRole('button', { name: 'Register page' }).click()]);
    await rx.waitFor(() => rx.at('/cms').some((r) => r.event === 'page.registered'), 10_000, 'page.registered');
  });

  it('a contributor signs up, takes the request and submits a correction in their panel', async () => {
    contributor = await browser.newContext({ viewport: { width: 390, height: 844 } });
    contributor.setDefaultTimeout(8000);
    const me = await signUp(contributor, { name: 'Ida Wells', username: 'ida-wells', email: 'ida@example.org' });
    await me.goto(`${t.baseUrl}/me/requests`);
    const card = me.locator('li.card', { hasText: 'Check the vaccination figure' });
    await Promise.all([me.waitForURL(/done=taken/), card.getByRole('button', { name: /Take this request/ }).click()]);
    await me.locator('li.card', { hasText: 'Check the vaccination figure' }).getByRole('link', { name: /Submit work/ }).click();
    await me.getByLabel(/^Summary/).fill('Corrected the vaccination rate');
    await me.getByLabel(/^Before/).fill('Rates fell to 70% last year.');
    await me.getByLabel(/^After/).fill('Rates fell to 79% last year.');
    await me.getByLabel(/^Reason/).fill('The CDC table for 2025 gives 79%, not 70%.');
    await me.getByLabel(/^Sources/).fill('https://www.cdc.gov/vaccines/coverage-2025');
    await Promise.all([me.waitForURL(/done=submitted/), me.getByRole('button', { name: 'Submit for review' }).click()]);
    expect(await main(me)).toContain('Corrected the vaccination rate');
    await me.close();
    await rx.waitFor(() => rx.at('/newsroom').some((r) => r.event === 'contribution.submitted'), 10_000, 'contribution.submitted');
  });

  it('the publisher accepts it in the inbox, with the change as a diff', async () => {
    await tab(pub, /^Inbox/).click();
    expect(await pub.locator('.tabs .count').innerText()).toBe('1');
    const diff = pub.locator('.submission p.diff').first();
    expect(await diff.locator('del').innerText()).toBe('70');
    expect(await diff.locator('ins').innerText()).toBe('79');
    await pub.getByLabel(/Note to Ida Wells/).fill('Thank you: checked against the table.');
    // Accepting is final: the first button opens a step that says so, and the decision is its button.
    await pub.locator('details.confirm > summary', { hasText: /^Accept$/ }).click();
    await Promise.all([pub.waitForURL(/done=accepted/), pub.getByRole('button', { name: 'Accept for good' }).click()]);
    const href = await pub.getByRole('link', { name: 'see its proof' }).getAttribute('href');
    proofId = Number(/\/proofs\/(\d+)/.exec(href ?? '')?.[1]);
    expect(proofId).toBeGreaterThan(0);
    const request = await t.runtime.deps.db.selectFrom('requests').select('status').where('id', '=', requestId).executeTakeFirstOrThrow();
    expect(request.status).toBe('fulfilled');
  });

  it('the record, the proof, the profile and the embed on the publisher’s own site show it', async () => {
    const reader = await browser.newContext();
    const page = await reader.newPage();
    const { id: pageId } = await t.runtime.deps.db.selectFrom('pages').select('id').where('url', '=', ARTICLE).executeTakeFirstOrThrow();
    await page.goto(`${t.baseUrl}/records/${pageId}`);
    expect(await page.locator('body').innerText()).toContain('Ida Wells');
    await page.goto(`${t.baseUrl}/proofs/${proofId}`);
    const proof = await page.locator('body').innerText();
    expect(proof).toContain('The CDC table for 2025 gives 79%, not 70%.');
    expect(proof).toContain('Thank you: checked against the table.');
    await page.goto(`${t.baseUrl}/contributors/ida-wells`);
    expect(await page.locator('body').innerText()).toContain('Corrected the vaccination rate');
    // The publisher's article, on its own origin, with the one script tag from the dashboard.
    await page.goto(`${siteOrigin}/health/measles-cases-rise`);
    const block = page.locator('[data-credence-block] .credence');
    await expect.poll(() => block.innerText().catch(() => ''), { timeout: 10_000 }).toContain('Ida Wells');
    expect(await block.innerText()).toContain('79%');
    await reader.close();
  });

  it('the webhook receiver got every event, each signed with its endpoint’s secret', async () => {
    const want = {
      '/cms': ['page.registered', 'submission.received', 'contribution.accepted'],
      '/newsroom': ['request.taken', 'contribution.submitted', 'contribution.accepted'],
    };
    await rx.waitFor(
      () => Object.entries(want).every(([p, events]) => events.every((e) => rx.at(p).some((r) => r.event === e))),
      15_000,
      'every event of the story',
    );
    for (const [p, events] of Object.entries(want)) {
      const got = rx.at(p);
      expect(got.every((r) => r.verified), `${p} signatures`).toBe(true);
      expect(new Set(got.map((r) => r.event))).toEqual(new Set(events));
    }
    expect(rx.at('/cms').every((r) => r.format === 'api_v1')).toBe(true);
    expect(rx.at('/newsroom').every((r) => r.format === 'v1')).toBe(true);
    const accepted = rx.at('/cms').find((r) => r.event === 'contribution.accepted')!;
    expect(accepted.json.data.page.url).toBe(ARTICLE);
    // The dashboard shows the endpoints healthy.
    await tab(pub, 'Webhooks').click();
    expect(await pub.locator('main .hook .badge').allInnerTexts()).toEqual(['healthy', 'healthy']);
  });

  it('an operator issues a panel statement on the publisher’s topic; the /v1 endpoint hears of it', async () => {
    await createAdmin(t.runtime.deps, { email: 'olga@ops.example', password: 'a long admin password', username: 'olga', name: 'Olga Operator' });
    const ops = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ops.newPage();
    await page.goto(`${t.baseUrl}/login`);
    await page.getByLabel(/^Email/).fill('olga@ops.example');
    await page.getByLabel(/^Password/).fill('a long admin password');
    await Promise.all([page.waitForURL(/\/me/), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.getByRole('link', { name: 'Issue a new statement' }).click();
    await page.getByLabel(/^Statement id/).fill('measles-second-dose');
    await page.getByLabel(/^Topic/).fill('health');
    await page.getByLabel(/^Question/).fill('Is a second MMR dose needed for lasting protection?');
    await page.getByLabel(/^Answer/).fill('Yes. Two doses protect about 97% of people against measles; one dose about 93%.');
    await page.getByLabel(/^Certainty/).selectOption('high');
    await page.getByLabel(/^Panel/).fill('Dr. Helena Voss | chair | agree\nProf. Kofi Asante | member | agree\nDr. Pavel Horak | member | dissent');
    await page.getByLabel(/^Revisit by/).fill('2027-06-01');
    await page.getByLabel('A new study').check();
    await Promise.all([page.waitForURL(/done=issued/), page.getByRole('button', { name: 'Issue version 1' }).click()]);
    expect(await main(page)).toContain('Version 1 is issued and public.');
    await rx.waitFor(() => rx.at('/newsroom').some((r) => r.event === 'panel.updated'), 10_000, 'panel.updated');
    expect(rx.at('/newsroom').find((r) => r.event === 'panel.updated')!.verified).toBe(true);
    await screenshots(ops, 'admin', '/admin');
    await screenshots(ops, 'admin-statement', '/admin/panels/measles-second-dose');
    await ops.close();
  });

  it('writes screenshots of the main dashboard pages at desktop and phone widths', async () => {
    const { id: pageId } = await t.runtime.deps.db.selectFrom('pages').select('id').where('url', '=', ARTICLE).executeTakeFirstOrThrow();
    const { id: hookId } = await t.runtime.deps.db.selectFrom('webhooks').select('id').where('url', '=', rx.url('/cms')).executeTakeFirstOrThrow();
    // A second submission waits in the inbox, so the inbox shows a decision to make.
    const second = await t.runtime.deps.db.selectFrom('accounts').select('id').where('username', '=', 'ida-wells').executeTakeFirstOrThrow();
    const { submitWork } = await import('../../src/domain/submissions/submission.service.js');
    await submitWork(t.runtime.deps, second.id, [
      {
        index: 0,
        ok: true,
        value: {
          url: `https://${DOMAIN}/health/vaccination-rates`,
          role: 'correction',
          summary: 'Corrected the county count',
          evidence: {
            before: 'Cases were reported in 12 counties across the state.',
            after: 'Cases were reported in 14 counties across the state.',
            reason: 'The state health bulletin of 3 March lists 14 counties.',
            sources: ['https://health.example.gov/bulletins/2026-03-03'],
          },
        },
      },
    ]);
    const base = `/dashboard/${SLUG}`;
    for (const [name, url] of [
      ['dashboard-overview', base],
      ['dashboard-domains', `${base}/domains`],
      ['dashboard-pages', `${base}/pages`],
      ['dashboard-page', `${base}/pages/${pageId}`],
      ['dashboard-requests', `${base}/requests`],
      ['dashboard-inbox', `${base}/inbox`],
      ['dashboard-keys', `${base}/keys`],
      ['dashboard-webhooks', `${base}/webhooks`],
      ['dashboard-webhook', `${base}/webhooks/${hookId}`],
      ['dashboard-embed', `${base}/embed?page=${pageId}`],
    ] as const) {
      await screenshots(publisher, name, url);
    }
    // And one in dark mode, for the stylesheet's other scheme.
    const dark = await publisher.newPage();
    await dark.emulateMedia({ colorScheme: 'dark' });
    await dark.goto(`${t.baseUrl}${base}/inbox`);
    await dark.screenshot({ path: path.join(SHOTS, 'dashboard-inbox-desktop-dark.png'), fullPage: true });
    await dark.close();
    const written = fs.readdirSync(SHOTS).filter((f) => f.startsWith('dashboard-') || f.startsWith('admin'));
    expect(written.length).toBeGreaterThanOrEqual(24);
    await contributor.close();
    await publisher.close();
  });
});
