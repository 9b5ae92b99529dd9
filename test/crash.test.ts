// At least once across a crash (SPEC §10): a real `credence serve` is killed with SIGKILL while it delivers events,
// and again while decisions commit; after each restart every committed event reaches the receiver, and no event
// exists for a change that did not commit.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/cluster.js';
import type { Database } from '../src/db/client.js';
import { Client } from './client.js';
import { processEnv } from './process-env.js';
import { confirmByOperator } from '../src/domain/accounts/account.service.js';
import { WebhookReceiver } from './webhook-receiver.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');

let env: Record<string, string>;
let cleanup: () => Promise<void> = async () => {};
let db: Database;
let rx: WebhookReceiver;
let server: ChildProcess | null = null;
let port = 0;
let log = '';

beforeAll(async () => {
  const p = await processEnv('crash', {
    LOG_LEVEL: 'error',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // This test is one caller making many calls from the loopback.
    RATE_LIMIT_ALLOWLIST: '127.0.0.1',
    SITE_URL: 'https://credence.test',
  });
  env = p.env;
  cleanup = p.cleanup;
  rx = await WebhookReceiver.start();
  await start();
  // The test reads what the service committed straight from its database.
  db = p.open(2);
}, 60_000);

afterAll(async () => {
  if (server) await killHard();
  await db?.close();
  await rx?.close();
  await cleanup();
});

/** Start `credence serve` in its own process group, so SIGKILL reaches the server itself and not only tsx. */
async function start(): Promise<void> {
  // A port the OS just had free: a random one could be an ephemeral port another test's connection holds.
  port = await freePort();
  const child = spawn(TSX, [MAIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server = child;
  let out = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out} ${log}`)), 45_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out} ${log}`)));
  });
}

/** kill -9 the server's process group: no shutdown hook runs, whatever was in flight is cut. */
async function killHard(): Promise<void> {
  const child = server!;
  server = null;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

const client = (token: string | null = null) => new Client(`http://127.0.0.1:${port}`, '127.0.0.1', token);

interface World {
  owner: string;
  key: string;
  contributor: string;
  domain: string;
}
let w: World;

/** Delivered event ids per path, as the receiver saw them (retries collapse). */
function delivered(pathName: string): Set<number> {
  return new Set(rx.at(pathName).map((r) => Number(String(r.delivery).replace(/^evt_/, ''))));
}

async function committedEvents(types: string[]): Promise<{ id: number; type: string; payload: any }[]> {
  const rows = await db.db.selectFrom('events').select(['id', 'type', 'payload']).where('type', 'in', types).orderBy('id').execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) }));
}

async function waitUntilAllDelivered(pathName: string, types: string[]): Promise<number[]> {
  let ids: number[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    ids = (await committedEvents(types)).map((e) => e.id);
    const got = delivered(pathName);
    if (ids.every((id) => got.has(id))) return ids;
    if (Date.now() > deadline) throw new Error(`${ids.filter((id) => !got.has(id)).length} committed events never reached ${pathName}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a serve process killed with SIGKILL', () => {
  it('is set up over HTTP: a publisher with a verified domain, a key, both kinds of webhook, a contributor', async () => {
    const signup = async (username: string) => {
      const res = await client().post('/api/v1/auth/signup', { email: `${username}@crash.test`, password: 'correct horse battery', name: username, username });
      expect(res.status, res.text).toBe(202);
      await confirmByOperator(db.db, `${username}@crash.test`, new Date().toISOString());
      const login = await client().post('/api/v1/auth/login', { email: `${username}@crash.test`, password: 'correct horse battery' });
      expect(login.status, login.text).toBe(200);
      return login.body.data.token as string;
    };
    const owner = await signup('crash-owner');
    const slug = 'crash-daily';
    const domain = 'crash.example';
    expect((await client(owner).post('/api/v1/account/publishers', { name: 'Crash Daily', slug })).status).toBe(201);
    await run(TSX, [MAIN, 'domains:verify', domain, '--publisher', slug], { env, timeout: 60_000 });
    const key = await client(owner).post('/api/v1/account/api-keys', { name: 'cms', publisher: slug });
    expect(key.status, key.text).toBe(201);
    const api = await client(owner).post('/api/v1/account/webhooks', { url: rx.url('/api'), publisher: slug });
    expect(api.status, api.text).toBe(201);
    const v1 = await client(owner).post('/api/v1/account/webhooks', { url: rx.url('/v1'), format: 'v1', publisher: slug });
    expect(v1.status, v1.text).toBe(201);
    rx.trust('/api', api.body.data.secret);
    rx.trust('/v1', v1.body.data.secret);
    // Slow enough that deliveries are under way when the process dies.
    rx.answer('/api', { status: 200, delayMs: 3 });
    w = { owner, key: key.body.data.key, contributor: await signup('crash-contributor'), domain };
  });

  it('while delivering: after a restart every committed event arrives, and nothing that did not commit', async () => {
    let stop = false;
    let batch = 0;
    const writer = (async () => {
      while (!stop) {
        const items = Array.from({ length: 10 }, (_, i) => ({ url: `https://${w.domain}/b${batch}/p${i}`, title: `B${batch} P${i}`, topic: 'health' }));
        batch++;
        await client(w.key)
          .post('/api/v1/pages', items)
          .catch(() => undefined);
      }
    })();
    await rx.waitFor(() => rx.at('/api').length >= 40, 30_000, '40 deliveries before the crash');
    await killHard();
    stop = true;
    await writer;
    const before = rx.at('/api').length;

    await start();
    const ids = await waitUntilAllDelivered('/api', ['page.registered']);
    expect(ids.length).toBeGreaterThan(40);
    const received = delivered('/api');
    // Every delivery is of an event that committed: nothing was sent for a page that does not exist.
    const pages = new Set((await db.db.selectFrom('pages').select('url').execute()).map((p) => p.url));
    for (const r of rx.at('/api')) {
      expect(ids).toContain(r.json.id);
      expect(pages.has(r.json.data.page.url)).toBe(true);
    }
    expect([...received].sort((a, b) => a - b)).toEqual(ids);
    expect(rx.at('/api').every((r) => r.verified)).toBe(true);
    expect(rx.at('/api').length).toBeGreaterThan(before);
  }, 120_000);

  it('while decisions commit: every accepted submission has exactly one event, delivered; nothing else does', async () => {
    const page = await client(w.key).post('/api/v1/pages', { url: `https://${w.domain}/decisions`, title: 'Decisions', topic: 'health' });
    expect(page.status, page.text).toBe(201);
    const work = Array.from({ length: 40 }, (_, i) => ({
      url: `https://${w.domain}/decisions`,
      role: 'review',
      summary: `Review ${i}`,
      evidence: { reason: 'Read it', sources: [] },
    }));
    const submitted = await client(w.contributor).post('/api/v1/submissions', work);
    expect(submitted.status, submitted.text).toBe(200);
    const submissionIds = (submitted.body.data.results as { id: number }[]).map((r) => r.id);
    await waitUntilAllDelivered('/v1', ['contribution.submitted']);

    // Decide one by one, as fast as the service answers; kill the process after the tenth answer, with the
    // next decision in flight.
    let answered = 0;
    let killed = false;
    const decisions = (async () => {
      for (const id of submissionIds) {
        if (killed) break;
        const res = await client(w.key)
          .post('/api/v1/submissions/decide', { submission_id: id, decision: 'accept' })
          .catch(() => null);
        if (res?.status === 200) answered++;
      }
    })();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (answered >= 10) {
          clearInterval(check);
          resolve();
        }
      }, 1);
    });
    await killHard();
    killed = true;
    await decisions;

    await start();
    await waitUntilAllDelivered('/api', ['contribution.accepted']);
    await waitUntilAllDelivered('/v1', ['contribution.accepted']);

    const accepted = (await db.db.selectFrom('submissions').select('id').where('status', '=', 'accepted').execute()).map((s) => s.id).sort((a, b) => a - b);
    expect(accepted.length).toBeGreaterThanOrEqual(10);
    expect(accepted.length).toBeLessThan(40);
    const events = await committedEvents(['contribution.accepted']);
    // One event per committed acceptance, and none for a decision that did not commit.
    expect(events.map((e) => e.payload.submission.id as number).sort((a, b) => a - b)).toEqual(accepted);
    const contributions = await db.db.selectFrom('contributions').select('submission_id').where('submission_id', 'is not', null).execute();
    expect(contributions.map((c) => c.submission_id).sort((a, b) => a! - b!)).toEqual(accepted);
    // The receivers saw exactly those (each at least once).
    const apiSeen = new Set(rx.at('/api').filter((r) => r.event === 'contribution.accepted').map((r) => r.json.data.contribution.submission_id as number));
    expect([...apiSeen].sort((a, b) => a - b)).toEqual(accepted);
    const v1Seen = new Set(rx.at('/v1').filter((r) => r.event === 'contribution.accepted').map((r) => Number(String(r.json.contribution.id).slice(4))));
    expect([...v1Seen].sort((a, b) => a - b)).toEqual(accepted);
    expect(rx.requests.every((r) => r.verified)).toBe(true);
  }, 120_000);
});
