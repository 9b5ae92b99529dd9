// The cache tier, proven: Varnish with xkey (Debian's packages) in front of two `credence serve` behind
// HAProxy, on one PostgreSQL and one Redis, started by the same scripts/cluster.ts an operator runs
// (`npm run cluster -- --cache`). Readers go through the cache; each change is purged by the instance holding the
// purger's lease and must be seen through the cache within a second by the four public reads of a page. Like
// test/cluster.test.ts it runs once, on the PostgreSQL run of `npm test`, with private servers, and skips on SQLite.
// Without varnish and varnish-modules (and no apt-get to install them) it fails saying so (scripts/cluster.ts).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalCluster } from '../scripts/cluster.js';
import { Client, type Res } from './client.js';
import { usingPostgres } from './harness.js';
import { confirmIn } from './process-env.js';
import { openDatabase } from '../src/db/client.js';
import { bucketOf, embedKeyHash } from '../src/domain/pages/key-hash.js';
import { parsePageUrl } from '../src/domain/pages/url-keys.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');
const enabled = usingPostgres();
/** Short, so the take-over test is short; production's default is 5 s. */
const LEASE_MS = 2000;

let cluster: LocalCluster;
let db: pg.Pool;
const DOMAIN = 'cache-tier.example';
const URL_ = `https://${DOMAIN}/story`;
const w = { owner: '', key: '', other: '', contributor: '', pageId: 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Through the cache (a reader), through the balancer, or at instance i directly. */
const reader = (token: string | null = null) => new Client(cluster.url, '127.0.0.1', token);
const origin = (i: number | null, token: string | null = null) =>
  new Client(i === null ? cluster.originUrl : `http://127.0.0.1:${cluster.instances[i]!.port}`, '127.0.0.1', token);

/** The public reads of the page, as a reader makes them, and as the browser extension asks for its bucket. */
const reads = () => ({
  'embed by URL': `/api/v1/embed/by-url?url=${encodeURIComponent(URL_)}`,
  'embed by id': `/api/v1/embed/article/${w.pageId}`,
  lookup: `/api/v1/pages/lookup?url=${encodeURIComponent(URL_)}`,
  record: `/v1/pages/record?url=${encodeURIComponent(URL_)}`,
  'extension bucket': `/v1/extension/buckets/${bucketOf(embedKeyHash(parsePageUrl(URL_)!.embedKey))}`,
});

async function readAll(): Promise<Record<string, Res>> {
  const out: Record<string, Res> = {};
  for (const [name, p] of Object.entries(reads())) out[name] = await reader().get(p);
  return out;
}

/**
 * Until the purger has recorded every change as purged every time: each entry is purged again 350 ms and 1.5 s after
 * its first purge (jobs/cache-purger.ts), so an earlier test's change would otherwise empty what this one kept.
 */
async function purgesSettled(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await db.query(`select (select seq from cache_purger where id = 1) as purged, (select coalesce(max(seq), 0) from changes) as last`);
    if (Number(r.rows[0]!.purged) >= Number(r.rows[0]!.last)) return;
    if (Date.now() > deadline) throw new Error(`the purger is behind: ${JSON.stringify(r.rows[0])}`);
    await sleep(50);
  }
}

/** Warm every read in the cache, once earlier changes' purges are over: asked until the cache answers it as a hit. */
async function warm(): Promise<Record<string, Res>> {
  await purgesSettled();
  const deadline = Date.now() + 10_000;
  for (;;) {
    const all = await readAll();
    if (Object.values(all).every((r) => r.status === 200 && r.headers.get('x-cache') === 'hit')) return all;
    if (Date.now() > deadline) throw new Error(`not cached: ${Object.entries(all).map(([n, r]) => `${n} ${r.status} ${r.headers.get('x-cache')}`).join(', ')}`);
    await sleep(50);
  }
}

/**
 * Each read, asked through the cache every 20 ms from `since` until `seen(body)` holds for it: the time each took,
 * in ms. Fails past `timeoutMs`.
 */
async function seenThroughCache(since: number, seen: (name: string, r: Res) => boolean, timeoutMs = 10_000): Promise<Record<string, number>> {
  const took: Record<string, number> = {};
  await Promise.all(
    Object.entries(reads()).map(async ([name, p]) => {
      for (;;) {
        const r = await reader().get(p).catch(() => null);
        if (r && r.status === 200 && seen(name, r)) {
          took[name] = performance.now() - since;
          return;
        }
        if (performance.now() - since > timeoutMs) throw new Error(`${name}: still stale after ${timeoutMs} ms (${r?.status} ${r?.text.slice(0, 200)})`);
        await sleep(20);
      }
    }),
  );
  return took;
}

const report = (what: string, took: Record<string, number>) =>
  console.log(`${what} seen through the cache after: ${Object.entries(took).map(([n, ms]) => `${n} ${ms.toFixed(0)} ms`).join(', ')}`);

async function signup(username: string): Promise<string> {
  const res = await reader().post('/api/v1/auth/signup', { email: `${username}@cache.test`, password: 'correct horse battery', name: username, username });
  expect(res.status, res.text).toBe(202);
  // Addresses are confirmed before an account may make keys or be named: by hand, as an operator would.
  await confirmIn(() => openDatabase({ databaseUrl: cluster.databaseUrl, poolSize: 1 }), `${username}@cache.test`);
  const login = await reader().post('/api/v1/auth/login', { email: `${username}@cache.test`, password: 'correct horse battery' });
  expect(login.status, login.text).toBe(200);
  return login.body.data.token as string;
}

/** The instance whose process holds the purger's lease. */
async function purgerIndex(): Promise<number> {
  const holder = (await db.query(`select holder, lease_until from cache_purger where id = 1`)).rows[0]?.holder as string | null;
  const pid = holder?.split(':')[1];
  return cluster.instances.findIndex((inst) => inst.child?.pid !== undefined && String(inst.child.pid) === pid);
}

beforeAll(async () => {
  if (!enabled) return;
  cluster = await LocalCluster.start({
    instances: 2,
    cache: true,
    env: { RATE_LIMIT_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn', CACHE_PURGE_LEASE_MS: String(LEASE_MS) },
  });
  db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 2 });
  db.on('error', () => {});
}, 240_000);

let failed = false;
afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  if (failed && cluster) {
    for (const inst of cluster.instances) console.log(`--- instance ${inst.index} (port ${inst.port}):\n${inst.output.text.slice(-4000)}`);
    console.log(`--- varnish:\n${cluster.varnish?.output.text.slice(-2000)}`);
  }
  await db?.end().catch(() => {});
  await cluster?.stop();
}, 60_000);

describe.skipIf(!enabled)('the cache tier: Varnish with xkey in front of two instances, purged by the change log', () => {
  it('is set up through the cache: two publishers, a verified domain, a page, a contributor', async () => {
    w.owner = await signup('cache-owner');
    expect((await reader(w.owner).post('/api/v1/account/publishers', { name: 'Cache Daily', slug: 'cache-daily' })).status).toBe(201);
    w.other = await signup('other-owner');
    expect((await reader(w.other).post('/api/v1/account/publishers', { name: 'Other Gazette', slug: 'other-gazette' })).status).toBe(201);
    await run(TSX, [MAIN, 'domains:verify', DOMAIN, '--publisher', 'cache-daily'], { env: cluster.env(0), timeout: 60_000 });
    const key = await reader(w.owner).post('/api/v1/account/api-keys', { name: 'cms', publisher: 'cache-daily' });
    expect(key.status, key.text).toBe(201);
    w.key = key.body.data.key;
    const page = await reader(w.key).post('/api/v1/pages', { url: URL_, title: 'A story', topic: 'health' });
    expect(page.status, page.text).toBe(201);
    w.pageId = page.body.data.id ?? page.body.data.page?.id;
    expect(w.pageId).toBeGreaterThan(0);
    w.contributor = await signup('cache-corrector');
    // Accepted work from someone else, so the page has a record (a 404 is not kept) before each change below.
    const reviewer = await signup('cache-reviewer');
    const submitted = await reader(reviewer).post('/api/v1/submissions', [{ url: URL_, role: 'review', summary: 'Read it', evidence: { reason: 'Read it through', sources: [] } }]);
    expect(submitted.status, submitted.text).toBe(200);
    const decided = await reader(w.key).post('/api/v1/submissions/decide', { submission_id: submitted.body.data.results[0].id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(200);
  });

  it('keeps public answers, tells readers nothing of its keys, and purges an accepted correction within 1 s', async () => {
    const before = await warm();
    for (const r of Object.values(before)) {
      expect(r.headers.get('xkey')).toBeNull();
      expect(r.headers.get('surrogate-control')).toBeNull();
      expect(r.headers.get('cache-control')).toMatch(/stale-if-error=\d+/);
      expect(r.text).not.toContain('cache-corrector');
    }
    // Origin's own answer names its keys (digests) for the tier.
    const direct = await origin(0).get(reads().lookup);
    expect(direct.headers.get('xkey')).toMatch(/^[A-Za-z0-9_-]{16}( [A-Za-z0-9_-]{16})*$/);

    const submitted = await reader(w.contributor).post('/api/v1/submissions', [{ url: URL_, role: 'correction', summary: 'Fixed the date', evidence: { reason: 'The date was wrong', sources: [], before: 'on 12 May', after: 'on 21 May' } }]);
    expect(submitted.status, submitted.text).toBe(200);
    expect(submitted.body.data.results[0], submitted.text).toMatchObject({ id: expect.any(Number) });
    const id = submitted.body.data.results[0].id as number;
    const decided = await reader(w.key).post('/api/v1/submissions/decide', { submission_id: id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(200);
    const took = await seenThroughCache(performance.now(), (_n, r) => r.text.includes('cache-corrector'));
    report('accepted correction', took);
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(1000);
  });

  it('purges a withdrawal within 1 s', async () => {
    await warm();
    const contribution = (await db.query(`select c.id from contributions c join accounts a on a.id = c.account_id where a.username = 'cache-corrector'`)).rows[0]!.id as number;
    const res = await reader(w.contributor).post(`/api/v1/account/contributions/${contribution}/withdraw`, {});
    expect(res.status, res.text).toBe(200);
    const took = await seenThroughCache(performance.now(), (_n, r) => !r.text.includes('cache-corrector'));
    report('withdrawal', took);
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(1000);
  });

  it('a credentialed request never gets a cached answer, and its answer is not kept', async () => {
    const warmed = await warm();
    for (const [name, p] of Object.entries(reads())) {
      for (const c of [reader(w.key), reader(w.owner), new Client(cluster.url, '127.0.0.1')]) {
        const headers: Record<string, string> = c.token ? {} : { cookie: 'credence_session=not-a-session' };
        const r = await c.req('GET', p, { headers, asHeader: c.token === w.key ? 'x-api-key' : 'bearer' });
        expect(r.headers.get('x-cache'), `${name} with a credential`).toBe('pass');
      }
    }
    // What the reader gets is still the one kept before, never a credentialed caller's answer.
    const after = await readAll();
    for (const [name, r] of Object.entries(after)) {
      expect(r.headers.get('x-cache'), name).toBe('hit');
      expect(r.text, name).toBe(warmed[name]!.text);
    }
    // The live feed is never kept either (piped).
    const feed = await fetch(`${cluster.url}/v1/changes?after=0&limit=1`, { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(3000) });
    expect(feed.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(feed.headers.get('x-cache')).toBeNull();
    await feed.body?.cancel();
  });

  it('killing the purging instance: the other takes over, and nothing stays stale past the lease plus a second', async () => {
    const late = await signup('cache-late');
    const holder = await purgerIndex();
    expect(holder, 'one instance holds the purger lease').toBeGreaterThanOrEqual(0);
    const survivor = 1 - holder;
    await warm();
    await cluster.kill(holder);
    const killed = performance.now();
    // A change written straight to the surviving instance just after the kill: more accepted work.
    const submitted = await origin(survivor, late).post('/api/v1/submissions', [{ url: URL_, role: 'review', summary: 'Read it late', evidence: { reason: 'Read it', sources: [] } }]);
    expect(submitted.body.data?.results?.[0], submitted.text).toMatchObject({ id: expect.any(Number) });
    const decided = await origin(survivor, w.key).post('/api/v1/submissions/decide', { submission_id: submitted.body.data.results[0].id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(200);
    const took = await seenThroughCache(killed, (_n, r) => r.text.includes('cache-late'), LEASE_MS + 5000);
    report('change after the purger was killed', took);
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(LEASE_MS + 1000);
    expect(await purgerIndex()).toBe(survivor);
    await cluster.startInstance(holder);
  }, 60_000);

  it('purges a domain moved to another publisher within 1 s', async () => {
    const before = await warm();
    const t = performance.now();
    await run(TSX, [MAIN, 'domains:verify', DOMAIN, '--publisher', 'other-gazette'], { env: cluster.env(0), timeout: 60_000 });
    // Measured from the commit (the CLI's exit), not from its start-up.
    const committed = performance.now();
    const took = await seenThroughCache(committed, (n, r) => r.text !== before[n]!.text);
    report(`domain moved (CLI ${(committed - t).toFixed(0)} ms)`, took);
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(1000);
  });

  it('lists a newly verified host in the extension’s host list within 1 s', async () => {
    const hosts = '/v1/extension/hosts';
    await purgesSettled();
    for (let i = 0; i < 200 && (await reader().get(hosts)).headers.get('x-cache') !== 'hit'; i++) await sleep(50);
    expect((await reader().get(hosts)).text).not.toContain('fresh-host.example');
    await run(TSX, [MAIN, 'domains:verify', 'fresh-host.example', '--publisher', 'other-gazette'], { env: cluster.env(0), timeout: 60_000 });
    const committed = performance.now();
    for (;;) {
      const r = await reader().get(hosts);
      if (r.status === 200 && r.text.includes('fresh-host.example')) break;
      expect(performance.now() - committed, 'the host list through the cache').toBeLessThan(5000);
      await sleep(20);
    }
    const took = performance.now() - committed;
    console.log(`a verified host seen in the host list through the cache after ${took.toFixed(0)} ms`);
    expect(took).toBeLessThan(1000);
  });

  it('keeps the log’s tiles, key and policy (what a proof page reads) for their own lifetime', async () => {
    const size = Number((await reader().get('/v1/log/checkpoint')).text.split('\n')[1]);
    expect(size).toBeGreaterThan(0);
    const tile = size >= 256 ? '/v1/log/tile/entries/000' : `/v1/log/tile/entries/000.p/${size}`;
    for (const file of [tile, '/v1/log/key', '/v1/log/policy']) {
      let last = '';
      for (let i = 0; i < 20 && last !== 'hit'; i++) {
        const r = await reader().get(file);
        expect(r.status, file).toBe(200);
        expect(r.headers.get('xkey'), 'the keys are the tier’s alone').toBeNull();
        last = r.headers.get('x-cache') ?? '';
        if (last !== 'hit') await sleep(50);
      }
      expect(last, file).toBe('hit');
    }
  });

  it('with the origin stopped, the cached embed is still served', async () => {
    const before = await warm();
    await cluster.kill(0);
    await cluster.kill(1);
    // The balancer has nobody to send to; the cache answers from what it has.
    await sleep(1500);
    expect((await origin(null).get('/readyz').catch(() => ({ status: 0 }))).status).not.toBe(200);
    for (const name of ['embed by URL', 'embed by id']) {
      const r = await reader().get(reads()[name as 'embed by id']);
      expect(r.status, name).toBe(200);
      expect(r.text, name).toBe(before[name]!.text);
    }
  }, 30_000);
});
