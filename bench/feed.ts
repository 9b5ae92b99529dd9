// `npm run bench:feed`: the live change feed at scale. One `credence serve` process (SQLite, a fixture of
// pages) holds `--readers` Server-Sent Events streams (`GET /v1/changes`, Accept: text/event-stream), opened by
// `--procs` reader processes; a writer registers pages at `--rate` a second for `--seconds`. It measures:
//
//   - the server's resident memory before and with every stream open: memory per connection, and so how many one
//     process holds in a given memory;
//   - from a registration's answer (its commit) to every reader having its entry: p50, p99, max over the changes;
//     and how many readers missed any entry.
//
// The readers run on the same machine as the server, so on a small machine their CPU is the server's: the latency
// is an upper bound. It prints a table and writes bench/reports/feed-latest.json.
//
//   npm run bench:feed -- [--readers 10000] [--procs 4] [--rate 50] [--seconds 10] [--pages 2000]
import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../scripts/cluster.js';
import { buildFixture } from './fixture.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = path.join(ROOT, 'bench/reports/feed-latest.json');
const MAIN = path.join(ROOT, 'src/main.ts');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** A reader process: `count` streams from `after`; reports when open, then each seq's last arrival over its streams. */
function readerProcess(): void {
  const [port, count, after] = process.argv.slice(3).map(Number) as [number, number, number];
  const last = new Map<number, number>();
  const got = new Map<number, number>();
  let open = 0;
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const connect = (i: number) =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: `/v1/changes?after=${after}`, agent, headers: { accept: 'text/event-stream', 'x-forwarded-for': `10.9.${i >> 8}.${i & 255}` } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve();
          return;
        }
        open++;
        resolve();
        let tail = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => {
          const t = now();
          const text = tail + chunk;
          const re = /(?:^|\n)id: (\d+)\n/g;
          let lastEnd = 0;
          for (let m = re.exec(text); m; m = re.exec(text)) {
            const seq = Number(m[1]);
            if ((last.get(seq) ?? 0) < t) last.set(seq, t);
            got.set(seq, (got.get(seq) ?? 0) + 1);
            lastEnd = re.lastIndex;
          }
          tail = text.slice(Math.max(lastEnd, text.length - 32));
        });
      });
      req.on('error', () => resolve());
    });
  void (async () => {
    for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, k) => connect(i + k)));
    process.send!({ open });
  })();
  process.on('message', (m: { report?: boolean }) => {
    if (m.report) process.send!({ last: [...last.entries()], got: [...got.entries()] }, () => process.exit(0));
  });
}

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      readers: { type: 'string', default: '10000' },
      procs: { type: 'string', default: '4' },
      rate: { type: 'string', default: '50' },
      seconds: { type: 'string', default: '10' },
      pages: { type: 'string', default: '2000' },
    },
  });
  const readers = Number(values.readers);
  const procs = Number(values.procs);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const date = new Date().toISOString();
  const log = (line: string) => console.log(line);
  const loadBefore = os.loadavg()[0]!;
  log(`credence bench:feed ${date.slice(0, 10)}: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${loadBefore.toFixed(2)}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-feed-'));
  const fixture = await buildFixture({ dataDir, pages: Number(values.pages), log });
  const port = await freePort();
  const env = {
    ...(process.env as Record<string, string>),
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    SITE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '127.0.0.1',
    RATE_LIMIT_ALLOWLIST: '127.0.0.1,10.0.0.0/8',
    FEED_STREAMS_MAX: String(readers + 100),
    FEED_STREAMS_PER_CLIENT: '100',
  };
  const server = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; !out.includes('serving'); i++) {
      if (i > 600 || server.exitCode !== null) throw new Error(`server did not start: ${out}`);
      await sleep(100);
    }
    const base = `http://127.0.0.1:${port}`;
    const head = (await (await fetch(`${base}/v1/changes?after=0&limit=1`)).json()) as { meta: { next_cursor: number } };
    // The end of the log: read it page by page (a fixture writes no change entries, but be sure).
    let after = head.meta.next_cursor;
    for (;;) {
      const page = (await (await fetch(`${base}/v1/changes?after=${after}&limit=1000`)).json()) as { meta: { next_cursor: number; has_more: boolean } };
      after = page.meta.next_cursor;
      if (!page.meta.has_more) break;
    }
    await sleep(2000);
    const rssBefore = rssOf(server.pid!);

    // The readers.
    const opened = await Promise.all(
      Array.from({ length: procs }, (_, k) => {
        const n = Math.floor(readers / procs) + (k < readers % procs ? 1 : 0);
        const child = fork(fileURLToPath(import.meta.url), ['--reader', String(port), String(n), String(after)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        children.push(child);
        return new Promise<number>((resolve) => child.once('message', (m: { open: number }) => resolve(m.open)));
      }),
    );
    const open = opened.reduce((a, b) => a + b, 0);
    await sleep(3000);
    const rssOpen = rssOf(server.pid!);
    const perConnection = (rssOpen - rssBefore) / Math.max(1, open);
    log(`streams open: ${open} of ${readers}; server RSS ${(rssBefore / 1_048_576).toFixed(0)} MB before, ${(rssOpen / 1_048_576).toFixed(0)} MB with them: ${(perConnection / 1024).toFixed(1)} KB a connection`);

    // The writer: `rate` registrations a second, each answered (committed) at a known time; the probe reads which
    // seq each became from the feed's list.
    const answered = new Map<string, number>();
    const pending: Promise<void>[] = [];
    const start = performance.now();
    const total = rate * seconds;
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const url = `https://${fixture.cms.host}/bench-feed/${date}/${i}`;
      pending.push(
        fetch(`${base}/api/v1/pages`, { method: 'POST', headers: { authorization: `Bearer ${fixture.cms.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ url, title: `Feed ${i}` }) }).then(async (r) => {
          await r.text();
          if (r.status === 201) answered.set(url, now());
        }),
      );
    }
    await Promise.all(pending);
    await sleep(3000);
    const bySeq = new Map<number, number>();
    let cursor = after;
    for (;;) {
      const page = (await (await fetch(`${base}/v1/changes?after=${cursor}&limit=1000`)).json()) as { data: { seq: number; page?: { url?: string } }[]; meta: { next_cursor: number; has_more: boolean } };
      for (const e of page.data) {
        const t = e.page?.url ? answered.get(e.page.url) : undefined;
        if (t !== undefined) bySeq.set(e.seq, t);
      }
      cursor = page.meta.next_cursor;
      if (!page.meta.has_more) break;
    }
    // Each reader process's last arrival per seq, and how many of its streams had it.
    const last = new Map<number, number>();
    const got = new Map<number, number>();
    for (const child of children) {
      const report = await new Promise<{ last: [number, number][]; got: [number, number][] }>((resolve) => {
        child.once('message', resolve);
        child.send({ report: true });
      });
      for (const [seq, t] of report.last) last.set(seq, Math.max(last.get(seq) ?? 0, t));
      for (const [seq, n] of report.got) got.set(seq, (got.get(seq) ?? 0) + n);
    }
    const delays: number[] = [];
    let incomplete = 0;
    for (const [seq, committed] of bySeq) {
      if ((got.get(seq) ?? 0) < open) incomplete++;
      const t = last.get(seq);
      if (t !== undefined) delays.push(t - committed);
    }
    delays.sort((a, b) => a - b);
    const feed = {
      readers,
      open,
      rssBeforeMB: Math.round(rssBefore / 1_048_576),
      rssOpenMB: Math.round(rssOpen / 1_048_576),
      perConnectionKB: Math.round((perConnection / 1024) * 10) / 10,
      changes: bySeq.size,
      ratePerSecond: rate,
      commitToAllP50Ms: Math.round(pct(delays, 50)),
      commitToAllP99Ms: Math.round(pct(delays, 99)),
      commitToAllMaxMs: Math.round(delays[delays.length - 1] ?? 0),
      changesNotAtEveryReader: incomplete,
    };
    log(
      `${feed.changes} changes at ${rate}/s to ${open} readers: commit → every reader p50 ${feed.commitToAllP50Ms} ms, p99 ${feed.commitToAllP99Ms} ms, max ${feed.commitToAllMaxMs} ms; ${incomplete} changes missed by some reader`,
    );
    const loadAfter = os.loadavg()[0]!;
    log(`load average: ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`);
    fs.mkdirSync(path.dirname(REPORT), { recursive: true });
    fs.writeFileSync(REPORT, `${JSON.stringify({ date, machine: { cpus: os.availableParallelism(), model: os.cpus()[0]?.model.trim(), node: process.version, loadBefore, loadAfter, shared: true }, settings: { readers, procs, rate, seconds, pages: fixture.pages, database: 'sqlite' }, feed }, null, 2)}\n`);
    log(`written: ${path.relative(ROOT, REPORT)}`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGKILL');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--reader') readerProcess();
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
