// The browser extension, built by `credence extension:build` and loaded unpacked into Debian's Chromium (headless):
// publishers' pages served locally under their own names (--host-resolver-rules), the service behind a recording
// proxy (the built service URL is the proxy's). The badge and its title for a page with work, a retracted page, a
// page without a record and a host without a publisher; the popup's record and its proof checked in the browser; a
// forged answer refused; and the proxy saw nothing for unlisted hosts, and never an address, a host or a full hash.
// At 390 px the popup scrolls only down and axe-core finds nothing serious. `web-ext lint` passes on the Firefox build.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { buildExtension, type BuiltExtension } from '../../src/ops/extension-build.js';
import { confirmClaims, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { AXE_SOURCE, CHROMIUM, hasChromium } from './chromium.js';

let t: TestApp;
let pub: TestPublisher;
let out: string;
let built: BuiltExtension;
let pages: http.Server;
let proxy: http.Server;
let context: BrowserContext;
let worker: Worker;
/** Every request the proxy passed to the service: its path and headers. */
const seen: { url: string; headers: http.IncomingHttpHeaders }[] = [];
/** How the proxy changes the service's answers, per path prefix: forged answers. */
let forge: ((url: string, body: string) => string) | null = null;

const embedHash = (key: string) => createHash('sha256').update(key).digest('hex');

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  pub = await publisher(t, { domain: `news-${Date.now().toString(36)}.example` });
  const author = await signup(t, { name: 'Ada Byline' });
  for (const [path, title] of [['/news/with-work', 'With work'], ['/news/retracted', 'Retracted story']]) {
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}${path}`, title, authors: [author.username] });
    expect(reg.status, reg.text).toBe(201);
  }
  await confirmClaims(author);
  const retracted = await t.runtime.deps.db.selectFrom('pages').select('id').where('url', 'like', '%/news/retracted').executeTakeFirstOrThrow();
  const notice = await pub.api.post(`/api/v1/pages/${retracted.id}/notices`, { type: 'retraction', date: '2026-11-20', reason: 'The figures were wrong.', url: `https://${pub.domain}/notices/1` });
  expect(notice.status, notice.text).toBe(201);
  await integrate(t.runtime.deps);

  // The recording proxy in front of the service.
  const service = new URL(t.baseUrl);
  proxy = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    // A forging proxy asks for the answer uncompressed, so it can read and rewrite it; otherwise the bytes pass as sent.
    const forging = forge;
    const upHeaders = { ...req.headers, host: service.host };
    if (forging) delete upHeaders['accept-encoding'];
    const up = http.request({ host: service.hostname, port: service.port, path: req.url, method: req.method, headers: upHeaders }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        let body: Buffer | string = Buffer.concat(chunks);
        const headers = { ...answer.headers };
        if (forging && answer.statusCode === 200) {
          body = forging(req.url ?? '', body.toString('utf8'));
          delete headers['content-length'];
          delete headers['etag'];
          delete headers['content-encoding'];
        }
        res.writeHead(answer.statusCode ?? 502, headers).end(body);
      });
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

  // The publishers' pages (and a site no publisher holds), on one local server under their own names.
  pages = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${req.headers.host}${req.url}</title><p>A page.</p>`));
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  const pagesPort = (pages.address() as AddressInfo).port;

  out = await fs.mkdtemp(path.join(os.tmpdir(), 'credence-ext-'));
  built = await buildExtension({ service: proxyUrl, out });
  context = await chromium.launchPersistentContext(path.join(out, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--disable-features=DisableLoadExtensionCommandLineSwitch',
      `--disable-extensions-except=${built.chromium}`,
      `--load-extension=${built.chromium}`,
      `--host-resolver-rules=MAP ${pub.domain} 127.0.0.1:${pagesPort}, MAP unlisted.example 127.0.0.1:${pagesPort}`,
    ],
  });
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
}, 180_000);

afterAll(async () => {
  await context?.close();
  proxy?.close();
  pages?.close();
  await t?.close();
  if (out) await fs.rm(out, { recursive: true, force: true });
});

async function open(url: string) {
  const page = await context.newPage();
  await page.goto(url);
  const tabId = await worker.evaluate((u) => (globalThis as any).chrome.tabs.query({ url: u }).then((tabs: { id: number }[]) => tabs[0]!.id), url);
  return { page, tabId };
}
const badge = (tabId: number) => worker.evaluate((id) => (globalThis as any).chrome.action.getBadgeText({ tabId: id }), tabId);
const title = (tabId: number) => worker.evaluate((id) => (globalThis as any).chrome.action.getTitle({ tabId: id }), tabId);
const extensionId = () => new URL(worker.url()).host;

/** The popup of a tab; `fresh`: with the browser's HTTP cache emptied first, so its answers come through the proxy. */
async function popup(tabId: number, opts: { fresh?: boolean } = {}) {
  const page = await context.newPage();
  if (opts.fresh) await (await context.newCDPSession(page)).send('Network.clearBrowserCache');
  await page.goto(`chrome-extension://${extensionId()}/popup.html?tab=${tabId}`);
  return page;
}

describe.skipIf(!hasChromium)('the browser extension', () => {
  it('badges a page with work with its count of accepted contributions', async () => {
    const { tabId } = await open(`http://${pub.domain}/news/with-work`);
    await expect.poll(() => badge(tabId), { timeout: 20_000 }).toBe('1');
    expect(await title(tabId)).toBe('Credence: 1 accepted contribution');
  });

  it('marks a retracted page and says so in the title', async () => {
    const { tabId } = await open(`http://${pub.domain}/news/retracted/`);
    await expect.poll(() => badge(tabId), { timeout: 20_000 }).toBe('!');
    expect(await title(tabId)).toBe('Credence: Retracted');
  });

  it('shows nothing on a page without a record, nor on a host without a publisher', async () => {
    const before = seen.length;
    const none = await open(`http://${pub.domain}/news/nothing-here`);
    const unlisted = await open('http://unlisted.example/news/with-work');
    // The page without a record was looked up (its bucket asked); the unlisted host sent nothing at all.
    await expect.poll(() => seen.slice(before).some((r) => r.url.startsWith('/v1/extension/buckets/')), { timeout: 20_000 }).toBe(true);
    expect(await badge(none.tabId)).toBe('');
    expect(await badge(unlisted.tabId)).toBe('');
    expect(await title(unlisted.tabId)).toBe('Credence');
    const p = await popup(unlisted.tabId);
    await expect.poll(() => p.locator('[data-state]').getAttribute('data-state')).toBe('unlisted');
    expect(seen.slice(before).every((r) => !r.url.includes('unlisted'))).toBe(true);
  });

  it('shows the record in the popup and verifies its proof in the browser, with the keyboard alone', async () => {
    const { tabId } = await open(`http://${pub.domain}/news/with-work`);
    await expect.poll(() => badge(tabId), { timeout: 20_000 }).toBe('1');
    const p = await popup(tabId);
    await expect.poll(() => p.locator('h1').textContent(), { timeout: 20_000 }).toBe('With work');
    expect(await p.locator('[data-role="author"] li').textContent()).toContain('Ada Byline');
    await expect.poll(() => p.locator('[data-proof-state]').getAttribute('data-proof-state'), { timeout: 30_000 }).toMatch(/^(verified|failed|unavailable)$/);
    expect(await p.locator('[data-proof-state]').textContent()).toMatch(/^Verified in your browser/);
    // Tab reaches the record's links, then the site toggle.
    await p.keyboard.press('Tab');
    expect(await p.evaluate(() => (globalThis as any).document.activeElement?.tagName)).toBe('A');
  });

  it('shows a retracted page’s notice, newest first, in words', async () => {
    const { tabId } = await open(`http://${pub.domain}/news/retracted`);
    await expect.poll(() => badge(tabId), { timeout: 20_000 }).toBe('!');
    const p = await popup(tabId);
    await expect.poll(() => p.locator('.standing strong').textContent(), { timeout: 20_000 }).toBe('Retracted');
    expect(await p.locator('[data-notices] li').first().textContent()).toContain('The figures were wrong.');
    // The site's day style, not "November 20, 2026".
    expect(await p.locator('[data-notices] li time').first().textContent()).toBe('20 Nov 2026');
  });

  it('fits a phone-wide popup (390 px) without sideways scrolling and passes axe-core, light and dark', async () => {
    const found: string[] = [];
    for (const path of ['/news/with-work', '/news/retracted']) {
      const { tabId } = await open(`http://${pub.domain}${path}`);
      await expect.poll(() => badge(tabId), { timeout: 20_000 }).not.toBe('');
      for (const colorScheme of ['light', 'dark'] as const) {
        const p = await context.newPage();
        await p.setViewportSize({ width: 390, height: 844 });
        await p.emulateMedia({ colorScheme });
        await p.goto(`chrome-extension://${extensionId()}/popup.html?tab=${tabId}`);
        await expect.poll(() => p.locator('[data-proof-state]').getAttribute('data-proof-state'), { timeout: 30_000 }).toMatch(/^(verified|failed|unavailable|pending)$/);
        const width = await p.evaluate(() => {
          const root = (globalThis as any).document.documentElement;
          return { scroll: root.scrollWidth as number, client: root.clientWidth as number };
        });
        expect(width.scroll, `${path} ${colorScheme}: content wider than the popup`).toBeLessThanOrEqual(width.client);
        await p.evaluate(AXE_SOURCE);
        const violations = await p.evaluate(async () => {
          const axe = (globalThis as unknown as { axe: { run: (ctx: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }> } }).axe;
          const r = await axe.run((globalThis as unknown as { document: unknown }).document);
          return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
        });
        found.push(...violations.map((v) => `${path} ${colorScheme}: ${v}`));
        await p.close();
      }
    }
    expect(found).toEqual([]);
  }, 120_000);

  it('refuses a forged proof and a forged record: NOT verified', async () => {
    const { tabId } = await open(`http://${pub.domain}/news/with-work`);
    await expect.poll(() => badge(tabId), { timeout: 20_000 }).toBe('1');
    // An entry changed in transit: its page's address, which entries hold in clear (the title is a commitment).
    forge = (url, body) => {
      if (!/\/proofs$/.test(url)) return body;
      const answer = JSON.parse(body);
      for (const proof of answer.proofs) {
        const forged = Buffer.from(proof.entry, 'base64').toString('utf8').replaceAll('/news/with-work', '/news/with-wark');
        if (forged === Buffer.from(proof.entry, 'base64').toString('utf8')) throw new Error('the forgery changed nothing');
        proof.entry = Buffer.from(forged).toString('base64');
      }
      return JSON.stringify(answer);
    };
    let p = await popup(tabId, { fresh: true });
    await expect.poll(() => p.locator('[data-proof-state]').getAttribute('data-proof-state'), { timeout: 30_000 }).toBe('failed');
    expect(await p.locator('[data-proof-state]').textContent()).toMatch(/^NOT verified/);
    // A review the log never recorded, claiming the author's entry.
    forge = (url, body) => {
      if (!/\/v1\/extension\/buckets\/[0-9a-f]+$/.test(url)) return body;
      const answer = JSON.parse(body);
      for (const rec of answer.records) rec.work?.push({ ...rec.work[0], role: 'review', name: 'Nobody Real' });
      return JSON.stringify(answer);
    };
    // The background holds its bucket in its own memory; the popup, a page of its own, asks again.
    p = await popup(tabId, { fresh: true });
    await expect.poll(() => p.locator('[data-proof-state]').getAttribute('data-proof-state'), { timeout: 30_000 }).toBe('failed');
    forge = null;
  }, 120_000);

  it('says a page may have a record when its publisher is past its share of the bucket, never "no record"', async () => {
    // The service counts the records of a publisher past its share of a bucket without listing them (docs/extension.md):
    // the proxy makes this page's bucket say so for its publisher's domain.
    forge = (url, body) => {
      if (!/\/v1\/extension\/buckets\/[0-9a-f]+$/.test(url)) return body;
      const answer = JSON.parse(body);
      answer.withheld = [{ publisher: { slug: pub.slug, name: 'The Withheld Times' }, domains: [pub.domain], records: 40 }];
      return JSON.stringify(answer);
    };
    const { tabId } = await open(`http://${pub.domain}/news/nothing-here-either`);
    const p = await popup(tabId, { fresh: true });
    await expect.poll(() => p.locator('[data-state]').getAttribute('data-state'), { timeout: 20_000 }).toBe('withheld');
    expect(await p.locator('[data-state]').textContent()).toContain('The Withheld Times has more records');
    expect(await p.locator('a').first().getAttribute('href')).toMatch(new RegExp(`/publishers/${pub.slug}$`));
    forge = null;
  }, 60_000);

  it('never sent an address, a host, a full hash, a cookie or an identifier', async () => {
    const secrets = [pub.domain, 'unlisted.example', '/news/', ...['with-work', 'retracted', 'nothing-here', 'nothing-here-either'].map((p) => embedHash(`${pub.domain}/news/${p}`))];
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) {
      const text = `${r.url} ${JSON.stringify(r.headers)}`;
      for (const s of secrets) expect(text, text).not.toContain(s);
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.referer).toBeUndefined();
      expect(r.url).toMatch(/^\/v1\/(extension\/hosts|extension\/buckets\/[0-9a-f]{1,8}(\/proofs)?|log\/(key|policy|checkpoint)|changes\?after=\d+&limit=\d+)$/);
    }
  });
});

// Needs no browser: without Chromium it builds its own copy.
describe('the Firefox build', () => {
  it('passes web-ext lint with no error', async () => {
    const own = built ? null : await fs.mkdtemp(path.join(os.tmpdir(), 'credence-ext-lint-'));
    try {
      const firefox = built ? built.firefox : (await buildExtension({ service: 'https://credence.example', out: own! })).firefox;
      const bin = path.resolve('node_modules/.bin/web-ext');
      const run = await promisify(execFile)(bin, ['lint', '--source-dir', firefox, '--output', 'json', '--no-config-discovery'], { maxBuffer: 16 << 20 }).catch((e: { stdout: string }) => e);
      const report = JSON.parse(run.stdout) as { errors: unknown[]; summary: { errors: number } };
      expect(report.errors).toEqual([]);
      expect(report.summary.errors).toBe(0);
    } finally {
      if (own) await fs.rm(own, { recursive: true, force: true });
    }
  }, 120_000);
});
