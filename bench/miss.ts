// `npm run bench:miss`: what a cache miss costs, in process, without HTTP. The fixture of `npm run bench` (100,000 pages) on SQLite, and in PostgreSQL unless
// `--postgres none`; the real runtime (record cache with its follower, 20,000 entries), then the lookup's and the
// record's finished answers (`lookup-json:`/`record-json:`, as the routes build them) for pages drawn uniformly at
// random, so nearly every call misses. Reports the process's CPU time per miss (user + system), the median of the
// rounds, and how much of it the record's statement takes alone.
//
// --cpu-prof profiles the measured rounds only (not the fixture) and prints where the time went (bench/profile.ts).
//
//   npm run bench:miss -- [--pages 100000] [--calls 20000] [--rounds 5] [--postgres URL|none] [--cpu-prof]
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Runtime } from '../src/deps.js';
import { compiled } from './compiled.js';
import { buildFixture, postgresSchema } from './fixture.js';
import { formatProfile, summarizeProfile } from './profile.js';

// The service as users run it, compiled (compiled.ts); the fixture is built from the sources.
const { loadConfig } = await compiled<typeof import('../src/config.js')>('config');
const { createRuntime } = await compiled<typeof import('../src/deps.js')>('deps');
const { lookupByUrl } = await compiled<typeof import('../src/domain/pages/page.service.js')>('domain/pages/page.service');
const { loadRecordRows } = await compiled<typeof import('../src/domain/pages/page.store.js')>('domain/pages/page.store');
const { hasRecord } = await compiled<typeof import('../src/domain/pages/record.js')>('domain/pages/record');
const { parsePageUrl } = await compiled<typeof import('../src/domain/pages/url-keys.js')>('domain/pages/url-keys');
const { presentTrustRecord } = await compiled<typeof import('../src/surfaces/integration-v1/record.presenter.js')>('surfaces/integration-v1/record.presenter');
const { presentV1Record } = await compiled<typeof import('../src/surfaces/public-v1/record.presenter.js')>('surfaces/public-v1/record.presenter');

const AIM_US = 40;
const SITE = 'https://credence.example';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '100000' },
    calls: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    postgres: { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const pages = Number(values.pages);
const calls = Number(values.calls);
const rounds = Number(values.rounds);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU µs per call of `fn` over `calls` calls, letting the event loop turn (the follower's timer) every 200. */
async function cpuPerCall(fn: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    if (i % 200 === 0) await new Promise((r) => setImmediate(r));
    await fn(i);
  }
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / calls;
}

/** `fn` under V8's sampling profiler when --cpu-prof is given; prints the summary. */
async function profiled(label: string, fn: () => Promise<void>): Promise<void> {
  if (!values['cpu-prof']) return fn();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  try {
    await fn();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const file = path.join(os.tmpdir(), `credence-miss-${label}-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`\n${label}: profile of the measured rounds in ${file}\n${formatProfile(summarizeProfile(file, 30))}\n`);
  }
}

async function measure(label: string, rt: Runtime, urls: string[], recorded: string[]): Promise<void> {
  return profiled(label, () => measureRounds(label, rt, urls, recorded));
}

async function measureRounds(label: string, rt: Runtime, urls: string[], recorded: string[]): Promise<void> {
  const { deps } = rt;
  const pick = (list: string[], i: number, round: number) => list[(i * 7919 + round * 104_729) % list.length]!;
  const figures = { lookup: [] as number[], record: [] as number[], statement: [] as number[], hit: [] as number[] };
  // The lookup keys as the service computes them (SPEC §3), once.
  const keys = urls.map((u) => parsePageUrl(u)!.lookupKey);
  let misses = 0;
  for (let round = 0; round < rounds; round++) {
    figures.lookup.push(
      await cpuPerCall((i) =>
        deps.recordCache.getOrLoad(`lookup-json:${pick(urls, i, round)}`, async () => {
          misses++;
          const { url, record } = await lookupByUrl(deps, pick(urls, i, round));
          return JSON.stringify({ success: true, data: presentTrustRecord(SITE, url.url, record) });
        }),
      ),
    );
    figures.record.push(
      await cpuPerCall((i) =>
        deps.recordCache.getOrLoad(`record-json:${pick(recorded, i, round)}`, async () => {
          const { record } = await lookupByUrl(deps, pick(recorded, i, round));
          return hasRecord(record) ? JSON.stringify(presentV1Record(SITE, record)) : null;
        }),
      ),
    );
    figures.statement.push(await cpuPerCall((i) => loadRecordRows(deps.read, 'lookup', pick(keys, i, round))));
    // A hit, for comparison: the same key over and over.
    figures.hit.push(await cpuPerCall(() => deps.recordCache.getOrLoad(`lookup-json:${urls[0]}`, async () => 'x')));
  }
  const missRate = misses / (calls * rounds);
  const row = (name: string, us: number, note = '') => console.log(`${label.padEnd(10)} ${name.padEnd(26)} ${us.toFixed(1).padStart(7)} µs ${note}`);
  row('lookup, miss (whole load)', median(figures.lookup), `(${Math.round(missRate * 100)}% of calls missed)`);
  row('record, miss (whole load)', median(figures.record));
  row('the statement alone', median(figures.statement));
  row('a hit', median(figures.hit));
  const over = median(figures.lookup) - median(figures.hit);
  console.log(`${over <= AIM_US ? 'PASS' : 'FAIL'}  ${label}: a lookup miss costs ${over.toFixed(1)} µs of CPU more than a hit (aim ${AIM_US} µs)`);
}

async function main(): Promise<void> {
  console.log(`credence bench:miss ${new Date().toISOString().slice(0, 10)}: node ${process.version}, load ${os.loadavg()[0]!.toFixed(2)}, ${pages.toLocaleString('en')} pages`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-miss-'));
  const postgres = values.postgres === 'none' ? null : await postgresSchema(values.postgres!);
  try {
    const fixture = await buildFixture({ dataDir, pages, log: () => {} });
    const sqlite = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      await measure('sqlite', sqlite, fixture.urls, fixture.recorded);
    } finally {
      await sqlite.close();
    }
    if (postgres) {
      await buildFixture({ dataDir, pages, log: () => {}, databaseUrl: postgres.url });
      const rt = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: postgres.url }));
      try {
        await measure('postgres', rt, fixture.urls, fixture.recorded);
      } finally {
        await rt.close();
      }
    }
  } finally {
    await postgres?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
