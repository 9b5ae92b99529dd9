// `npm run bench`: build 100,000 registered pages in a temporary SQLite file, start the real app and a bare
// Fastify route in child processes (the same process model for both), and load each scenario of scenarios.ts
// with autocannon from this process. Prints a table, writes bench/reports/latest.json and latest.md.
//
//   npm run bench -- [--pages 100000] [--duration 10] [--warmup 2] [--connections 50] [--rounds 1] [--only a,b]
//                    [--cpu-prof] [--postgres URL|none]
//
// --postgres: every app scenario runs a second time, in the same round, on the same data loaded into PostgreSQL
// (a schema of its own, dropped at the end): the table's PostgreSQL columns. The local server by default; skipped,
// saying so, when it cannot be reached or with `none`.
//
// --rounds N runs the whole list N times, interleaved (so a busy neighbour slows every scenario alike), and
// reports each figure's median over the rounds (non-2xx and errors are summed). The ratios to bare are paired: each
// round's figure over the bare route's in that round, then the median of those ratios.
// --cpu-prof profiles each scenario's measured seconds in its target process (not start-up, not the warm-up that
// fills the cache) and prints where the time went (see bench/profile.ts); the profiles stay in a temporary folder
// for Chrome DevTools, one per scenario and database (and round).
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from './client.js';
import { ensureBuilt } from './compiled.js';
import { buildFixture, type Fixture, postgresSchema } from './fixture.js';
import { formatProfile, summarizeProfile } from './profile.js';
import { SCENARIOS, type Scenario } from './scenarios.js';
import { median } from './stats.js';
import type { ChildMessage, ParentMessage, TargetName } from './server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPORTS = path.join(HERE, 'reports');
/** The aims (docs/performance.md): req/s as a share of the bare route's, in the same run. */
const AIMS: Record<string, number> = { 'lookup-warm': 0.85, 'record-warm': 0.8, 'embed-warm': 0.85, 'lookup-cold': 0.35, 'record-cold': 0.35 };
/** A cache miss costs at most this much server CPU. */
const MISS_AIM_US = 40;

interface Settings {
  pages: number;
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  cpuProf: boolean;
  scenarios: Scenario[];
  postgres: string | null;
}

export interface ScenarioResult {
  name: string;
  description: string;
  target: TargetName;
  requests: number;
  rps: number;
  latencyMs: { p50: number; p99: number; mean: number; max: number };
  throughputMBs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Share of record-cache calls answered without loading (app targets only). */
  cacheHitRate: number | null;
  serverRssMB: number;
  /** The server process's CPU time (user + system) per answered request, in microseconds. */
  serverCpuPerRequestUs: number;
  /** The kernel's share of that CPU time (system / (user + system)). */
  serverKernelShare: number;
  /** Server CPU time over wall time: 1.0 is one core fully busy. Well below 1, the client was the limit. */
  serverCpuBusy: number;
  /**
   * The load generator's CPU time (this process: autocannon, its parser, the path generator) per answered request.
   * Both share the machine's two cores: where the client pays more per answer (more header lines, more bytes), the
   * server gets less of the machine, and req/s falls whatever the server's own cost.
   */
  clientCpuPerRequestUs: number;
  /** The server's garbage-collection pauses per answered request, in microseconds (part of its CPU time). */
  serverGcPerRequestUs: number;
  /** req/s relative to the baseline scenario's, as measured. */
  ratioToBaseline: number | null;
  /** With --rounds: every round's req/s, p99 and CPU per request, in order; the other figures are medians. */
  rounds: { rps: number; p99: number; cpuUs: number }[];
  /** The baseline's CPU per request over this one's: the ratio when neither is held back by the client. */
  cpuRatioToBaseline: number | null;
  /** The same scenario on PostgreSQL, in the same rounds (app scenarios, with --postgres). */
  postgres?: ScenarioResult | null;
}

function settingsFrom(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      pages: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '1' },
      only: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      postgres: { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    },
  });
  const only = values.only?.split(',').map((s) => s.trim());
  const scenarios = only ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;
  if (only && scenarios.length !== only.length) {
    throw new Error(`unknown scenario in --only; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  return {
    pages: Number(values.pages),
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Math.max(1, Number(values.rounds)),
    cpuProf: values['cpu-prof'] ?? false,
    scenarios,
    postgres: values.postgres === 'none' ? null : (values.postgres ?? null),
  };
}

/** A target server in its own process, plus a way to ask it for its counters. */
class Target {
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(target: TargetName, dataDir: string, databaseUrl = ''): Promise<Target> {
    const child = fork(path.join(HERE, 'server.ts'), [target, dataDir, databaseUrl], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the ${target} server exited (${code}) before listening`)));
      child.on('message', (m: ChildMessage) => {
        if (m.type === 'listening') resolve(m.port);
      });
    });
    return new Target(child, port);
  }

  stats(): Promise<Extract<ChildMessage, { type: 'stats' }>> {
    return this.ask({ type: 'stats' }, 'stats');
  }

  /** Start V8's profiler in the target; `profileStop` writes what it sampled since to `file`. */
  profileStart(): Promise<unknown> {
    return this.ask({ type: 'profile-start' }, 'profiling');
  }

  profileStop(file: string): Promise<unknown> {
    return this.ask({ type: 'profile-stop', file }, 'profiled');
  }

  private ask<K extends ChildMessage['type']>(m: ParentMessage, answer: K): Promise<Extract<ChildMessage, { type: K }>> {
    return new Promise((resolve) => {
      const onMessage = (reply: ChildMessage) => {
        if (reply.type !== answer) return;
        this.child.off('message', onMessage);
        resolve(reply as Extract<ChildMessage, { type: K }>);
      };
      this.child.on('message', onMessage);
      this.child.send(m);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

async function load(port: number, next: () => string, seconds: number, connections: number, headers: Record<string, string> = {}): Promise<Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        headers,
        setupRequest: (req) => {
          req.path = next();
          return req;
        },
      },
    ],
  });
}

/** One request before measuring: a benchmark of 404s or 429s would measure nothing useful. */
async function check(port: number, scenario: Scenario, next: () => string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${next()}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${scenario.name}: the first request answered ${res.status}: ${text.slice(0, 300)}`);
  // A record (lookup, page record), the health answer, or an embed with its block.
  if (scenario.target === 'app' && !/"(contributions|contributors|ok)"|class=\\"credence/.test(text)) {
    throw new Error(`${scenario.name}: the first request did not return a record: ${text.slice(0, 300)}`);
  }
}

/**
 * A CMS in the background: every 50 ms it sends its share of `perSecond` registrations of new pages, one page per
 * POST, without waiting for the previous ones (a CMS does not slow down because the service is busy).
 */
function startWriter(port: number, fixture: Fixture, perSecond: number) {
  const counts = { sent: 0, ok: 0, failed: 0 };
  let n = 0;
  let owed = 0;
  const tick = setInterval(() => {
    owed += perSecond / 20;
    for (; owed >= 1; owed--) {
      counts.sent++;
      const url = `https://${fixture.cms.host}/cms/${process.pid}-${Date.now()}-${n++}`;
      fetch(`http://127.0.0.1:${port}/api/v1/pages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': fixture.cms.key },
        body: JSON.stringify({ url, title: `CMS page ${n}`, topic: 'health' }),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          counts[r.status === 201 ? 'ok' : 'failed']++;
        },
        () => counts.failed++,
      );
    }
  }, 50);
  return { counts, stop: () => clearInterval(tick) };
}

async function runScenario(s: Settings, scenario: Scenario, fixture: Fixture, target: Target, profileFile: string | null): Promise<ScenarioResult> {
  const next = scenario.paths(fixture);
  await check(target.port, scenario, next);
  const writer = scenario.writesPerSecond ? startWriter(target.port, fixture, scenario.writesPerSecond) : null;
  process.stdout.write(`${scenario.name}: warming up ${s.warmup} s, measuring ${s.duration} s with ${s.connections} connections ... `);
  if (s.warmup > 0) await load(target.port, next, s.warmup, s.connections, scenario.headers);
  await target.stats(); // resets the counters: the warm-up is not measured
  if (profileFile) await target.profileStart();
  const written = writer ? { ...writer.counts } : null;
  const clientSince = process.cpuUsage();
  const r = await load(target.port, next, s.duration, s.connections, scenario.headers);
  const client = process.cpuUsage(clientSince);
  const stats = await target.stats();
  if (profileFile) await target.profileStop(profileFile);
  writer?.stop();
  const result: ScenarioResult = {
    name: scenario.name,
    description: scenario.description,
    target: scenario.target,
    requests: r.requests.total,
    rps: r.requests.average,
    latencyMs: { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, max: r.latency.max },
    throughputMBs: r.throughput.average / 1_048_576,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    cacheHitRate: stats.cacheCalls > 0 ? 1 - stats.cacheMisses / stats.cacheCalls : null,
    serverRssMB: stats.rssBytes / 1_048_576,
    serverCpuPerRequestUs: stats.cpuMicros / Math.max(1, r.requests.total),
    serverKernelShare: stats.systemMicros / Math.max(1, stats.cpuMicros),
    serverCpuBusy: stats.cpuMicros / Math.max(1, stats.elapsedMicros),
    clientCpuPerRequestUs: (client.user + client.system) / Math.max(1, r.requests.total),
    serverGcPerRequestUs: stats.gcMicros / Math.max(1, r.requests.total),
    ratioToBaseline: null,
    rounds: [],
    cpuRatioToBaseline: null,
  };
  console.log(
    `${fmt(result.rps)} req/s, p99 ${fmt(result.latencyMs.p99, 1)} ms, server ${fmt(result.serverCpuPerRequestUs)} µs CPU/request (${pct(result.serverKernelShare)} kernel), ${pct(result.serverCpuBusy)} busy, GC ${fmt(result.serverGcPerRequestUs, 1)} µs/request, client ${fmt(result.clientCpuPerRequestUs)} µs CPU/request`,
  );
  if (writer && written) {
    const sent = writer.counts.sent - written.sent;
    console.log(`  background: ${sent} registrations sent while measuring (${fmt(sent / s.duration)}/s), ${writer.counts.failed} failed so far`);
  }
  if (result.non2xx > 0 || result.errors > 0) {
    console.log(`  warning: ${result.non2xx} non-2xx answers and ${result.errors} errors; the figure is suspect`);
  }
  return result;
}

/** Each figure's median over the rounds (the lower middle one for an even count), taken figure by figure. */
function medianOf(runs: ScenarioResult[]): ScenarioResult {
  const med = (pick: (r: ScenarioResult) => number) => median(runs.map(pick));
  const first = runs[0]!;
  return {
    ...first,
    requests: med((r) => r.requests),
    rps: med((r) => r.rps),
    latencyMs: { p50: med((r) => r.latencyMs.p50), p99: med((r) => r.latencyMs.p99), mean: med((r) => r.latencyMs.mean), max: med((r) => r.latencyMs.max) },
    throughputMBs: med((r) => r.throughputMBs),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    timeouts: runs.reduce((n, r) => n + r.timeouts, 0),
    cacheHitRate: first.cacheHitRate === null ? null : med((r) => r.cacheHitRate ?? 0),
    serverRssMB: Math.max(...runs.map((r) => r.serverRssMB)),
    serverCpuPerRequestUs: med((r) => r.serverCpuPerRequestUs),
    serverKernelShare: med((r) => r.serverKernelShare),
    serverCpuBusy: med((r) => r.serverCpuBusy),
    clientCpuPerRequestUs: med((r) => r.clientCpuPerRequestUs),
    serverGcPerRequestUs: med((r) => r.serverGcPerRequestUs),
    rounds: runs.map((r) => ({ rps: Math.round(r.rps), p99: r.latencyMs.p99, cpuUs: Math.round(r.serverCpuPerRequestUs) })),
  };
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    // Anything else running shares the two cores: a high load average means the figures are low and noisy.
    loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 100)}%`);

export function markdownTable(results: ScenarioResult[]): string {
  const withPg = results.some((r) => r.postgres);
  const pgCells = (r: ScenarioResult) =>
    !withPg ? '' : r.postgres ? ` ${fmt(r.postgres.rps)} | ${pct(r.postgres.ratioToBaseline)} | ${fmt(r.postgres.serverCpuPerRequestUs)} | ${fmt(r.postgres.latencyMs.p99, 1)} |` : ' — | — | — | — |';
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.latencyMs.p50, 1)} | ${fmt(r.latencyMs.p99, 1)} | ${pct(r.ratioToBaseline)} | ` +
        `${fmt(r.serverCpuPerRequestUs)} | ${pct(r.serverKernelShare)} | ${pct(r.serverCpuBusy)} | ${fmt(r.clientCpuPerRequestUs)} | ${pct(r.cpuRatioToBaseline)} | ${pct(r.cacheHitRate)} | ${r.non2xx + r.errors + (r.postgres ? r.postgres.non2xx + r.postgres.errors : 0)} |` +
        pgCells(r),
  );
  return [
    '| scenario | req/s | p50 ms | p99 ms | req/s vs bare | server µs CPU/req | of which kernel | server CPU busy | client µs CPU/req | CPU/req vs bare | cache hits | non-2xx + errors |' +
      (withPg ? ' PostgreSQL req/s | PostgreSQL vs bare | PostgreSQL µs CPU/req | PostgreSQL p99 ms |' : ''),
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|' + (withPg ? '---:|---:|---:|---:|' : ''),
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const s = settingsFrom(process.argv.slice(2));
  const m = machine();
  const date = new Date().toISOString();
  console.log(`credence bench ${date.slice(0, 10)}: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, load ${m.loadAverage1m}`);
  console.log(`${s.pages.toLocaleString('en')} pages; ${s.scenarios.map((x) => x.name).join(', ')}`);

  ensureBuilt(); // the targets run the compiled service (compiled.ts)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-'));
  const profileDir = s.cpuProf ? fs.mkdtempSync(path.join(os.tmpdir(), 'credence-prof-')) : null;
  const targets = new Map<TargetName, Target>();
  const postgres = s.postgres && s.scenarios.some((x) => x.target === 'app') ? await postgresSchema(s.postgres) : null;
  try {
    const fixture = await buildFixture({ dataDir, pages: s.pages, log: (line) => console.log(line) });
    // The same pages (the fixture is deterministic) in PostgreSQL.
    const pgFixture = postgres ? await buildFixture({ dataDir, pages: s.pages, log: (line) => console.log(`postgres ${line}`), databaseUrl: postgres.url }) : null;
    const rounds: ScenarioResult[][] = s.scenarios.map(() => []);
    const pgRounds: ScenarioResult[][] = s.scenarios.map(() => []);
    for (let round = 1; round <= s.rounds; round++) {
      if (s.rounds > 1) console.log(`round ${round}/${s.rounds}`);
      for (const [i, scenario] of s.scenarios.entries()) {
        let target = targets.get(scenario.target);
        if (!target) {
          target = await Target.start(scenario.target, dataDir);
          targets.set(scenario.target, target);
        }
        const profileFile = (db: string) => (profileDir ? path.join(profileDir, `${scenario.name}-${db}-round${round}.cpuprofile`) : null);
        rounds[i]!.push(await runScenario(s, scenario, fixture, target, profileFile('sqlite')));
        if (pgFixture && postgres && scenario.target === 'app') {
          let pgTarget = targets.get('app-pg');
          if (!pgTarget) {
            pgTarget = await Target.start('app-pg', dataDir, postgres.url);
            targets.set('app-pg', pgTarget);
          }
          process.stdout.write('  on PostgreSQL: ');
          pgRounds[i]!.push({ ...(await runScenario(s, scenario, pgFixture, pgTarget, profileFile('postgres'))), target: 'app-pg' });
        }
      }
    }
    const results = rounds.map(medianOf);
    for (const [i, r] of results.entries()) r.postgres = pgRounds[i]!.length > 0 ? medianOf(pgRounds[i]!) : null;
    // Each ratio is paired: a scenario against the bare route of its own round, then the median over the rounds.
    // The machine's speed drifts between rounds (these shared 2-core machines move 2× from minute to minute), and
    // a ratio of two medians taken from different rounds carries that drift; a ratio within a round mostly does not.
    const b = s.scenarios.findIndex((x) => x.name === SCENARIOS[0]!.name);
    if (b >= 0) {
      const pairedMedian = (runs: ScenarioResult[], base: ScenarioResult[], of: (r: ScenarioResult, base: ScenarioResult) => number) =>
        median(runs.map((r, k) => of(r, base[k]!)));
      const rps = (r: ScenarioResult, base: ScenarioResult) => r.rps / base.rps;
      const cpu = (r: ScenarioResult, base: ScenarioResult) => base.serverCpuPerRequestUs / r.serverCpuPerRequestUs;
      for (const [i, r] of results.entries()) {
        r.ratioToBaseline = pairedMedian(rounds[i]!, rounds[b]!, rps);
        r.cpuRatioToBaseline = pairedMedian(rounds[i]!, rounds[b]!, cpu);
        if (r.postgres) {
          r.postgres.ratioToBaseline = pairedMedian(pgRounds[i]!, rounds[b]!, rps);
          r.postgres.cpuRatioToBaseline = pairedMedian(pgRounds[i]!, rounds[b]!, cpu);
        }
      }
    }

    const table = markdownTable(results);
    console.log(`\n${table}\n`);
    for (const r of results.filter((x) => AIMS[x.name] !== undefined && x.ratioToBaseline !== null)) {
      const aim = AIMS[r.name]!;
      console.log(
        `${r.ratioToBaseline! >= aim ? 'PASS' : 'FAIL'}  ${r.name}: ${pct(r.ratioToBaseline)} of the bare route's req/s (aim ${pct(aim)}); ` +
          `by server CPU per request: ${pct(r.cpuRatioToBaseline)}`,
      );
    }
    // What a miss costs over a hit: the cold scenario's CPU per request less the warm one's, per miss. (The whole
    // request of a miss, HTTP included, is this plus the warm figure.) `npm run bench:miss` measures the same in
    // process, without HTTP, where a loaded machine disturbs it less.
    for (const [cold, warm] of [['lookup-cold', 'lookup-warm'], ['record-cold', 'record-warm']] as const) {
      const c = results.find((x) => x.name === cold);
      const w = results.find((x) => x.name === warm);
      if (!c || !w || c.cacheHitRate === null || c.cacheHitRate >= 1) continue;
      const missUs = (c.serverCpuPerRequestUs - w.serverCpuPerRequestUs) / (1 - c.cacheHitRate);
      console.log(`${missUs <= MISS_AIM_US ? 'PASS' : 'FAIL'}  ${cold}: a miss costs about ${Math.round(missUs)} µs of server CPU more than a hit (aim ${MISS_AIM_US} µs)`);
    }

    const loadAfter = Math.round(os.loadavg()[0]! * 100) / 100;
    if (Math.max(m.loadAverage1m, loadAfter) > 1.5) {
      console.log(`note: the load average was ${m.loadAverage1m} before and ${loadAfter} after; other work shared the CPUs`);
    }
    const settings = {
      loadAverage1mAfter: loadAfter,
      pages: fixture.pages,
      contributions: fixture.contributions,
      fixtureSeconds: Math.round(fixture.buildSeconds * 10) / 10,
      duration: s.duration,
      warmup: s.warmup,
      connections: s.connections,
      rounds: s.rounds,
      database: postgres ? 'sqlite (embedded); the PostgreSQL columns on the local server, same data' : 'sqlite (embedded)',
      rateLimits: 'lifted for 127.0.0.1 by RATE_LIMIT_ALLOWLIST=127.0.0.1',
      processModel: 'each target in its own child process (node --import tsx); autocannon in the parent',
      cpuProfile: s.cpuProf,
    };
    fs.mkdirSync(REPORTS, { recursive: true });
    // A partial run (--only, other settings) or a profiled one is not the record: it goes to files git ignores.
    const full = s.scenarios.length === SCENARIOS.length && !s.cpuProf && s.pages === 100_000;
    const [jsonFile, mdFile] = full ? ['latest.json', 'latest.md'] : ['partial.json.tmp', 'partial.md.tmp'];
    fs.writeFileSync(path.join(REPORTS, jsonFile), `${JSON.stringify({ date, machine: m, settings, results }, null, 2)}\n`);
    fs.writeFileSync(
      path.join(REPORTS, mdFile),
      `Run ${date} on ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}; ` +
        `${fixture.pages.toLocaleString('en')} pages, ${s.connections} connections, ${s.duration} s per scenario after ${s.warmup} s of warm-up` +
        `${s.rounds > 1 ? `, median of ${s.rounds} interleaved rounds` : ''}.\n\n${table}\n`,
    );
    console.log(`report: bench/reports/${jsonFile} and ${mdFile}`);

    if (profileDir) {
      for (const f of fs.readdirSync(profileDir).filter((x) => x.endsWith('.cpuprofile')).sort()) {
        const file = path.join(profileDir, f);
        console.log(`\nCPU profile of ${f.replace(/\.cpuprofile$/, '')}, the measured seconds only (${file}; Chrome DevTools opens it):\n`);
        console.log(formatProfile(summarizeProfile(file)));
      }
    }
  } finally {
    for (const t of targets.values()) await t.stop();
    await postgres?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
