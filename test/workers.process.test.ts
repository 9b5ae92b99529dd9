// `credence serve --workers 2` as an operator runs it, as a real process: both workers answer on one port (told
// apart by X-Credence-Worker), a write through one worker is seen through the other within 1 s although both had
// the answer cached, a worker killed with SIGKILL is replaced while the port goes on answering, and SIGTERM to the
// primary lets the request in flight finish. What is shared between workers here is the process model, not the
// database: the file runs once, on the SQLite run of `npm test`, and skips on the PostgreSQL run (test/cluster.test.ts
// covers PostgreSQL, Redis and a load balancer).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './client.js';
import { usingPostgres } from './harness.js';
import { confirmIn, processEnv, type ProcessEnv } from './process-env.js';
import { halfSentRequest, killHard, MAIN, type ServeProcess, signal, startServe, TSX } from './serve-process.js';

const run = promisify(execFile);
const enabled = !usingPostgres();
/** The promise under test: a request that starts this long after a write was answered shows it. */
const WITHIN_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let p: ProcessEnv;
let s: ServeProcess;
const w = { key: '', contributor: '', url: 'https://workers.example/news/one' };

interface Answer {
  status: number;
  /** X-Credence-Worker: which worker answered. */
  worker: string;
  body: any;
  /** When the request was sent (performance.now()). */
  sentAt: number;
}

/** One request on a connection of its own (no keep-alive), so the primary hands each to the next worker. */
function fresh(method: string, path: string, opts: { token?: string; body?: unknown; timeoutMs?: number } = {}): Promise<Answer> {
  const sentAt = performance.now();
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method,
        path,
        agent: false,
        headers: {
          connection: 'close',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode!, worker: String(res.headers['x-credence-worker'] ?? ''), body, sentAt });
        });
      },
    );
    req.once('error', reject);
    req.setTimeout(opts.timeoutMs ?? 10_000, () => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 10_000} ms`)));
    req.end(payload);
  });
}

const lookup = () => fresh('GET', `/api/v1/pages/lookup?url=${encodeURIComponent(w.url)}`);
const contributorsOf = (a: Answer) => Object.values((a.body.data?.contributors ?? {}) as Record<string, { username: string }[]>).flat().map((c) => c.username);

/** The pids of the primary's workers, from /proc: its children running main.ts (tsx's esbuild is a child too). */
function workerPids(): number[] {
  const pid = s.child.pid!;
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(' '))
    .filter(Boolean)
    .map(Number)
    .filter((child) => {
      try {
        return fs.readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(MAIN);
      } catch {
        return false; // gone meanwhile
      }
    });
}

async function account(username: string): Promise<string> {
  const c = new Client(`http://127.0.0.1:${s.port}`, '127.0.0.1');
  const signup = await c.post('/api/v1/auth/signup', { email: `${username}@workers.test`, password: 'correct horse battery', name: username, username });
  expect(signup.status, signup.text).toBe(202);
  await confirmIn(() => p.open(), `${username}@workers.test`);
  const login = await c.post('/api/v1/auth/login', { email: `${username}@workers.test`, password: 'correct horse battery' });
  expect(login.status, login.text).toBe(200);
  return login.body.data.token as string;
}

/**
 * Warm both workers (each answers the lookup at least twice, the second from its cache and matching `before`), make
 * the write, then ask again and again on fresh connections: the other worker must show the write in an answer sent
 * within 1 s of the write's answer, and every answer sent after that second, from either worker, must show it.
 */
async function writeSeenByTheOther(before: (a: Answer) => boolean, write: () => Promise<Answer>, after: (a: Answer) => boolean): Promise<number> {
  const warm = new Map<string, number>();
  for (let i = 0; i < 40 && (warm.size < 2 || [...warm.values()].some((n) => n < 2)); i++) {
    const a = await lookup();
    expect(a.status).toBe(200);
    expect(before(a), JSON.stringify(a.body)).toBe(true);
    warm.set(a.worker, (warm.get(a.worker) ?? 0) + 1);
  }
  expect([...warm.values()].filter((n) => n >= 2).length, 'both workers answered the lookup twice before the write').toBe(2);

  const written = await write();
  const acknowledged = performance.now();
  const answers: Answer[] = [];
  while (performance.now() - acknowledged < WITHIN_MS + 300) answers.push(await lookup());
  const fromOther = answers.filter((a) => a.worker !== written.worker);
  expect(fromOther.length, 'the other worker answered after the write').toBeGreaterThan(0);
  const firstSeen = fromOther.find(after);
  expect(firstSeen, 'the other worker showed the write').toBeDefined();
  const ms = firstSeen!.sentAt - acknowledged;
  expect(ms).toBeLessThan(WITHIN_MS);
  const late = answers.filter((a) => a.sentAt - acknowledged >= WITHIN_MS);
  expect(late.length).toBeGreaterThan(0);
  for (const a of late) expect(after(a), `worker ${a.worker}, ${Math.round(a.sentAt - acknowledged)} ms after the write: ${JSON.stringify(a.body)}`).toBe(true);
  return ms;
}

beforeAll(async () => {
  if (!enabled) return;
  p = await processEnv('workers', { LOG_LEVEL: 'warn', RATE_LIMIT_ALLOWLIST: '127.0.0.1', SITE_URL: 'https://credence.test' });
  delete p.env.REDIS_URL;
  s = await startServe(p.env, ['--workers', '2']);
}, 120_000);

afterAll(async () => {
  if (s) await killHard(s);
  await p?.cleanup();
});

// About 20 s in all on a quiet machine; the limits leave room for a busy one running the whole suite.
describe.skipIf(!enabled)('serve --workers 2', { timeout: 120_000 }, () => {
  it('answers on one port from both workers, each naming itself in X-Credence-Worker', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const a = await fresh('GET', '/livez');
      expect(a.status).toBe(200);
      expect(a.worker).toMatch(/^[0-9]+$/);
      seen.add(a.worker);
    }
    expect(seen.size).toBe(2);
    expect(workerPids()).toHaveLength(2);
  });

  it('keeps caches right across workers: a registration update and a decision through one are seen through the other within 1 s', async () => {
    const owner = new Client(`http://127.0.0.1:${s.port}`, '127.0.0.1', await account('workers-owner'));
    expect((await owner.post('/api/v1/account/publishers', { name: 'Workers Daily', slug: 'workers-daily' })).status).toBe(201);
    // The operator verifies the domain (the CLI) while the contributor signs up.
    const [, contributor] = await Promise.all([
      run(TSX, [MAIN, 'domains:verify', 'workers.example', '--publisher', 'workers-daily'], { env: p.env, timeout: 60_000 }),
      account('workers-spec'),
    ]);
    w.contributor = contributor;
    const key = await owner.post('/api/v1/account/api-keys', { name: 'cms', publisher: 'workers-daily' });
    expect(key.status, key.text).toBe(201);
    w.key = key.body.data.key;
    expect((await fresh('POST', '/api/v1/pages', { token: w.key, body: { url: w.url, title: 'First title' } })).status).toBe(201);

    const registration = await writeSeenByTheOther(
      (a) => a.body.data.title === 'First title',
      async () => {
        const res = await fresh('POST', '/api/v1/pages', { token: w.key, body: { url: w.url, title: 'Second title' } });
        // On a wrong answer, the servers' own account of it (the error logged with the request id).
        expect(res.body.data?.status, `${JSON.stringify(res.body)}\n${res.body.data ? '' : s.output().slice(-4000)}`).toBe('updated');
        return res;
      },
      (a) => a.body.data.title === 'Second title',
    );

    const submitted = await fresh('POST', '/api/v1/submissions', {
      token: w.contributor,
      body: { url: w.url, role: 'review', summary: 'Checked the figures', evidence: { reason: 'Read the sources', sources: [] } },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const decision = await writeSeenByTheOther(
      (a) => !contributorsOf(a).includes('workers-spec'),
      async () => {
        const res = await fresh('POST', '/api/v1/submissions/decide', { token: w.key, body: { submission_id: submitted.body.data.id, decision: 'accept' } });
        expect(res.status, `${JSON.stringify(res.body)}\n${res.status === 200 ? '' : s.output().slice(-4000)}`).toBe(200);
        return res;
      },
      (a) => contributorsOf(a).includes('workers-spec'),
    );
    console.log(`workers: a registration seen by the other worker after ${Math.round(registration)} ms, a decision after ${Math.round(decision)} ms`);
  });

  it('replaces a worker killed with SIGKILL, and the port answers throughout', async () => {
    const before = new Set<string>();
    for (let i = 0; i < 10; i++) before.add((await fresh('GET', '/livez')).worker);
    const [victim] = workerPids();
    const t0 = performance.now();
    process.kill(victim!, 'SIGKILL');
    // Ask every 20 ms on fresh connections until a worker the port had not shown before answers, and at least 11
    // times in all: the one request that may fail (handed to the dying worker) waits out its 2 s timeout, about as
    // long as the replacement takes to start, so stopping at the replacement could leave only a couple of answers.
    let ok = 0;
    const failures: string[] = [];
    let replacedAfter = 0;
    while (performance.now() - t0 < 30_000 && (!replacedAfter || ok <= 10)) {
      try {
        const a = await fresh('GET', '/livez', { timeoutMs: 2000 });
        if (a.status === 200) ok++;
        else failures.push(`status ${a.status}`);
        if (!replacedAfter && a.status === 200 && !before.has(a.worker)) replacedAfter = performance.now() - t0;
      } catch (err) {
        failures.push((err as Error).message);
      }
      await sleep(20);
    }
    console.log(`workers: SIGKILL of one worker; replaced after ${Math.round(replacedAfter)} ms; ${ok} answered, ${failures.length} failed (${failures.join(', ')})`);
    expect(replacedAfter, 'a new worker answers').toBeGreaterThan(0);
    // The surviving worker takes every connection meanwhile: at most the one handed to the dying worker fails.
    expect(failures.length).toBeLessThanOrEqual(1);
    expect(ok).toBeGreaterThan(10);
    expect(workerPids()).toHaveLength(2);
    expect(workerPids()).not.toContain(victim);
    expect(s.output()).toMatch(new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting another`));
  });

  it('stops gracefully on SIGTERM to the primary: the request in flight finishes, then every process exits 0', async () => {
    const inFlight = await halfSentRequest(s.port, JSON.stringify({ email: 'late@workers.test', password: 'correct horse battery', name: 'Late', username: 'late-one' }));
    // The worker routes the request when its headers arrive; give a busy machine a moment to get there.
    await sleep(1000);
    const pids = workerPids();
    signal(s, 'SIGTERM');
    // The port stops taking requests (refused, or 503 on a connection a worker still holds).
    const deadline = Date.now() + 10_000;
    let refused = false;
    while (!refused && Date.now() < deadline) {
      refused = await fresh('GET', '/livez').then(
        (a) => a.status === 503,
        () => true,
      );
      if (!refused) await sleep(50);
    }
    expect(refused).toBe(true);
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 202/);
    expect(answer).toMatch(/\r\nx-credence-worker: [0-9]+\r\n/i);
    expect(await s.exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0), `worker ${pid} is gone`).toThrow();
    // The account the request in flight made is in the database.
    const db = p.open();
    try {
      expect(await db.db.selectFrom('accounts').select('username').where('username', '=', 'late-one').executeTakeFirst()).toBeDefined();
    } finally {
      await db.close();
    }
  });
});
