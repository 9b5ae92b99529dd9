// The cache tier's purger (jobs/cache-purger.ts) and what the origin tells the tier (http/cache-tier.ts), on both
// databases, against a real HTTP node that records the purges it gets (test/cache-tier.test.ts runs Varnish itself,
// once, on PostgreSQL). Each pass is driven by hand (`tick`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tag, surrogateKey, STATIC_KEY } from '../../src/domain/pages/cache-tags.js';
import { parsePageUrl } from '../../src/domain/pages/url-keys.js';
import { CachePurger, type PurgerOptions } from '../../src/jobs/cache-purger.js';
import { Client } from '../client.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

/** A cache node as the purger sees it: PURGE requests recorded; it can be made to fail. */
class PurgeNode {
  purges: { keys: string[]; all: boolean }[] = [];
  failing = false;
  private constructor(private readonly server: http.Server) {}
  static async start(): Promise<PurgeNode> {
    const holder: { node?: PurgeNode } = {};
    const server = http.createServer((req, res) => {
      const node = holder.node!;
      req.resume();
      if (req.method !== 'PURGE' || node.failing) {
        res.writeHead(503).end();
        return;
      }
      const keys = String(req.headers['xkey-purge'] ?? '').split(' ').filter(Boolean);
      node.purges.push({ keys, all: req.headers['xkey-purge-all'] === '1' });
      res.writeHead(200).end('Purged');
    });
    const node = (holder.node = new PurgeNode(server));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return node;
  }
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** Every key purged so far, and how often each. */
  counts(): Map<string, number> {
    const m = new Map<string, number>();
    for (const p of this.purges) for (const k of p.keys) m.set(k, (m.get(k) ?? 0) + 1);
    return m;
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { error: () => {}, info: () => {} };

let t: TestApp;
let node: PurgeNode;
let pub: TestPublisher;
const purgers: CachePurger[] = [];

const purger = (over: Partial<PurgerOptions> = {}) => {
  const p = new CachePurger(t.runtime.deps, { urls: [node.url], leaseMs: 60_000, echoMs: 50, settleMs: 100, log: quiet, ...over });
  purgers.push(p);
  return p;
};

async function register(path: string): Promise<{ id: number; url: string }> {
  const url = `https://${pub.domain}${path}`;
  const res = await pub.api.post('/api/v1/pages', { url, title: path });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id, url };
}

const storedSeq = async () => Number((await t.runtime.deps.db.selectFrom('cache_purger').select('seq').executeTakeFirstOrThrow()).seq);
const lastSeq = async () => Number((await t.runtime.deps.db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirstOrThrow()).m);

beforeAll(async () => {
  node = await PurgeNode.start();
  t = await startTestApp({ cachePurgeUrls: [node.url] });
  pub = await publisher(t);
});

afterEach(async () => {
  await Promise.all(purgers.splice(0).map((p) => p.stop()));
  node.failing = false;
  node.purges = [];
});

afterAll(async () => {
  await t?.close();
  await node?.close();
});

describe('what the origin tells the cache tier', () => {
  it('a cacheable answer names its surrogate keys (digests of its tags), the tier lifetime and stale-if-error', async () => {
    const page = await register('/headers');
    const anon = new Client(t.baseUrl);
    for (const path of [`/api/v1/pages/lookup?url=${encodeURIComponent(page.url)}`, `/api/v1/embed/article/${page.id}`, `/api/v1/embed/by-url?url=${encodeURIComponent(page.url)}`]) {
      // Asked twice: the second is the warm path (http/request-lines.ts), which must say the same.
      for (let i = 0; i < 2; i++) {
        const res = await anon.get(path);
        expect(res.status, path).toBe(200);
        const keys = (res.headers.get('xkey') ?? '').split(' ');
        expect(keys, path).toContain(surrogateKey(tag.page(page.id)));
        expect(keys.every((k) => /^[A-Za-z0-9_-]{16}$/.test(k)), path).toBe(true);
        // Nothing readable: no tag in clear.
        expect(res.headers.get('xkey'), path).not.toMatch(/page:|publisher:|domain:/);
        expect(res.headers.get('surrogate-control'), path).toBe('max-age=86400');
        expect(res.headers.get('cache-control'), path).toMatch(/^public, max-age=\d+, stale-if-error=86400$/);
      }
    }
    // An unregistered URL's lookup depends on its lookup key.
    const unknown = `https://${pub.domain}/not-yet`;
    const res = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(unknown)}`);
    expect(res.headers.get('xkey')?.split(' ')).toContain(surrogateKey(tag.lookup(parsePageUrl(unknown)!.lookupKey)));
    // embed.js: one fixed key.
    expect((await anon.get('/embed.js')).headers.get('xkey')).toBe(STATIC_KEY);
    // A profile: its person, and the pages and publications of their work.
    const profile = await anon.get(`/api/v1/contributors/${pub.owner.username}`);
    expect(profile.status, profile.text).toBe(200);
    expect(profile.headers.get('xkey')?.split(' ')).toContain(surrogateKey(tag.account(pub.owner.id)));
    expect(profile.headers.get('cache-control')).toBe('public, max-age=0, stale-if-error=86400');
    // With a credential: no keys, and `no-store` as before (the tier passes such requests by, and so must others).
    const mine = await pub.api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(page.url)}`);
    expect(mine.status).toBe(200);
    expect(mine.headers.get('xkey')).toBeNull();
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect((await pub.owner.client.get(`/api/v1/contributors/${pub.owner.username}`)).headers.get('xkey')).toBeNull();
  });

  it('without a tier, no answer names keys or a tier lifetime', async () => {
    const bare = await startTestApp();
    try {
      const p = await publisher(bare);
      const url = `https://${p.domain}/bare`;
      expect((await p.api.post('/api/v1/pages', { url, title: 'Bare' })).status).toBe(201);
      const res = await new Client(bare.baseUrl).get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('xkey')).toBeNull();
      expect(res.headers.get('surrogate-control')).toBeNull();
      expect(res.headers.get('cache-control')).toBeNull();
      // The static answers too: embed.js and the versioned stylesheet name no key without a tier to purge them.
      const script = await new Client(bare.baseUrl).get('/embed.js');
      expect(script.status).toBe(200);
      expect(script.headers.get('xkey')).toBeNull();
      expect((await new Client(bare.baseUrl).get('/v1/embed.js')).headers.get('xkey')).toBeNull();
    } finally {
      await bare.close();
    }
  });
});

describe('the purger', () => {
  it('purges exactly the keys each change touches, three times (at once, after the others poll, once settled), then records the seq', async () => {
    // Windows wide enough that a busy machine's pauses fall inside them.
    const p = purger({ echoMs: 400, settleMs: 1200 });
    await p.tick();
    node.purges = [];
    const page = await register('/purged');
    await p.tick();
    const first = node.counts();
    expect(first.get(surrogateKey(tag.page(page.id)))).toBe(1);
    expect(first.get(surrogateKey(tag.lookup(parsePageUrl(page.url)!.lookupKey)))).toBe(1);
    expect(first.get(surrogateKey(tag.embed(parsePageUrl(page.url)!.embedKey)))).toBe(1);
    // Nothing else: not the publisher's other pages, not everything.
    expect(first.has(surrogateKey(tag.contributors))).toBe(false);
    expect(node.purges.some((x) => x.all)).toBe(false);
    expect(await storedSeq()).toBeLessThan(await lastSeq());
    // The later purges come by the purger's own timer, at echoMs and settleMs after the first: waited for, not timed,
    // so a slow machine cannot merge two of them. Between them the seq is not yet recorded.
    await expect.poll(() => node.counts().get(surrogateKey(tag.page(page.id))), { timeout: 5000, interval: 10 }).toBe(2);
    expect(await storedSeq()).toBeLessThan(await lastSeq());
    await expect.poll(() => node.counts().get(surrogateKey(tag.page(page.id))), { timeout: 5000, interval: 10 }).toBe(3);
    await expect.poll(() => storedSeq(), { timeout: 5000 }).toBe(await lastSeq());
    await sleep(300);
    expect(node.counts().get(surrogateKey(tag.page(page.id)))).toBe(3);
  });

  it('a purge that fails is tried again, and nothing is recorded as purged until it succeeds', async () => {
    const p = purger();
    await p.tick();
    node.failing = true;
    const page = await register('/retried');
    await p.tick();
    await p.tick();
    expect(p.stats.failures).toBeGreaterThanOrEqual(2);
    const before = await storedSeq();
    expect(before).toBeLessThan(await lastSeq());
    node.failing = false;
    await p.tick();
    expect(node.counts().get(surrogateKey(tag.page(page.id)))).toBe(1);
  });

  it('too far behind, or failing too long, it purges everything instead', async () => {
    // Five changes before the purger's first pass (a pass between them would keep up with them).
    for (let i = 0; i < 5; i++) await register(`/behind/${i}`);
    const p = purger({ entriesPerRead: 2, maxBehind: 3 });
    await p.tick();
    expect(node.purges.filter((x) => x.all).length, JSON.stringify({ stats: p.stats, purges: node.purges.length, stored: await storedSeq(), last: await lastSeq() })).toBe(2);
    expect(p.stats.purgedAll).toBe(1);
    expect(await storedSeq()).toBe(await lastSeq());

    node.purges = [];
    const q = purger({ maxFailingMs: 50 });
    await p.stop();
    await q.tick();
    node.failing = true;
    await register('/failing');
    await q.tick();
    await sleep(80);
    node.failing = false;
    await q.tick();
    expect(node.purges.some((x) => x.all)).toBe(true);
    expect(await storedSeq()).toBe(await lastSeq());
  });

  it('one purger at a time; another takes over from the seq purged every time, and purges again what was purged once', async () => {
    const a = purger();
    const b = purger();
    await a.tick();
    await b.tick();
    expect(a.stats.holding).toBe(true);
    expect(b.stats.holding).toBe(false);
    const page = await register('/take-over');
    await a.tick();
    expect(node.counts().get(surrogateKey(tag.page(page.id)))).toBe(1);
    // a stops before its later purges: b takes over and purges the entry again, every time.
    await a.stop();
    await b.tick();
    expect(b.stats.holding).toBe(true);
    expect(node.counts().get(surrogateKey(tag.page(page.id)))).toBe(2);
    await sleep(120);
    await b.tick();
    expect(node.counts().get(surrogateKey(tag.page(page.id)))).toBe(4);
    expect(await storedSeq()).toBe(await lastSeq());
  });

  it('a lease that runs out is taken over without the holder stopping', async () => {
    const a = purger({ leaseMs: 300 });
    const b = purger({ leaseMs: 300 });
    await a.tick();
    expect(a.stats.holding).toBe(true);
    await b.tick();
    expect(b.stats.holding).toBe(false);
    // a says nothing (a process killed): past its lease b holds.
    t.clock.advance(400);
    await b.tick();
    expect(b.stats.holding).toBe(true);
  });
});
