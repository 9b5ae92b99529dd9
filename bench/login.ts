// `npx tsx bench/login.ts`: how long a correct log-in takes while forty addresses flood wrong passwords, at the
// production cost of a password hash (scrypt N = 2^17).
//
//   npx tsx bench/login.ts [--seconds 20] [--addresses 40]
//
// The service runs in a child process on SQLite (its own event loop, as `serve` runs it, X-Forwarded-For trusted as
// behind a proxy; the throttle's rows are the same few on PostgreSQL, and the queue is in the process), with five accounts sharing one password, as the public demo accounts do. From here, over HTTP:
//   alone     ten correct log-ins one after another, each from a fresh address;
//   known     for `--seconds`, every address keeps four wrong passwords in flight (more are refused at once), rotating
//             four of the accounts so that no pair passes its free failures; meanwhile a correct log-in started
//             every second (from 0.2 s in) from a fresh address, by turns into an account the flood guesses at and into the fifth, which
//             it leaves alone; then the flood hangs up, and one more correct log-in is timed at once;
//   unknown   the same flood for addresses no account has.
// Prints each log-in's p50, p95 (also as a multiple of the p50 alone, the figure a busy machine moves least) and
// worst time, and how many hashes the server started after the flood hung up.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { createRuntime } from '../src/deps.js';
import { createAccount } from '../src/domain/accounts/account.service.js';
import { hashPassword, SCRYPT_LOG_N } from '../src/domain/accounts/password.js';

const HERE = fileURLToPath(import.meta.url);
const PASSWORD = 'the demo password, public';
const ACCOUNTS = 5;
const email = (i: number) => `demo-${i}@bench.example`;

type Stats = { hashesStarted: number; waiting: number };

async function serve(dataDir: string): Promise<void> {
  const runtime = await createRuntime(testConfig({ dataDir, scryptLogN: SCRYPT_LOG_N, trustProxy: true, logLevel: 'silent' }));
  // One hash for all of them, as the demo seed does.
  const passwordHash = await hashPassword(PASSWORD, SCRYPT_LOG_N);
  for (let i = 0; i < ACCOUNTS; i++) await createAccount(runtime.deps, { email: email(i), password: PASSWORD, name: `Demo ${i}`, username: `demo-${i}` }, { passwordHash });
  const { app } = await buildApp(runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  process.on('message', (m: string) => {
    const p = runtime.deps.passwords;
    if (m === 'stats') process.send!({ hashesStarted: p.hashesStarted, waiting: p.waiting } satisfies Stats);
    else void app.close().then(() => runtime.close()).then(() => process.exit(0));
  });
}

let port = 0;
let child: ChildProcess;
let network = 0;
const freshIp = () => `10.${100 + Math.floor(++network / 62500)}.${Math.floor(network / 250) % 250}.${(network % 250) + 1}`;

/** One log-in on a connection of its own: its status (0 when hung up) and how long it took. */
function login(ip: string, address: string, password: string, signal?: AbortSignal): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number) => resolve({ status, ms: performance.now() - started });
    const body = JSON.stringify({ email: address, password });
    const req = http.request(
      { host: '127.0.0.1', port, path: '/api/v1/auth/login', method: 'POST', agent: false, signal, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-forwarded-for': ip } },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    req.on('error', () => done(0));
    req.end(body);
  });
}

function stats(): Promise<Stats> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Stats));
    child.send('stats');
  });
}

async function correct(account: number): Promise<number> {
  const r = await login(freshIp(), email(account), PASSWORD);
  if (r.status !== 200) throw new Error(`a correct log-in answered ${r.status}`);
  return r.ms;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
let unit = 0;
const line = (label: string, xs: number[]) => {
  const p95 = percentile(xs, 95);
  console.log(`  ${label.padEnd(34)} n=${String(xs.length).padStart(2)}  p50 ${seconds(percentile(xs, 50))}  p95 ${seconds(p95)} (${(p95 / unit).toFixed(1)}× alone p50)  worst ${seconds(Math.max(...xs))}`);
};

/** The flood for `ms`, with a correct log-in each second beside it; then the hang-up and one log-in after. */
async function flood(addresses: number, ms: number, guess: (address: number, i: number) => string) {
  const hangUp = new AbortController();
  const statuses = new Map<number, number>();
  const until = performance.now() + ms;
  const attacker = async (a: number) => {
    const ip = freshIp();
    let i = 0;
    const lane = async () => {
      while (performance.now() < until && !hangUp.signal.aborted) {
        const r = await login(ip, guess(a, i++), `wrong password ${a}-${i}`, hangUp.signal);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        // A refusal says when to come back; an attacker comes back then.
        if (r.status === 429) await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
  };
  const attackers = Array.from({ length: addresses }, (_, a) => attacker(a));
  const targeted: number[] = [];
  const untouched: number[] = [];
  const measured: Promise<unknown>[] = [];
  /** Each correct log-in's time by the second it started in. */
  const timeline: string[] = [];
  await new Promise((resolve) => setTimeout(resolve, 200));
  // One a second, each on its own (a slow one does not delay the next), the first 0.2 s into the flood.
  for (let k = 0; performance.now() < until - 2000; k++) {
    const into = k % 2 === 0 ? targeted : untouched;
    const at = k;
    measured.push(
      correct(k % 2 === 0 ? k % (ACCOUNTS - 1) : ACCOUNTS - 1).then((ms) => {
        into.push(ms);
        timeline[at] = (ms / 1000).toFixed(2);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await Promise.all(measured);
  const before = await stats();
  hangUp.abort();
  await Promise.all(attackers);
  const after = await correct(0);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const settled = await stats();
  return { targeted, untouched, timeline, after, statuses, queuedAtHangUp: before.waiting, hashedAfterHangUp: settled.hashesStarted - before.hashesStarted - 1 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, addresses: { type: 'string', default: '40' } } });
  const ms = Number(values.seconds) * 1000;
  const addresses = Number(values.addresses);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-bench-login-'));
  child = fork(HERE, ['--serve', dataDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  port = await new Promise<number>((resolve) => child.once('message', (m) => resolve((m as { port: number }).port)));
  try {
    console.log(`log-ins at scrypt N = 2^${SCRYPT_LOG_N}, ${addresses} flooding addresses, ${os.cpus().length} cores, Node ${process.version}`);
    await correct(0);
    const alone: number[] = [];
    for (let i = 0; i < 10; i++) alone.push(await correct(i % ACCOUNTS));
    unit = percentile(alone, 50);
    line('alone', alone);
    for (const [name, guess] of [
      ['wrong passwords for known accounts', (a: number, i: number) => email((a + i) % (ACCOUNTS - 1))],
      ['log-ins for unknown addresses', (a: number, i: number) => `nobody-${a}-${i}@bench.example`],
    ] as const) {
      const run = await flood(addresses, ms, guess);
      console.log(`${name}, ${ms / 1000} s (answers: ${[...run.statuses].map(([s, n]) => `${n}× ${s || 'hung up'}`).join(', ')}):`);
      line('into an account the flood is at', run.targeted);
      line('into an account it leaves alone', run.untouched);
      line('all', [...run.targeted, ...run.untouched]);
      console.log(`  by the second each started in (s): ${run.timeline.join(' ')}`);
      console.log(`  the first log-in after the hang-up: ${seconds(run.after)}; ${run.queuedAtHangUp} waiting at the hang-up, ${run.hashedAfterHangUp} hashes started after it`);
    }
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--serve') void serve(process.argv[3]!);
else if (process.argv[1] === HERE) void main();
