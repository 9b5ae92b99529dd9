// `npm run bench:cluster`: what a second instance behind a load balancer buys, and what losing one costs. The
// cluster is scripts/cluster.ts's (the one `npm run cluster` starts): 2 `credence serve` instances on a private
// PostgreSQL and Redis behind HAProxy, all on this machine. On a fixture of pages (bench/fixture.ts, written to the
// cluster's PostgreSQL) it measures, with autocannon from this process:
//
//   - warm lookups and a mixed load (80% warm lookups, 10% page registrations, 10% decisions accepting pending
//     work), each through the balancer (both instances) and straight at instance 0 (one instance, no balancer):
//     req/s, p99 latency and failed requests (no answer, or not 2xx);
//   - kill -9 of instance 1 under the mixed load through the balancer: failed requests out of the total, and how
//     long the instance takes to rejoin (restarted at once, as a supervisor would; back when HAProxy's /readyz
//     checks hold it UP).
//
// It prints a table and writes bench/reports/cluster-latest.json. Rate limits are lifted for the loopback
// (RATE_LIMIT_ALLOWLIST), so the figures are the service's, not its limits'.
//
//   npm run bench:cluster -- [--instances 2] [--pages 20000] [--duration 10] [--warmup 2] [--connections 50]
//                            [--kill-duration 20] [--kill-at 5] [--submissions 10000]
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
const REPORT = path.join(ROOT, 'bench/reports/cluster-latest.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figure {
  scenario: 'lookup-warm' | 'mixed';
  target: 'balancer' | 'direct';
  seconds: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** No answer (connection error, timeout) or an answer other than 2xx. */
  failed: number;
  statusCodes: Record<string, number>;
  /** Of the mixed load: how many registrations and decisions were sent. */
  writes?: { registrations: number; decisions: number };
}

interface KillFigure {
  seconds: number;
  requests: number;
  rps: number;
  p99Ms: number;
  failed: number;
  statusCodes: Record<string, number>;
  /** When the failures happened, in seconds from the kill (negative: before it). */
  failedAt: number[];
  killedAtS: number;
  /** From the kill to the restarted process saying it serves. */
  restartS: number;
  /** From the kill to HAProxy holding the instance UP again. */
  rejoinS: number;
  writes: { registrations: number; decisions: number };
}

/** Paths of a fixed set of WARM_SET lookups, requested in random order (the warm scenario of bench/scenarios.ts). */
function warmLookups(fixture: Fixture, seed: number): () => string {
  const pick = createPrng(seed);
  const set = Array.from({ length: Math.min(WARM_SET, fixture.urls.length) }, () => `/api/v1/pages/lookup?url=${encodeURIComponent(fixture.urls[pick.int(fixture.urls.length)]!)}`);
  const rng = createPrng(seed + 1);
  return () => set[rng.int(set.length)]!;
}

/**
 * The mixed load's requests: of every ten, one registers a new page (the CMS key), one accepts a pending submission
 * (the same key, whose publisher owns the pages), eight are warm lookups. When the pending work runs out, the
 * decision's turn goes to a lookup (counted, so the report says what the mix really was).
 */
function mixedRequests(fixture: Fixture, pending: number[], label: string, seed: number) {
  const lookup = warmLookups(fixture, seed);
  const writes = { registrations: 0, decisions: 0 };
  let n = 0;
  const auth = { authorization: `Bearer ${fixture.cms.key}`, 'content-type': 'application/json' };
  const setupRequest = (req: { path: string; method: string; headers: Record<string, string>; body?: string }) => {
    const i = n++;
    if (i % 10 === 0) {
      writes.registrations++;
      const body = JSON.stringify({ url: `https://${fixture.cms.host}/bench-cluster/${label}/${i}`, title: `Cluster bench ${label} ${i}`, topic: 'health' });
      return { ...req, method: 'POST', path: '/api/v1/pages', headers: { ...req.headers, ...auth }, body };
    }
    if (i % 10 === 1) {
      const id = pending.pop();
      if (id !== undefined) {
        writes.decisions++;
        return { ...req, method: 'POST', path: '/api/v1/submissions/decide', headers: { ...req.headers, ...auth }, body: JSON.stringify({ submission_id: id, decision: 'accept' }) };
      }
    }
    return { ...req, method: 'GET', path: lookup(), headers: {}, body: undefined };
  };
  return { setupRequest, writes };
}

function summary(r: Result) {
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]));
  const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    seconds: r.duration,
    requests: answered + r.errors,
    rps: Math.round((answered + r.errors) / r.duration),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    failed: r.errors + r.non2xx,
    statusCodes,
  };
}

/** Pending submissions for the decisions, through the service (a contributor of its own, on the CMS publisher's pages). */
async function pendingWork(databaseUrl: string, fixture: Fixture, count: number, log: (line: string) => void): Promise<number[]> {
  const rt = await createRuntime(loadConfig({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-cluster-work-')), LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl }));
  try {
    const contributor = await createAccount(rt.deps, { email: 'cluster-bench@bench.example', password: 'bench-password-123', name: 'Cluster Bench', username: 'cluster-bench' });
    const pages = fixture.urls.filter((u) => new URL(u).host === fixture.cms.host).slice(0, 500);
    const ids: number[] = [];
    for (let start = 0; start < count; start += 500) {
      const items = Array.from({ length: Math.min(500, count - start) }, (_, k) => ({
        index: k,
        ok: true as const,
        value: { url: pages[(start + k) % pages.length]!, role: 'review' as const, summary: `Reviewed for the cluster bench (${start + k})`, evidence: { reason: 'Read it', sources: [] } },
      }));
      for (const r of await submitWork(rt.deps, contributor.user_id, items)) if (r.id !== undefined) ids.push(r.id);
    }
    log(`pending work: ${ids.length.toLocaleString('en')} submissions on ${pages.length} pages of ${fixture.cms.host}`);
    return ids.reverse();
  } finally {
    await rt.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      instances: { type: 'string', default: '2' },
      pages: { type: 'string', default: '20000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      'kill-duration': { type: 'string', default: '20' },
      'kill-at': { type: 'string', default: '5' },
      submissions: { type: 'string', default: '10000' },
    },
  });
  const instances = Number(values.instances);
  const duration = Number(values.duration);
  const warmup = Number(values.warmup);
  const connections = Number(values.connections);
  const killDuration = Number(values['kill-duration']);
  const killAt = Number(values['kill-at']);
  if (instances < 2) throw new Error('--instances must be 2 or more (the kill test takes one out)');
  const date = new Date().toISOString();
  const log = (line: string) => console.log(line);
  const loadBefore = os.loadavg()[0]!;
  log(`credence bench:cluster ${date.slice(0, 10)}: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${loadBefore.toFixed(2)}`);

  const cluster = await LocalCluster.start({ instances, env: { RATE_LIMIT_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn' }, log });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-cluster-'));
  try {
    const fixture = await buildFixture({ dataDir, pages: Number(values.pages), log, databaseUrl: cluster.databaseUrl });
    const pending = await pendingWork(cluster.databaseUrl, fixture, Number(values.submissions), log);
    const direct = `http://127.0.0.1:${cluster.instances[0]!.port}`;

    const figures: Figure[] = [];
    let seed = 10;
    for (const scenario of ['lookup-warm', 'mixed'] as const) {
      for (const target of ['balancer', 'direct'] as const) {
        const url = target === 'balancer' ? cluster.url : direct;
        const mixed = scenario === 'mixed' ? mixedRequests(fixture, pending, `${target}-${seed}`, seed) : null;
        const lookups = warmLookups(fixture, 2);
        const requests = [mixed ? { method: 'GET', setupRequest: mixed.setupRequest } : { method: 'GET', setupRequest: (req: { path: string }) => ({ ...req, path: lookups() }) }];
        // Warm-up: the caches of every instance the target reaches hold the warm set.
        if (warmup > 0) await autocannon({ url, connections, duration: warmup, requests });
        if (mixed) mixed.writes.registrations = mixed.writes.decisions = 0;
        const r = summary(await autocannon({ url, connections, duration, requests }));
        const figure: Figure = { scenario, target, ...r, ...(mixed ? { writes: { ...mixed.writes } } : {}) };
        figures.push(figure);
        seed += 10;
        log(
          `${scenario}, ${target === 'balancer' ? `balancer (${instances} instances)` : 'instance 0 direct'}: ${r.rps} req/s, p99 ${r.p99Ms} ms, ` +
            `${r.failed} failed of ${r.requests}${figure.writes ? ` (${figure.writes.registrations} registrations, ${figure.writes.decisions} decisions)` : ''}`,
        );
      }
    }

    // kill -9 under the mixed load through the balancer.
    log(`kill -9: mixed load through the balancer for ${killDuration} s, instance 1 killed at ${killAt} s and restarted at once`);
    const mixed = mixedRequests(fixture, pending, 'kill', 99);
    const started = performance.now();
    const failedAtMs: number[] = [];
    const load = autocannon({ url: cluster.url, connections, duration: killDuration, requests: [{ method: 'GET', setupRequest: mixed.setupRequest }] });
    load.on('response', (_c, status) => {
      if (status < 200 || status >= 300) failedAtMs.push(performance.now() - started);
    });
    load.on('reqError', () => failedAtMs.push(performance.now() - started));
    await sleep(killAt * 1000);
    await cluster.kill(1);
    const killedAt = performance.now();
    await cluster.startInstance(1);
    const restartS = (performance.now() - killedAt) / 1000;
    while (!(await cluster.serverUp(1).catch(() => false))) await sleep(50);
    const rejoinS = (performance.now() - killedAt) / 1000;
    const r = summary(await load);
    const kill: KillFigure = {
      seconds: r.seconds,
      requests: r.requests,
      rps: r.rps,
      p99Ms: r.p99Ms,
      failed: r.failed,
      statusCodes: r.statusCodes,
      failedAt: failedAtMs.map((ms) => Math.round(ms - (killedAt - started)) / 1000),
      killedAtS: Math.round(killedAt - started) / 1000,
      restartS: Math.round(restartS * 100) / 100,
      rejoinS: Math.round(rejoinS * 100) / 100,
      writes: { ...mixed.writes },
    };
    log(`kill -9: ${kill.failed} failed of ${kill.requests} (${kill.rps} req/s, p99 ${kill.p99Ms} ms); restarted process serving ${kill.restartS} s after the kill, back in HAProxy after ${kill.rejoinS} s`);

    const name = (f: Figure) => `${f.scenario} | ${f.target === 'balancer' ? `balancer, ${instances} instances` : 'instance 0 direct'}`;
    const table = [
      '| scenario | target | req/s | p50 ms | p99 ms | failed / requests |',
      '|---|---|---:|---:|---:|---:|',
      ...figures.map((f) => `| ${name(f)} | ${f.rps} | ${f.p50Ms} | ${f.p99Ms} | ${f.failed} / ${f.requests} |`),
      `| mixed, kill -9 of instance 1 at ${kill.killedAtS} s | balancer | ${kill.rps} | — | ${kill.p99Ms} | ${kill.failed} / ${kill.requests} |`,
    ].join('\n');
    log(`\n${table}\n\nkill -9: the restarted instance served ${kill.restartS} s after the kill and was back in HAProxy after ${kill.rejoinS} s.`);
    const loadAfter = os.loadavg()[0]!;
    log(`load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`);
    fs.mkdirSync(path.dirname(REPORT), { recursive: true });
    fs.writeFileSync(
      REPORT,
      `${JSON.stringify(
        {
          date,
          machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model.trim(), node: process.version, loadBefore, loadAfter },
          settings: { instances, pages: fixture.pages, duration, warmup, connections, killDuration, killAt, submissions: Number(values.submissions), mix: '80% warm lookups, 10% registrations, 10% decisions' },
          figures,
          kill,
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
