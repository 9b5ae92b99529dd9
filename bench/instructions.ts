// `npm run bench:instructions`: the instructions one warm request costs the server, counted by valgrind's callgrind,
// for the bare route and each warm scenario of `npm run bench`. Unlike req/s and CPU time, which move 2× between
// runs on these shared 2-core machines (docs/performance.md), a count moves by a percent or two: the figure to
// compare a small change with, before and after. User-space instructions only: the kernel's part of
// sending an answer (a quarter of the server's CPU, more with more bytes) is not in it.
//
// The service (compiled, as users run it) listens under `valgrind --tool=callgrind` with instrumentation off; the
// load generator (autocannon, in this process, not counted) warms it, then callgrind counts `--segments` runs of
// `--requests` requests each, after five more it does not keep. Each kept segment's count over its requests is
// printed; their median is the figure. The cache is vouched for throughout (instructions-server.mjs), and a count
// that met a cache miss says so. The five are the code being instrumented anew, and the time it takes the process,
// slowed five times by then, to settle: its collector runs more often against the clock, and the first four
// segments after the switch counted 10-45% above the six after them, whatever the warm-up before it (8,000 or 20,000
// requests; 2026-11-24, docs/performance.md). Before, one was discarded, and the median of four fell in that
// settling: it moved by 10% from run to run on the same code.
//
//   npm run bench:instructions -- [--only bare,lookup-warm,…] [--pages 3000] [--requests 3000] [--segments 5]
//
// Needs valgrind (Debian: `apt-get install valgrind`). Slow: a scenario takes two or three minutes.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from './client.js';
import { ensureBuilt } from './compiled.js';
import { buildFixture } from './fixture.js';
import { freePort } from '../scripts/cluster.js';
import { SCENARIOS } from './scenarios.js';
import { median } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WARM = ['bare', 'bare-embed', 'app-healthz', 'lookup-warm', 'record-warm', 'embed-warm'];

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: WARM.join(',') },
    pages: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '3000' },
    segments: { type: 'string', default: '5' },
  },
});
const names = values.only.split(',').map((s) => s.trim());
const scenarios = names.map((n) => {
  const s = SCENARIOS.find((x) => x.name === n);
  if (!s || (s.target !== 'bare' && s.target !== 'app') || s.writesPerSecond) throw new Error(`not a warm read scenario: ${n}; known: ${WARM.join(', ')}`);
  return s;
});
const requests = Number(values.requests);
const segments = Math.max(1, Number(values.segments));
/** Segments counted and not kept, after instrumentation is switched on (above). */
const SETTLING = 5;

const callgrind = (args: string[]) => execFileSync('callgrind_control', args, { stdio: 'ignore' });

async function load(port: number, paths: () => string, headers: Record<string, string> | undefined, amount: number): Promise<void> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 10,
    amount,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths() }) }],
  });
  if (r.non2xx || r.errors) throw new Error(`${r.non2xx} answers were not 2xx and ${r.errors} failed`);
}

async function count(scenario: (typeof scenarios)[number], fixtureDir: string, fixture: Awaited<ReturnType<typeof buildFixture>>): Promise<number[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-instr-'));
  fs.copyFileSync(path.join(fixtureDir, 'credence.sqlite'), path.join(dataDir, 'credence.sqlite'));
  const out = path.join(dataDir, 'callgrind.out');
  const port = await freePort();
  const child: ChildProcess = spawn(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, '--single-threaded',
      path.join(HERE, 'instructions-server.mjs'), scenario.target, dataDir, String(port)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    let text = '';
    child.stdout!.on('data', (b: Buffer) => (text += b.toString()));
    const pid = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', () => {
        const m = /listening (\d+)/.exec(text);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the server under valgrind exited (${code}) before listening`)));
    });
    /** The app's record-cache misses so far (the bare route has no cache: 0). */
    const misses = async (): Promise<number> => {
      if (scenario.target === 'bare') return 0;
      const before = text.length;
      process.kill(Number(pid), 'SIGUSR2');
      for (let i = 0; i < 600; i++) {
        const m = /stats \d+ (\d+)/.exec(text.slice(before));
        if (m) return Number(m[1]);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the server did not report its cache counts');
    };
    const paths = scenario.paths(fixture);
    await load(port, paths, scenario.headers, 8_000); // the JIT's tiers, the cache filled
    callgrind(['-i', 'on', pid]);
    const perRequest: number[] = [];
    const missedBefore = await misses();
    for (let s = 0; s < SETTLING + segments; s++) {
      callgrind(['-z', pid]);
      await load(port, paths, scenario.headers, requests);
      callgrind(['-d', pid]);
      const dump = fs.readdirSync(dataDir).filter((f) => f.startsWith('callgrind.out.')).map((f) => path.join(dataDir, f))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
      const totals = /^totals:\s+(\d+)/m.exec(fs.readFileSync(dump, 'utf8'));
      if (!totals) throw new Error(`callgrind's dump ${dump} has no totals line`);
      if (s >= SETTLING) perRequest.push(Math.round(Number(totals[1]) / requests));
      fs.rmSync(dump);
    }
    const missed = (await misses()) - missedBefore;
    if (missed > 0) console.log(`  ${scenario.name}: ${missed} cache misses while counting: not all warm`);
    return perRequest;
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
  ensureBuilt();
  const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-instr-fixture-'));
  try {
    const fixture = await buildFixture({ dataDir: fixtureDir, pages: Number(values.pages), log: () => {} });
    console.log(`credence bench:instructions ${new Date().toISOString().slice(0, 10)}: node ${process.version}, ${fixture.pages.toLocaleString('en')} pages, ${requests.toLocaleString('en')} requests a segment`);
    const rows: { name: string; median: number; segments: number[] }[] = [];
    for (const s of scenarios) {
      const segs = await count(s, fixtureDir, fixture);
      rows.push({ name: s.name, median: median(segs), segments: segs });
      console.log(`${s.name}: ${median(segs).toLocaleString('en')} instructions a request (segments: ${segs.map((x) => x.toLocaleString('en')).join(', ')})`);
    }
    const bare = rows.find((r) => r.name === 'bare');
    console.log('\n| scenario | instructions a request | bare over this |\n|---|---:|---:|');
    for (const r of rows) console.log(`| ${r.name} | ${r.median.toLocaleString('en')} | ${bare ? `${Math.round((100 * bare.median) / r.median)}%` : '—'} |`);
  } finally {
    fs.rmSync(fixtureDir, { recursive: true, force: true });
  }
}

await main();
