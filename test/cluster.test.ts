// Several instances, proven: two `credence serve` on one PostgreSQL and one Redis behind HAProxy, started by the
// same scripts/cluster.ts an operator runs. The PostgreSQL and Redis here are private to this file (started and
// stopped by it), never the shared servers. The file runs once: on the PostgreSQL run of `npm test` (it needs
// PostgreSQL anyway), and skips on the SQLite run.
import { confirmIn } from './process-env.js';
import { openDatabase } from '../src/db/client.js';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalCluster } from '../scripts/cluster.js';
import { Client } from './client.js';
import { usingPostgres } from './harness.js';
import { WebhookReceiver } from './webhook-receiver.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');
const enabled = usingPostgres();

let cluster: LocalCluster;
let rx: WebhookReceiver;
let db: pg.Pool;
const DOMAIN = 'cluster.example';
const w = { owner: '', key: '', contributor: '' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of the balancer, or of instance i directly. Loopback is allowlisted; other addresses are limited. */
const via = (i: number | null, token: string | null = null, ip = '127.0.0.1') =>
  new Client(i === null ? cluster.url : `http://127.0.0.1:${cluster.instances[i]!.port}`, ip, token);

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

beforeAll(async () => {
  if (!enabled) return;
  rx = await WebhookReceiver.start();
  cluster = await LocalCluster.start({
    instances: 2,
    // Every webhook goes to one receiver on loopback: the ceiling per destination (600 a minute) would hold back the
    // load's deliveries, which this test counts, so it is lifted as the webhook benchmarks lift it.
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn', WEBHOOK_HOST_DELIVERIES_PER_MINUTE: '1000000' },
  });
  db = new pg.Pool({ connectionString: cluster.databaseUrl, max: 2 });
  db.on('error', () => {});
}, 180_000);

let failed = false;
afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  // When something failed, the instances' own words help more than the assertion.
  if (failed && cluster) {
    for (const inst of cluster.instances) console.log(`--- instance ${inst.index} (port ${inst.port}):\n${inst.output.text.slice(-4000)}`);
  }
  await db?.end().catch(() => {});
  await cluster?.stop();
  await rx?.close();
}, 60_000);

describe.skipIf(!enabled)('a cluster of two instances behind HAProxy', () => {
  it('is set up through the balancer: a publisher with a verified domain, a key, two webhooks, a contributor', async () => {
    const signup = async (username: string) => {
      const res = await via(null).post('/api/v1/auth/signup', { email: `${username}@cluster.test`, password: 'correct horse battery', name: username, username });
      expect(res.status, res.text).toBe(202);
      await confirmIn(() => openDatabase({ databaseUrl: cluster.databaseUrl, poolSize: 1 }), `${username}@cluster.test`);
      const login = await via(null).post('/api/v1/auth/login', { email: `${username}@cluster.test`, password: 'correct horse battery' });
      expect(login.status, login.text).toBe(200);
      return login.body.data.token as string;
    };
    w.owner = await signup('cluster-owner');
    expect((await via(null, w.owner).post('/api/v1/account/publishers', { name: 'Cluster Daily', slug: 'cluster-daily' })).status).toBe(201);
    await run(TSX, [MAIN, 'domains:verify', DOMAIN, '--publisher', 'cluster-daily'], { env: cluster.env(0), timeout: 60_000 });
    const key = await via(null, w.owner).post('/api/v1/account/api-keys', { name: 'cms', publisher: 'cluster-daily' });
    expect(key.status, key.text).toBe(201);
    w.key = key.body.data.key;
    for (const p of ['/a', '/b']) {
      const hook = await via(null, w.owner).post('/api/v1/account/webhooks', { url: rx.url(p), publisher: 'cluster-daily', events: ['page.registered', 'contribution.accepted'] });
      expect(hook.status, hook.text).toBe(201);
      rx.trust(p, hook.body.data.secret);
    }
    w.contributor = await signup('cluster-contributor');
  });

  it('rate limits are global: one key sending through both instances gets its budget, within 2%', async () => {
    const key = await via(null, w.owner).post('/api/v1/account/api-keys', { name: 'limited', publisher: 'cluster-daily' });
    // From an address outside the allowlist, alternately to each instance, 40 requests a second for 8 s: far over
    // the 10/s a key refills, so the budget is the whole bucket (60) plus 10 per second elapsed.
    const callers = [via(0, key.body.data.key, '10.20.30.40'), via(1, key.body.data.key, '10.20.30.40')];
    const answers: Promise<number>[] = [];
    const started = performance.now();
    let last = started;
    for (let i = 0; performance.now() - started < 8000; i++) {
      answers.push(callers[i % 2]!.get('/api/v1/whoami').then((r) => r.status));
      last = performance.now();
      await sleep(25);
    }
    const statuses = await Promise.all(answers);
    const allowed = statuses.filter((s) => s === 200).length;
    const budget = 60 + 10 * ((last - started) / 1000);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    console.log(`rate limit: ${allowed} allowed of ${statuses.length}; budget ${budget.toFixed(1)}`);
    expect(Math.abs(allowed - budget) / budget).toBeLessThanOrEqual(0.02);
  });

  it('a write through one instance is seen by the other within 1 s', async () => {
    const url = `https://${DOMAIN}/seen-by-the-other`;
    // The other instance has the page's "no record" answer cached before the write.
    expect((await via(1).get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`)).body.data.registered).toBe(false);
    const written = await via(0, w.key).post('/api/v1/pages', { url, title: 'Seen', topic: 'health' });
    expect(written.status, written.text).toBe(201);
    const acknowledged = performance.now();
    await until('the other instance sees the page', async () => (await via(1).get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`)).body.data.registered === true, 5000);
    const ms = performance.now() - acknowledged;
    console.log(`write seen by the other instance after ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1000);
  });

  it('webhooks: each event reaches each endpoint once, in order, whichever instance relays', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await via(i % 2, w.key).post('/api/v1/pages', { url: `https://${DOMAIN}/order/${i}`, title: `Order ${i}` });
      expect(res.status).toBe(201);
    }
    const events = (await db.query(`select id from events where type = 'page.registered' order by id`)).rows.map((r) => Number(r.id));
    expect(events.length).toBeGreaterThanOrEqual(30);
    await rx.waitFor(() => ['/a', '/b'].every((p) => rx.at(p).length >= events.length), 60_000, 'every event at both endpoints');
    await sleep(500); // a duplicate would arrive now
    for (const p of ['/a', '/b']) {
      const ids = rx.at(p).map((r) => r.json.id as number);
      expect(new Set(ids).size, `${p}: each event once`).toBe(ids.length);
      expect(ids, `${p}: in order`).toEqual(events);
      expect(rx.at(p).every((r) => r.verified)).toBe(true);
    }
  }, 90_000);

  it('kill -9 of one instance under a steady mixed load: routed around, nothing acknowledged lost, it rejoins', async () => {
    // Work to decide during the load.
    const page = await via(null, w.key).post('/api/v1/pages', { url: `https://${DOMAIN}/decide`, title: 'Decide' });
    expect(page.status).toBe(201);
    const work = Array.from({ length: 300 }, (_, i) => ({ url: `https://${DOMAIN}/decide`, role: 'review', summary: `Review ${i}`, evidence: { reason: 'Read it', sources: [] } }));
    const submitted = await via(null, w.contributor).post('/api/v1/submissions', work);
    expect(submitted.status, submitted.text).toBe(200);
    const toDecide = (submitted.body.data.results as { id: number }[]).map((r) => r.id);

    const WORKERS = 6;
    const results: { kind: string; ok: boolean; status: number; at: number; id?: string | number }[] = [];
    let stop = false;
    let n = 0;
    const t0 = performance.now();
    const worker = async (k: number) => {
      while (!stop) {
        const i = n++;
        const kind = i % 3 === 0 ? 'lookup' : i % 3 === 1 ? 'register' : 'decide';
        const at = performance.now() - t0;
        try {
          if (kind === 'lookup') {
            const r = await via(null).get(`/api/v1/pages/lookup?url=${encodeURIComponent(`https://${DOMAIN}/order/${i % 30}`)}`);
            results.push({ kind, ok: r.status === 200, status: r.status, at });
          } else if (kind === 'register') {
            const url = `https://${DOMAIN}/load/${k}/${i}`;
            const r = await via(null, w.key).post('/api/v1/pages', { url, title: `Load ${i}` });
            results.push({ kind, ok: r.status === 201, status: r.status, at, id: url });
          } else {
            const id = toDecide.pop();
            if (id === undefined) continue;
            const r = await via(null, w.key).post('/api/v1/submissions/decide', { submission_id: id, decision: 'accept' });
            results.push({ kind, ok: r.status === 200, status: r.status, at, id });
          }
        } catch {
          results.push({ kind, ok: false, status: 0, at });
        }
      }
    };
    const load = Array.from({ length: WORKERS }, (_, k) => worker(k));
    await sleep(3000);
    const killedAt = performance.now() - t0;
    await cluster.kill(1);
    await sleep(4000);
    const restartAt = performance.now() - t0;
    await cluster.startInstance(1);
    await until('HAProxy has the restarted instance back', () => cluster.serverUp(1), 20_000);
    await sleep(2000);
    stop = true;
    await Promise.all(load);
    const seconds = (performance.now() - t0) / 1000;

    const failed = results.filter((r) => !r.ok);
    console.log(
      `cluster load: ${results.length} requests in ${seconds.toFixed(1)} s (${(results.length / seconds).toFixed(0)}/s), ` +
        `${failed.length} failed (${failed.map((f) => `${f.kind} ${f.status} at ${(f.at / 1000).toFixed(2)} s`).join(', ')}); killed at ${(killedAt / 1000).toFixed(2)} s, restarted at ${(restartAt / 1000).toFixed(2)} s`,
    );
    // Only requests in flight on the killed instance may fail: at most one per load worker, all sent before the
    // kill took effect.
    expect(failed.length).toBeLessThanOrEqual(WORKERS);
    for (const f of failed) expect(f.at).toBeLessThanOrEqual(killedAt + 1000);
    expect(failed.every((f) => f.status === 0 || f.status >= 500)).toBe(true);

    // No acknowledged write is lost.
    const registered = results.filter((r) => r.kind === 'register' && r.ok).map((r) => r.id as string);
    const pages = new Set((await db.query(`select url from pages where url like 'https://${DOMAIN}/load/%'`)).rows.map((r) => r.url as string));
    expect(registered.filter((u) => !pages.has(u))).toEqual([]);
    const decided = results.filter((r) => r.kind === 'decide' && r.ok).map((r) => Number(r.id));
    const accepted = new Set((await db.query(`select id from submissions where status = 'accepted'`)).rows.map((r) => Number(r.id)));
    expect(decided.filter((id) => !accepted.has(id))).toEqual([]);
    expect(registered.length).toBeGreaterThan(20);
    expect(decided.length).toBeGreaterThan(20);

    // No event is lost: every committed event reaches both endpoints, once each.
    const events = (await db.query(`select id from events where type in ('page.registered', 'contribution.accepted') order by id`)).rows.map((r) => Number(r.id));
    await rx.waitFor(() => ['/a', '/b'].every((p) => new Set(rx.at(p).map((r) => r.json.id as number)).size >= events.length), 60_000, 'every event at both endpoints');
    for (const p of ['/a', '/b']) {
      const ids = rx.at(p).map((r) => r.json.id as number);
      expect([...new Set(ids)].sort((x, y) => x - y)).toEqual(events);
    }
    // The restarted instance answers through the balancer again.
    expect((await via(1).get('/readyz')).status).toBe(200);
  }, 180_000);

  it('Redis stopped: the service keeps answering with per-instance limits, says so, and recovers when Redis is back', async () => {
    await cluster.redis!.stopServer();
    const readiness = await until('both instances report Redis down', async () => {
      const all = await Promise.all([0, 1].map((i) => via(i).get('/readyz')));
      return all.every((r) => r.status === 200 && r.body.checks.redis.status === 'degraded') && all;
    });
    expect(readiness[0]!.body.status).toBe('degraded');
    expect(readiness[0]!.body.checks.redis.detail).toMatch(/per instance/);
    // Requests go on, through the balancer, fast.
    for (let i = 0; i < 10; i++) expect((await via(null).get(`/api/v1/pages/lookup?url=https://${DOMAIN}/order/${i}`)).status).toBe(200);
    // Each instance now limits on its own: a fresh address gets a full bucket (60) at each instance.
    const ip = '10.50.60.70';
    let allowedAt0 = 0;
    for (let i = 0; i < 65; i++) if ((await via(0, null, ip).get('/v1/pages/record?url=https://x.example/')).status !== 429) allowedAt0++;
    expect(allowedAt0).toBeGreaterThanOrEqual(60);
    expect(allowedAt0).toBeLessThan(65);
    expect((await via(1, null, ip).get('/v1/pages/record?url=https://x.example/')).status).not.toBe(429);
    expect(cluster.instances[0]!.output.text).toMatch(/rate limits are per instance until it is back/);

    await cluster.redis!.startServer();
    await until('both instances report Redis back', async () => {
      const all = await Promise.all([0, 1].map((i) => via(i).get('/readyz')));
      return all.every((r) => r.body.checks.redis.status === 'ok');
    });
    // Shared again: one address's bucket is one, whichever instance answers.
    const ip2 = '10.50.60.71';
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await via(i % 2, null, ip2).get('/v1/pages/record?url=https://x.example/')).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(cluster.instances[0]!.output.text).toMatch(/Redis is back/);
  }, 60_000);

  it('PostgreSQL restarted: 503 with the envelope, fast, while it is down; recovery without restarting Credence', async () => {
    await cluster.postgres!.stopServer();
    const t = performance.now();
    const down = await via(null).get(`/api/v1/pages/lookup?url=https://${DOMAIN}/not-cached-${Date.now()}`);
    const ms = performance.now() - t;
    expect(down.status, down.text).toBe(503);
    expect(down.body).toEqual({ success: false, error: { code: 'service_unavailable', message: expect.any(String) } });
    expect(down.headers.get('retry-after')).toBe('1');
    expect(ms).toBeLessThan(5000);
    const v1 = await via(null).get(`/v1/pages/record?url=https://${DOMAIN}/not-cached-${Date.now()}`);
    expect(v1.status).toBe(503);
    expect(v1.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
    const ready = await via(0).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database.status).toBe('failing');

    await cluster.postgres!.startServer();
    await until('lookups answer again', async () => (await via(null).get(`/api/v1/pages/lookup?url=https://${DOMAIN}/after-${Date.now()}`)).status === 200, 30_000);
    await until('both instances ready again', async () => (await Promise.all([0, 1].map((i) => via(i).get('/readyz')))).every((r) => r.status === 200));
    const write = await via(null, w.key).post('/api/v1/pages', { url: `https://${DOMAIN}/after-restart`, title: 'After' });
    expect(write.status, write.text).toBe(201);
  }, 90_000);
});
