// `npm run bench:workers`: what `serve --workers 2` buys on this machine. The real command (`credence serve`, no
// harness) runs once with one process and once with two workers, on the same fixture database (SQLite, 100,000
// pages), with rate limits lifted for the loopback (RATE_LIMIT_ALLOWLIST). Each round loads warm and cold lookups
// on both, interleaved, with autocannon from this process, and reads the server's CPU time (every process of it:
// the primary and its workers) from /proc before and after.
//
//   npm run bench:workers -- [--pages 100000] [--duration 10] [--warmup 2] [--connections 50] [--rounds 3]
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from './client.js';
import { freePort } from '../scripts/cluster.js';
import { buildFixture } from './fixture.js';
import { SCENARIOS } from './scenarios.js';
import { median } from './stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'src/main.ts');
const TICK_US = 1_000_000 / 100; // /proc reports CPU time in clock ticks (USER_HZ = 100 on Linux)

/** CPU time (user + system, µs) of a process and all its descendants. */
function treeCpuMicros(pid: number): number {
  let ticks = 0;
  const visit = (p: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const c of children ? children.split(' ') : []) visit(Number(c));
      }
    } catch {
      // the process ended between the reads
    }
  };
  visit(pid);
  return ticks * TICK_US;
}

async function startServe(dataDir: string, workers: number): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--workers', String(workers)], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent', RATE_LIMIT_ALLOWLIST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: ROOT,
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('serving')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`serve --workers ${workers} exited (${code}): ${out}`)));
  });
  return { child, port };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      pages: { type: 'string', default: '100000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const duration = Number(values.duration);
  const warmup = Number(values.warmup);
  const connections = Number(values.connections);
  const date = new Date().toISOString();
  console.log(`credence bench:workers ${date.slice(0, 10)}: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim()}), node ${process.version}, load ${os.loadavg()[0]!.toFixed(2)}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-workers-'));
  const servers: { workers: number; child: ChildProcess; port: number }[] = [];
  try {
    const fixture = await buildFixture({ dataDir, pages: Number(values.pages), log: (l) => console.log(l) });
    for (const workers of [1, 2]) servers.push({ workers, ...(await startServe(dataDir, workers)) });
    const scenarios = SCENARIOS.filter((s) => s.name === 'lookup-warm' || s.name === 'lookup-cold');
    const figures = new Map<string, { rps: number[]; cpuUs: number[]; non2xx: number }>();
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const scenario of scenarios) {
        for (const s of servers) {
          const next = scenario.paths(fixture);
          const run = (seconds: number) =>
            autocannon({
              url: `http://127.0.0.1:${s.port}`,
              connections,
              duration: seconds,
              requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: next() }) }],
            });
          if (warmup > 0) await run(warmup);
          const before = treeCpuMicros(s.child.pid!);
          const r = await run(duration);
          const cpuUs = (treeCpuMicros(s.child.pid!) - before) / Math.max(1, r.requests.total);
          const key = `${scenario.name} | ${s.workers}`;
          const f = figures.get(key) ?? { rps: [], cpuUs: [], non2xx: 0 };
          f.rps.push(r.requests.average);
          f.cpuUs.push(cpuUs);
          f.non2xx += r.non2xx + r.errors;
          figures.set(key, f);
          console.log(`round ${round} ${scenario.name}, ${s.workers} process(es): ${Math.round(r.requests.average)} req/s, ${Math.round(cpuUs)} µs server CPU/request`);
        }
      }
    }
    const rows: string[] = [];
    for (const scenario of scenarios) {
      const one = figures.get(`${scenario.name} | 1`)!;
      const two = figures.get(`${scenario.name} | 2`)!;
      rows.push(
        `| ${scenario.name} | ${Math.round(median(one.rps))} | ${Math.round(median(two.rps))} | ${Math.round((median(two.rps) / median(one.rps)) * 100)}% | ` +
          `${Math.round(median(one.cpuUs))} | ${Math.round(median(two.cpuUs))} | ${one.non2xx + two.non2xx} |`,
      );
    }
    const table = [
      '| scenario | req/s, 1 process | req/s, 2 workers | 2 vs 1 | server µs CPU/req, 1 | server µs CPU/req, 2 | non-2xx + errors |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
    console.log(`\n${table}\n`);
    console.log(`load average after: ${os.loadavg()[0]!.toFixed(2)}`);
    fs.mkdirSync(path.join(ROOT, 'bench/reports'), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, 'bench/reports/workers.md'),
      `Run ${date} on ${os.availableParallelism()} CPUs, node ${process.version}; ${fixture.pages.toLocaleString('en')} pages (SQLite), ` +
        `${connections} connections, ${duration} s per figure after ${warmup} s of warm-up, median of ${values.rounds} interleaved rounds.\n\n${table}\n`,
    );
  } finally {
    for (const s of servers) {
      const exited = new Promise((resolve) => s.child.once('exit', resolve));
      s.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
