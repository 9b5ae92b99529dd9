// `npm run bench:growth`: how the costs grow with the number of pages, on the embedded database. For each
// size: the fixture of `npm run bench` (bench/fixture.ts) at that many pages, built here, then, in a process of its
// own (so its memory is the service's alone) on the real runtime (record cache of 20,000 entries and its follower):
//
//   - cold lookups: `lookupByUrl` of pages drawn at random (nearly all misses), CPU µs a call, median of 3 rounds;
//   - a batch of 500 registrations, `POST /api/v1/pages` through the whole app (inject), wall and CPU ms, median of 5;
//   - resident memory after both, and the database's size on disk (the SQLite file and its WAL);
//   - then the change log at that size: one `page.registered` entry a page, appended through `appendChanges` and
//     integrated into the transparency log; an inclusion proof (CPU µs, median over 1,000 random entries), and a
//     feed reader catching up from the start (`GET /v1/changes`, 500 at a time, to the end: wall seconds, CPU µs an
//     entry).
//
// (and of it the process's own memory, apart from the database file the reader maps), and the 10,000,000-page projection from the growth between the two sizes (log-linear for per-call costs, linear
// for sizes). Writes bench/reports/growth-latest.json.
//
//   npm run bench:growth -- [--sizes 100000,1000000] [--calls 5000]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFixture } from './fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = path.join(ROOT, 'bench/reports/growth-latest.json');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface SizeFigures {
  pages: number;
  fixtureSeconds: number;
  coldLookupCpuUs: number;
  batch500WallMs: number;
  batch500CpuMs: number;
  rssMB: number;
  /** Of it, the process's own (anonymous) memory: the rest is the database file mapped by the reader (its pages
   * are the kernel's page cache, shared and reclaimable; db/client.ts READER_MMAP_BYTES, at most 1 GiB). */
  rssAnonMB: number;
  databaseMB: number;
  /** Appending one entry a page and integrating them into the tree, seconds (not projected: a one-off here). */
  logBuildSeconds: number;
  inclusionProofCpuUs: number;
  feedCatchUpSeconds: number;
  feedCatchUpCpuUsPerEntry: number;
}

/** What the measuring process needs of a fixture built by its parent (its memory is then the service's alone). */
interface Built {
  dataDir: string;
  pages: number;
  buildSeconds: number;
  cms: { key: string; host: string };
  /** Pages to look up: a sample spread over all of them. */
  urls: string[];
}

async function measureSize(fixture: Built, calls: number): Promise<SizeFigures> {
  const { loadConfig } = await import('../src/config.js');
  const { createRuntime } = await import('../src/deps.js');
  const { buildApp } = await import('../src/app.js');
  const { lookupByUrl } = await import('../src/domain/pages/page.service.js');
  const { dataDir, pages } = fixture;
  {
    const rt = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_ALLOWLIST: '127.0.0.1' }));
    const { app } = await buildApp(rt.deps);
    try {
      const rounds: number[] = [];
      for (let round = 0; round < 3; round++) {
        const t0 = process.cpuUsage();
        for (let i = 0; i < calls; i++) {
          if (i % 200 === 0) await new Promise((r) => setImmediate(r));
          await lookupByUrl(rt.deps, fixture.urls[(i * 7919 + round * 104_729 + 13) % fixture.urls.length]!);
        }
        const t = process.cpuUsage(t0);
        rounds.push((t.user + t.system) / calls);
      }
      const walls: number[] = [];
      const cpus: number[] = [];
      for (let b = 0; b < 5; b++) {
        const body = Array.from({ length: 500 }, (_, k) => ({ url: `https://${fixture.cms.host}/growth/${b}/${k}`, title: `Growth ${b} ${k}`, topic: 'health' }));
        const payload = JSON.stringify(body);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const res = await app.inject({ method: 'POST', url: '/api/v1/pages', payload, headers: { authorization: `Bearer ${fixture.cms.key}`, 'content-type': 'application/json' }, remoteAddress: '127.0.0.1' });
        walls.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpus.push((c.user + c.system) / 1000);
        if (res.statusCode !== 200) throw new Error(`batch: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      const databaseBytes = fs.readdirSync(dataDir).filter((f) => f.startsWith('credence.sqlite')).reduce((a, f) => a + fs.statSync(path.join(dataDir, f)).size, 0);
      const rssMB = Math.round(process.memoryUsage().rss / 1_048_576);
      const rssAnonMB = Math.round(Number(/RssAnon:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
      const log = await measureLog(rt.deps, app);
      return {
        pages,
        fixtureSeconds: Math.round(fixture.buildSeconds),
        coldLookupCpuUs: Math.round(median(rounds)),
        batch500WallMs: Math.round(median(walls)),
        batch500CpuMs: Math.round(median(cpus)),
        rssMB,
        rssAnonMB,
        databaseMB: Math.round(databaseBytes / 1_048_576),
        ...log,
      };
    } finally {
      await app.close();
      await rt.close();
    }
  }
}

type Runtime = Awaited<ReturnType<(typeof import('../src/deps.js'))['createRuntime']>>;
type App = Awaited<ReturnType<(typeof import('../src/app.js'))['buildApp']>>['app'];

/** The change log at this size: one entry a page, the tree over them, a proof, and a reader catching up. */
async function measureLog(deps: Runtime['deps'], app: App) {
  const { appendChanges } = await import('../src/domain/changes/change-log.js');
  const { integrate, inclusionProof } = await import('../src/domain/transparency/log.service.js');
  const t0 = performance.now();
  const now = new Date().toISOString();
  for (let after = 0; ; ) {
    const pages = await deps.db.selectFrom('pages').select(['id', 'url', 'title', 'topic', 'publisher_id']).where('id', '>', after).orderBy('id').limit(5000).execute();
    if (pages.length === 0) break;
    after = pages.at(-1)!.id;
    await deps.db.transaction().execute((trx) =>
      appendChanges(
        trx,
        pages.map((p) => ({
          kind: 'page.registered' as const,
          ids: { pageId: p.id, publisherId: p.publisher_id },
          data: { page: { id: p.id, url: p.url, title: p.title, topic: p.topic }, publisher: { slug: `p${p.publisher_id}`, name: `Publisher ${p.publisher_id}` } },
          now,
        })),
      ),
    );
  }
  const { size } = await integrate(deps, { batch: 10_000 });
  const logBuildSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const proofs: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const c0 = process.cpuUsage();
    await inclusionProof(deps, (i * 7919 + 13) % size, size);
    const c = process.cpuUsage(c0);
    proofs.push(c.user + c.system);
  }
  const w0 = performance.now();
  const c0 = process.cpuUsage();
  let read = 0;
  for (let after = 0; ; ) {
    const res = await app.inject({ method: 'GET', url: `/v1/changes?after=${after}&limit=500`, remoteAddress: '127.0.0.1' });
    if (res.statusCode !== 200) throw new Error(`feed: ${res.statusCode} ${res.body.slice(0, 200)}`);
    const page = JSON.parse(res.body) as { data: unknown[]; meta: { next_cursor: number; has_more: boolean } };
    read += page.data.length;
    after = page.meta.next_cursor;
    if (!page.meta.has_more) break;
  }
  const c = process.cpuUsage(c0);
  if (read !== size) throw new Error(`feed: read ${read} of ${size} entries`);
  return {
    logBuildSeconds,
    inclusionProofCpuUs: Math.round(median(proofs)),
    feedCatchUpSeconds: Math.round((performance.now() - w0) / 100) / 10,
    feedCatchUpCpuUsPerEntry: Math.round(((c.user + c.system) / read) * 10) / 10,
  };
}

/** The value at `target` pages from two measured sizes: log-linear (per-call costs) or linear (sizes). */
function project(a: SizeFigures, b: SizeFigures, key: keyof SizeFigures, target: number, linear: boolean): number {
  const ya = a[key];
  const yb = b[key];
  if (linear) return Math.round(ya + ((yb - ya) * (target - a.pages)) / (b.pages - a.pages));
  const slope = (yb - ya) / Math.log10(b.pages / a.pages);
  return Math.max(0, Math.round(yb + slope * Math.log10(target / b.pages)));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { sizes: { type: 'string', default: '100000,1000000' }, calls: { type: 'string', default: '5000' } } });
  const sizes = values.sizes.split(',').map(Number);
  const date = new Date().toISOString();
  const loadBefore = os.loadavg()[0]!;
  console.log(`credence bench:growth ${date.slice(0, 10)}: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${loadBefore.toFixed(2)}`);
  const figures: SizeFigures[] = [];
  for (const pages of sizes) {
    console.log(`${pages.toLocaleString('en')} pages:`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-growth-'));
    let f: SizeFigures;
    try {
      const fx = await buildFixture({ dataDir, pages, log: (l) => console.log(`  ${l}`) });
      const step = Math.max(1, Math.floor(fx.urls.length / 50_000));
      const built: Built = { dataDir, pages, buildSeconds: fx.buildSeconds, cms: fx.cms, urls: fx.urls.filter((_, i) => i % step === 0) };
      const job = path.join(dataDir, 'growth-job.json');
      fs.writeFileSync(job, JSON.stringify(built));
      const child = fork(fileURLToPath(import.meta.url), ['--size', job, values.calls], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      f = await new Promise<SizeFigures>((resolve, reject) => {
        child.once('message', (m) => resolve(m as SizeFigures));
        child.once('exit', (code) => reject(new Error(`size ${pages}: exited ${code}`)));
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    figures.push(f);
    console.log(`  ${JSON.stringify(f)}`);
  }
  const table = [
    `| measure | ${figures.map((f) => `${f.pages.toLocaleString('en')} pages`).join(' | ')} |${figures.length >= 2 ? ' ratio | 10,000,000 (projected) |' : ''}`,
    `|---|${figures.map(() => '---:').join('|')}|${figures.length >= 2 ? '---:|---:|' : ''}`,
  ];
  const rows: [string, keyof SizeFigures, boolean][] = [
    ['cold lookup, CPU µs', 'coldLookupCpuUs', false],
    ['batch of 500 registrations, wall ms', 'batch500WallMs', false],
    ['batch of 500 registrations, CPU ms', 'batch500CpuMs', false],
    ['resident memory, MB', 'rssMB', false],
    ['of it the process\'s own (anonymous), MB', 'rssAnonMB', false],
    ['database on disk, MB', 'databaseMB', true],
    ['one entry a page appended and integrated into the log, s', 'logBuildSeconds', true],
    ['inclusion proof, CPU µs', 'inclusionProofCpuUs', false],
    ['feed reader catching up from the start, s', 'feedCatchUpSeconds', true],
    ['feed reader catching up, CPU µs an entry', 'feedCatchUpCpuUsPerEntry', false],
  ];
  const projection: Record<string, number> = {};
  for (const [label, key, linear] of rows) {
    const a = figures[0]!;
    const b = figures[figures.length - 1]!;
    const extra = figures.length >= 2 ? ` ${(b[key] / a[key]).toFixed(2)}× | ${(projection[key] = project(a, b, key, 10_000_000, linear)).toLocaleString('en')} |` : '';
    table.push(`| ${label} | ${figures.map((f) => f[key].toLocaleString('en')).join(' | ')} |${extra}`);
  }
  const loadAfter = os.loadavg()[0]!;
  console.log(`\n${table.join('\n')}\n\nload average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`);
  fs.mkdirSync(path.dirname(REPORT), { recursive: true });
  fs.writeFileSync(REPORT, `${JSON.stringify({ date, machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model.trim(), node: process.version, loadBefore, loadAfter, shared: true }, figures, projection10M: projection }, null, 2)}\n`);
  console.log(`written: ${path.relative(ROOT, REPORT)}`);
}

if (process.argv[2] === '--size') {
  measureSize(JSON.parse(fs.readFileSync(process.argv[3]!, 'utf8')) as Built, Number(process.argv[4]))
    .then((f) => process.send!(f, () => process.exit(0)))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
