// A walk through the site in Debian's Chromium, as four people: signed out, a publisher (a demo publication's owner),
// an operator and a contributor, on the demo dataset. From the home page and each role's own areas it follows internal links,
// breadth first, to at most PAGES_PER_ROLE distinct pages (at most SAME_SHAPE of one address shape, so the pages are
// varied), and on each page, at 1280 and at 390 pixels: no sideways scrolling (scrollWidth ≤ innerWidth), no serious
// or critical axe-core violation, no console error, and a screenshot in test-results/walk/ (kept out of git). Every
// internal link a visited page shows must answer below 400. The database plays no part in what it checks: it runs on
// the SQLite run only.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { DEMO_CONTRIBUTORS, DEMO_PASSWORD, DEMO_PUBLISHERS, demoEmail } from '../../src/demo/demo-data.js';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { startTestApp, usingPostgres, type TestApp } from '../harness.js';
import { AXE_SOURCE, cspViolations, hasChromium, launch } from './chromium.js';

const SHOTS = path.resolve('test-results/walk');
const PAGES_PER_ROLE = 60;
const SAME_SHAPE = 2;
const LINKS_PER_ROLE = 800;
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const run = hasChromium && !usingPostgres();
/** Where the walk also starts, to check the 404 page itself. */
const MISSING = '/nope';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!run) return;
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  await seedDemo(t.runtime.deps, () => undefined);
  await integrate(t.runtime.deps);
  browser = await launch();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A session for a demo account, as its owner would get by logging in. */
async function sessionOf(username: string, email = demoEmail(username)): Promise<string> {
  const res = await fetch(`${t.baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { token: string } }).data.token;
}

// Segments after these name one thing (an id, a slug, a username) unless they are one of the app's own words.
const NAMED_BY = new Set(['contributors', 'publishers', 'panels', 'records', 'proofs', 'log', 'dashboard', 'pages', 'webhooks', 'keys', 'inbox', 'submissions', 'requests', 'reports', 'decisions', 'appeals']);
const OWN_WORDS = new Set(['new', 'batch', 'domains', 'embed', 'inbox', 'keys', 'members', 'pages', 'requests', 'webhooks', 'scores', 'notices', 'deliveries']);

/** The address's shape: `/contributors/:x/scores?page` for every contributor's scores, and so on. */
function shapeOf(url: URL): string {
  const segments = url.pathname.split('/').filter(Boolean);
  const shape = segments.map((s, i) => (/\d/.test(s) || (i > 0 && NAMED_BY.has(segments[i - 1]!) && !OWN_WORDS.has(s)) ? ':x' : s));
  return `/${shape.join('/')}?${[...url.searchParams.keys()].sort().join('&')}`;
}

// Evaluated in the page (strings: this project's TypeScript has no DOM types).
/** What the page scrolls sideways by, if at all. */
const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;

/** The last elements past the viewport's right edge, to say what made a page scroll. */
const culprits = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(-3)
    .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' (' + Math.round(el.getBoundingClientRect().right) + ' px)')`) as Promise<string[]>;

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(`axe.run(document).then((r) => r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' (' + v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(', ') + ')'))`) as Promise<string[]>;
}

/** Every link on the page: where it goes, and whether it downloads. */
const anchorsOf = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('a[href]')].map((a) => ({ href: a.href, download: a.hasAttribute('download') }))`) as Promise<{ href: string; download: boolean }[]>;

/**
 * What cannot be undone asks twice (docs/decisions/irreversible-actions-ask-twice.md): every button that posts a
 * delete, remove, withdraw, release, revoke, cancel, refusal, an ended declaration or an inbox decision sits in a
 * closed `details.confirm` whose opened step says what will happen. Signing a browser out is not among them: signing
 * in again undoes it. Returns the bare buttons, and the kinds of second step the page holds.
 */
const DESTRUCTIVE = String.raw`/(delete|remove|withdraw|release|revoke|cancel|refuse|decide)$|/interests/\d+/end$`;
const secondSteps = (page: Page) =>
  page.evaluate(`(() => {
    const bare = [], kinds = [];
    for (const b of document.querySelectorAll('form[method=post] button[type=submit]')) {
      const path = new URL(b.form.action).pathname;
      if (!new RegExp(${JSON.stringify(DESTRUCTIVE)}).test(path)) continue;
      // Deleting an account asks for the username typed out and the password instead: its own second step.
      if (b.form.querySelector('input[name=confirm_username]')) continue;
      // A moderator's decision on a report: its first post answers with the step saying what it does (server-side).
      if (b.form.hasAttribute('data-asks-again')) continue;
      const step = b.closest('details.confirm');
      const says = step && [...step.querySelectorAll('p')].some((p) => p.textContent.trim().length > 20);
      if (!step || step.open || !says || step.querySelector('summary') !== step.firstElementChild) bare.push(path + ' (' + b.textContent.trim() + ')');
      else kinds.push(path.split('/').pop() + (b.value ? '=' + b.value : ''));
    }
    return { bare, kinds };
  })()`) as Promise<{ bare: string[]; kinds: string[] }>;

/**
 * At a phone's width: a tab strip wider than the screen shows that it scrolls (its edge shadows) and has the current
 * tab in view; a stacked table's labels break between words only and take room of their own (they used to be
 * placed over the cell, so "Accepted work" ran into the next row and "Contributor" broke as "Contributo/r").
 */
const phoneFaults = (page: Page) =>
  page.evaluate(`(async () => {
    // The strip is brought into view on the resize (public/tabs.js): let the resize's frame pass first.
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const faults = [];
    const strip = document.querySelector('nav.tabs');
    if (strip && strip.scrollWidth > strip.clientWidth) {
      if (!/gradient/.test(getComputedStyle(strip).backgroundImage)) faults.push('the tab strip scrolls with no sign that it does');
      const current = strip.querySelector('[aria-current="page"]');
      if (current) {
        const a = current.getBoundingClientRect(), b = strip.getBoundingClientRect();
        if (a.left < b.left - 1 || a.right > b.right + 1) faults.push('the current tab, ' + current.textContent.trim() + ', is out of view');
      }
    }
    const measure = document.createElement('canvas').getContext('2d');
    const labels = new Set();
    for (const td of document.querySelectorAll('table.stack td[data-label]')) {
      const text = td.getAttribute('data-label');
      if (!text || labels.has(text)) continue;
      labels.add(text);
      const label = getComputedStyle(td, '::before');
      if (label.position === 'absolute') faults.push('the label ' + text + ' lies over its cell');
      measure.font = label.fontWeight + ' ' + label.fontSize + ' ' + label.fontFamily;
      const room = parseFloat(label.width);
      for (const word of (label.textTransform === 'uppercase' ? text.toUpperCase() : text).split(' '))
        if (measure.measureText(word).width > room + 0.5) faults.push('the label ' + text + ' breaks inside "' + word + '"');
    }
    return faults;
  })()`) as Promise<string[]>;

interface Walked {
  pages: string[];
  links: number;
  failures: string[];
  /** The kinds of second step met (release, delete, decide=accept, …). */
  confirms: Set<string>;
}

/** `limit`: at most this many pages (a walk through one flow takes its own pages and a few it links to). */
async function walk(role: string, starts: string[], session: string | null, limit = PAGES_PER_ROLE): Promise<Walked> {
  const context: BrowserContext = await browser.newContext({ viewport: WIDTHS[0], reducedMotion: 'reduce' });
  if (session) await context.addCookies([{ name: 'credence_session', value: session, url: t.baseUrl }]);
  const page = await context.newPage();
  const failures: string[] = [];
  const consoleErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(err.message));

  const queue = starts.map((s) => new URL(s, t.baseUrl).href);
  const seen = new Set(queue);
  const shapes = new Map<string, number>();
  const links = new Set<string>();
  const visited: string[] = [];
  const confirms = new Set<string>();
  while (queue.length > 0 && visited.length < limit) {
    const url = new URL(queue.shift()!);
    const shape = shapeOf(url);
    if ((shapes.get(shape) ?? 0) >= SAME_SHAPE) continue;
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    const label = `${role} ${url.pathname}${url.search}`;
    await page.setViewportSize(WIDTHS[0]);
    consoleErrors.length = 0;
    const res = await page.goto(url.href, { waitUntil: 'load' });
    // An address that is not there (a start of the walk) must still be a page that fits and reads well.
    const missing = url.pathname === MISSING;
    if (!res || (res.status() >= 400 && !(missing && res.status() === 404))) {
      failures.push(`${label}: answered ${res?.status()}`);
      continue;
    }
    if (!(res.headers()['content-type'] ?? '').startsWith('text/html')) continue;
    visited.push(url.pathname + url.search);
    // Let deferred scripts (the proof page's check, the embeds) run before anything is read; a log check must end
    // verified (what it writes, the key and root, is part of the page to fit).
    await page.waitForLoadState('networkidle').catch(() => undefined);
    if ((await page.locator('[data-log-index]').count()) > 0) {
      const state = () => page.locator('[data-log-index]').getAttribute('data-log-state');
      await expect.poll(state, { timeout: 20_000 }).toMatch(/^(verified|failed|unavailable|unsupported)$/);
      if ((await state()) !== 'verified') failures.push(`${label}: the log check says ${await page.locator('[data-log-status]').textContent()}`);
    }
    const anchors = await anchorsOf(page);
    for (const a of anchors) {
      const target = new URL(a.href);
      if (!/^https?:$/.test(target.protocol) || target.origin !== t.baseUrl || target.pathname === '/logout') continue;
      target.hash = '';
      if (target.pathname !== MISSING) links.add(target.href);
      // Pages only: not the APIs' JSON, files, or what downloads (an export, a proof file).
      const html = !a.download && !/^\/(v1|api)\b/.test(target.pathname) && !/\.(js|css|json)$/.test(target.pathname) && target.pathname !== '/me/export';
      if (html && !seen.has(target.href)) {
        seen.add(target.href);
        queue.push(target.href);
      }
    }
    const name = `${role}-${visited.length.toString().padStart(2, '0')}-${url.pathname.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home'}`;
    for (const width of WIDTHS) {
      await page.setViewportSize(width);
      const wider = await overflow(page);
      if (width.name === 'phone') for (const f of await phoneFaults(page)) failures.push(`${label} at ${width.width} px: ${f}`);
      if (wider > 0) failures.push(`${label} at ${width.width} px: scrolls sideways by ${wider} px: ${(await culprits(page)).join(', ')}`);
      // A screenshot is a record for people, not a check: a slow one (a long page on a busy machine) never fails the walk.
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width.name}.png`), fullPage: true, timeout: 10_000 }).catch(() => undefined);
    }
    for (const v of await seriousViolations(page)) failures.push(`${label}: ${v}`);
    const asked = await secondSteps(page);
    for (const b of asked.bare) failures.push(`${label}: ${b} posts at one click, with no second step saying what it does`);
    for (const k of asked.kinds) confirms.add(k);
    // Chromium reports the 404 page's own status as a console error.
    for (const e of consoleErrors) if (!(missing && /status of 404/.test(e))) failures.push(`${label}: console error: ${e}`);
  }

  // Every internal link shown answers below 400 (as this role: the context's cookies go with each request).
  const checked = [...links].slice(0, LINKS_PER_ROLE);
  for (const href of checked) {
    const res = await context.request.get(href, { maxRedirects: 0, failOnStatusCode: false });
    if (res.status() >= 400) failures.push(`${role}: link ${href.slice(t.baseUrl.length)} answered ${res.status()}`);
  }
  await context.close();
  return { pages: visited, links: checked.length, failures, confirms };
}

describe.skipIf(!run)('a walk through the site', () => {
  it('signed out: every page fits 390 px, has no serious axe violation or console error, and every link works', async () => {
    const w = await walk('anon', ['/', '/docs', '/embed/demo', '/search?q=measles', MISSING], null);
    expect(w.failures).toEqual([]);
    expect(w.pages.length).toBeGreaterThanOrEqual(25);
    expect(w.links).toBeGreaterThan(100);
  }, 600_000);

  it('as a publisher: the same, through the dashboard', async () => {
    const owner = DEMO_PUBLISHERS[0]!.owner.username;
    const w = await walk('publisher', ['/dashboard', `/dashboard/${DEMO_PUBLISHERS[0]!.slug}`, '/'], await sessionOf(owner));
    expect(w.failures).toEqual([]);
    // The walk met the publisher's second steps, so the check above had something to check.
    expect([...w.confirms].sort()).toEqual(expect.arrayContaining(['cancel', 'withdraw']));
    expect(w.pages.length).toBeGreaterThanOrEqual(20);
  }, 600_000);

  it('as an operator: the same, through the admin pages', async () => {
    const username = 'walk-operator';
    await createAdmin(t.runtime.deps, { email: 'walk-operator@ops.test', password: DEMO_PASSWORD, username, name: 'Walk Operator' });
    const w = await walk('operator', ['/admin', '/admin/panels/new', '/'], await sessionOf(username, 'walk-operator@ops.test'));
    expect(w.failures).toEqual([]);
    expect(w.pages.length).toBeGreaterThanOrEqual(5);
  }, 600_000);

  it('through reports and decisions: the form, the queue, a report, a decision, its appeal, transparency, the terms', async () => {
    const deps = t.runtime.deps;
    const username = 'walk-moderator';
    await createAdmin(deps, { email: 'walk-moderator@ops.test', password: DEMO_PASSWORD, username, name: 'Walk Moderator' });
    const ops = (await deps.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
    const author = (await deps.db.selectFrom('accounts').select('id').where('username', '=', DEMO_CONTRIBUTORS[0]!.username).executeTakeFirstOrThrow()).id;
    const work = await deps.db.selectFrom('contributions').select(['id']).where('account_id', '=', author).orderBy('id').limit(2).execute();
    expect(work.length).toBe(2);
    const report = (id: number) =>
      moderation.submitReport(deps, { item: { kind: 'contribution', id, field: 'summary' }, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'It names a person and accuses them without a source.', notifier_email: 'walker@mail.test', good_faith: true, locale: 'en' }, null);
    const decided = await report(work[0]!.id);
    const open = await report(work[1]!.id);
    const decision = await moderation.decideReport(deps, ops, decided.id, { type: 'restrict_field', ground: 'incompatible', terms_clause: 't1', facts: 'The summary accuses a named person of a crime without a source.' });
    const appeal = await moderation.appeal(deps, author, decision.id, 'The source is in the evidence, read it again.');
    // The decision page links its log entry: the sequencer has integrated it, as it would have on a running site.
    await integrate(deps);
    const item = `contribution:${work[1]!.id}:summary`;
    const asOperator = await walk('moderator', ['/admin/reports', `/admin/reports/${open.id}`, `/admin/appeals/${appeal.id}`, `/decisions/${decision.id}`, '/transparency', '/terms'], await sessionOf(username, 'walk-moderator@ops.test'), 10);
    expect(asOperator.failures).toEqual([]);
    for (const p of ['/admin/reports', `/admin/reports/${open.id}`, `/admin/appeals/${appeal.id}`, `/decisions/${decision.id}`, '/transparency', '/terms']) expect(asOperator.pages).toContain(p);
    const asAuthor = await walk('appellant', [`/decisions/${decision.id}`, `/decisions/${decision.id}/appeal`, `/report?item=${item}`, '/report/sent?reference=R-WALK'], await sessionOf(DEMO_CONTRIBUTORS[0]!.username), 6);
    expect(asAuthor.failures).toEqual([]);
    for (const p of [`/decisions/${decision.id}/appeal`, `/report?item=${item}`]) expect(asAuthor.pages).toContain(p);
    const signedOut = await walk('notifier', [`/report?item=${item}`, `/decisions/${decision.id}`, '/transparency', '/terms'], null, 5);
    expect(signedOut.failures).toEqual([]);
  }, 600_000);

  it('as a contributor: the same, through their own pages', async () => {
    const w = await walk('contributor', ['/me', '/me/requests', '/me/submissions', '/me/profile', '/me/keys', '/me/names', '/'], await sessionOf(DEMO_CONTRIBUTORS[0]!.username));
    expect(w.failures).toEqual([]);
    expect([...w.confirms].sort()).toEqual(expect.arrayContaining(['withdraw']));
    expect(w.pages.length).toBeGreaterThanOrEqual(20);
    expect(cspViolations).toEqual([]);
  }, 600_000);
});
