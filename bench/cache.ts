// `npm run bench:cache`: readers through the cache tier. The cluster of `npm run cluster -- --cache`
// (scripts/cluster.ts: Varnish with xkey in front of HAProxy and 2 instances, private PostgreSQL and Redis) on a
// fixture of pages (bench/fixture.ts). With autocannon from this process it measures:
//
//   - warm embeds by URL (a set of WARM_SET pages, in random order) through the cache, and the same load at the
//     balancer (the origin, both instances, no cache): req/s, p99; and how many of the readers' requests reached the
//     origin, per 100,000 (Varnish's MAIN.client_req and MAIN.backend_req over the measured run, after a warm-up);
//   - an accepted correction to the new block through the cache: one at a time, on a page whose embed the cache
//     holds, from the decision's answer to the first reader request through the cache that gets the new block
//     (asked every 5 ms): p50, p99, max.
//
// It prints a table and writes bench/reports/cache-latest.json.
//
//   npm run bench:cache -- [--pages 20000] [--duration 10] [--warmup 3] [--connections 50] [--corrections 100]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from './client.js';
import { LocalCluster } from '../scripts/cluster.js';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/deps.js';
import { createAccount } from '../src/domain/accounts/account.service.js';
import { submitWork } from '../src/domain/submissions/submission.service.js';
import { createPrng } from '../src/demo/prng.js';
import { buildFixture, type Fixture } from './fixture.js';
import { WARM_SET } from './scenarios.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = path.join(ROOT, 'bench/reports/cache-latest.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function warmEmbeds(fixture: Fixture, seed: number): () => string {
  const pick = createPrng(seed);
  const set = Array.from({ length: Math.min(WARM_SET, fixture.urls.length) }, () => `/api/v1/embed/by-url?url=${encodeURIComponent(fixture.urls[pick.int(fixture.urls.length)]!)}`);
  const rng = createPrng(seed + 1);
  return () => set[rng.int(set.length)]!;
}

function summary(r: Result) {
  const answered = Object.values(r.statusCodeStats).reduce((a, s) => a + s.count, 0);
  return { requests: answered + r.errors, rps: Math.round((answered + r.errors) / r.duration), p50Ms: r.latency.p50, p99Ms: r.latency.p99, failed: r.errors + r.non2xx };
}

/** Pending corrections on pages of the CMS publisher, one per page, through the service. */
async function pendingCorrections(databaseUrl: string, fixture: Fixture, count: number): Promise<{ id: number; url: string }[]> {
  const rt = await createRuntime(loadConfig({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-cache-work-')), LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl }));
  try {
    const contributor = await createAccount(rt.deps, { email: 'cache-bench@bench.example', password: 'bench-password-123', name: 'Cache Bench', username: 'cache-bench' });
    const pages = fixture.urls.filter((u) => new URL(u).host === fixture.cms.host).slice(0, count);
    const items = pages.map((url, k) => ({
      index: k,
      ok: true as const,
      value: { url, role: 'correction' as const, summary: `Corrected for the cache bench (${k})`, evidence: { reason: 'A figure was wrong', sources: [], before: 'twelve', after: 'twenty' } },
    }));
    const out: { id: number; url: string }[] = [];
    const results = await submitWork(rt.deps, contributor.user_id, items);
    results.forEach((r, k) => {
      if (r.id !== undefined) out.push({ id: r.id, url: pages[k]! });
    });
    return out;
  } finally {
    await rt.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      pages: { type: 'string', default: '20000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      corrections: { type: 'string', default: '100' },
    },
  });
  const duration = Number(values.duration);
  const warmup = Number(values.warmup);
  const connections = Number(values.connections);
  const date = new Date().toISOString();
  const log = (line: string) => console.log(line);
  const loadBefore = os.loadavg()[0]!;
  log(`credence bench:cache ${date.slice(0, 10)}: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${loadBefore.toFixed(2)}`);

  const cluster = await LocalCluster.start({ instances: 2, cache: true, env: { RATE_LIMIT_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn' }, log });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-cache-'));
  try {
    const fixture = await buildFixture({ dataDir, pages: Number(values.pages), log, databaseUrl: cluster.databaseUrl });
    const corrections = await pendingCorrections(cluster.databaseUrl, fixture, Number(values.corrections));
    log(`pending corrections: ${corrections.length}`);

    // Warm embeds: through the cache, then at the origin (the balancer), the same paths in the same order.
    const reads: Record<string, ReturnType<typeof summary> & { originPer100k?: number; readerRequests?: number; originRequests?: number }> = {};
    for (const target of ['cache', 'origin'] as const) {
      const url = target === 'cache' ? cluster.url : cluster.originUrl;
      const next = warmEmbeds(fixture, 7);
      const requests = [{ method: 'GET', setupRequest: (req: { path: string }) => ({ ...req, path: next() }) }];
      await autocannon({ url, connections, duration: warmup, requests });
      const before = target === 'cache' ? cluster.varnish!.counters() : null;
      const r = summary(await autocannon({ url, connections, duration, requests }));
      reads[target] = r;
      if (before) {
        const after = cluster.varnish!.counters();
        const readerRequests = after['MAIN.client_req']! - before['MAIN.client_req']!;
        const originRequests = after['MAIN.backend_req']! - before['MAIN.backend_req']!;
        Object.assign(reads[target], { readerRequests, originRequests, originPer100k: Math.round((originRequests / readerRequests) * 100_000 * 10) / 10 });
      }
      log(`warm embeds through the ${target}: ${r.rps} req/s, p99 ${r.p99Ms} ms, ${r.failed} failed of ${r.requests}${before ? `; ${reads[target]!.originRequests} of ${reads[target]!.readerRequests} reached the origin (${reads[target]!.originPer100k} per 100,000)` : ''}`);
    }

    // Accepted correction → the new block through the cache.
    const auth = { authorization: `Bearer ${fixture.cms.key}`, 'content-type': 'application/json' };
    const seen: number[] = [];
    for (const c of corrections) {
      const path_ = `/api/v1/embed/by-url?url=${encodeURIComponent(c.url)}`;
      let old = '';
      for (let i = 0; i < 50; i++) {
        const r = await fetch(cluster.url + path_);
        old = await r.text();
        if (r.headers.get('x-cache') === 'hit') break;
        await sleep(10);
      }
      const decided = await fetch(`${cluster.url}/api/v1/submissions/decide`, { method: 'POST', headers: auth, body: JSON.stringify({ submission_id: c.id, decision: 'accept' }) });
      await decided.text();
      if (decided.status !== 200) throw new Error(`decide: ${decided.status}`);
      const t = performance.now();
      for (;;) {
        const body = await (await fetch(cluster.url + path_)).text();
        if (body !== old) break;
        if (performance.now() - t > 10_000) throw new Error(`the new block did not come through the cache in 10 s (${c.url})`);
        await sleep(5);
      }
      seen.push(performance.now() - t);
    }
    const sorted = [...seen].sort((a, b) => a - b);
    const correction = { samples: sorted.length, p50Ms: Math.round(pct(sorted, 50)), p99Ms: Math.round(pct(sorted, 99)), maxMs: Math.round(sorted[sorted.length - 1]!) };
    log(`accepted correction → new block through the cache: p50 ${correction.p50Ms} ms, p99 ${correction.p99Ms} ms, max ${correction.maxMs} ms (${correction.samples} corrections)`);

    const c = reads.cache!;
    const o = reads.origin!;
    const table = [
      '| figure | through the cache | at the origin (2 instances) |',
      '|---|---:|---:|',
      `| warm embeds, req/s | ${c.rps} | ${o.rps} |`,
      `| p99 ms | ${c.p99Ms} | ${o.p99Ms} |`,
      `| origin requests per 100,000 reader requests | ${c.originPer100k} | 100,000 |`,
      `| accepted correction → new block, p50 / p99 / max ms | ${correction.p50Ms} / ${correction.p99Ms} / ${correction.maxMs} | — |`,
    ].join('\n');
    const loadAfter = os.loadavg()[0]!;
    log(`\n${table}\n\nload average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`);
    fs.mkdirSync(path.dirname(REPORT), { recursive: true });
    fs.writeFileSync(
      REPORT,
      `${JSON.stringify(
        {
          date,
          machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model.trim(), node: process.version, loadBefore, loadAfter, shared: true },
          settings: { pages: fixture.pages, duration, warmup, connections, warmSet: WARM_SET, corrections: corrections.length },
          reads,
          correction,
        },
        null,
        2,
      )}\n`,
    );
    log(`written: ${path.relative(ROOT, REPORT)}`);
  } finally {
    await cluster.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
