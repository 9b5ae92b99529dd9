// What only a real process shows: SIGTERM drains (requests in flight finish, the webhook attempt under way is
// recorded and its endpoint lease given up, new connections are refused), and `credence backup` copies the
// embedded database while `serve` writes to it, and the copy restores into a working service.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './client.js';
import { usingPostgres } from './harness.js';
import { confirmIn, processEnv, type ProcessEnv } from './process-env.js';
import { halfSentRequest, killHard, MAIN, type ServeProcess, signal, startServe, TSX } from './serve-process.js';
import { WebhookReceiver } from './webhook-receiver.js';

const run = promisify(execFile);
let p: ProcessEnv;
let rx: WebhookReceiver;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  p = await processEnv('ops', { LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_ALLOWLIST: '127.0.0.1', SITE_URL: 'https://credence.test' });
  rx = await WebhookReceiver.start();
}, 60_000);
afterAll(async () => {
  for (const s of servers) await killHard(s);
  await rx?.close();
  await p?.cleanup();
});

const client = (port: number, token: string | null = null) => new Client(`http://127.0.0.1:${port}`, '127.0.0.1', token);

async function signup(port: number, username: string): Promise<string> {
  const res = await client(port).post('/api/v1/auth/signup', { email: `${username}@ops.test`, password: 'correct horse battery', name: username, username });
  expect(res.status, res.text).toBe(202);
  await confirmIn(() => p.open(), `${username}@ops.test`);
  const login = await client(port).post('/api/v1/auth/login', { email: `${username}@ops.test`, password: 'correct horse battery' });
  expect(login.status, login.text).toBe(200);
  return login.body.data.token as string;
}

describe('graceful shutdown on SIGTERM', () => {
  it('finishes the request in flight and the delivery under way, releases the lease, refuses new connections, exits 0', async () => {
    const s = await startServe(p.env);
    servers.push(s);
    const owner = await signup(s.port, 'ops-owner');
    expect((await client(s.port, owner).post('/api/v1/account/publishers', { name: 'Ops Daily', slug: 'ops-daily' })).status).toBe(201);
    await run(TSX, [MAIN, 'domains:verify', 'ops.example', '--publisher', 'ops-daily'], { env: p.env, timeout: 60_000 });
    const hook = await client(s.port, owner).post('/api/v1/account/webhooks', { url: rx.url('/slow'), publisher: 'ops-daily' });
    expect(hook.status, hook.text).toBe(201);
    const key = await client(s.port, owner).post('/api/v1/account/api-keys', { name: 'cms', publisher: 'ops-daily' });
    // The receiver takes 1.5 s to answer: the attempt is under way when the signal comes.
    rx.answer('/slow', { status: 200, delayMs: 1500 });
    expect((await client(s.port, key.body.data.key).post('/api/v1/pages', { url: 'https://ops.example/a', title: 'A' })).status).toBe(201);
    await rx.waitFor(() => rx.at('/slow').length === 1, 20_000, 'the delivery to start');

    const inFlight = await halfSentRequest(s.port, JSON.stringify({ email: 'late@ops.test', password: 'correct horse battery', name: 'Late', username: 'late-one' }));
    // The server routes a request when its headers arrive; give a busy machine a moment to get there before the
    // signal, or the request would rightly be refused as arriving after it.
    await new Promise((r) => setTimeout(r, 1000));
    signal(s, 'SIGTERM');
    // New connections are refused once the listener is closed (poll: the signal takes a moment to arrive).
    const deadline = Date.now() + 10_000;
    let refused = false;
    while (!refused && Date.now() < deadline) {
      refused = await fetch(`http://127.0.0.1:${s.port}/livez`).then(
        (r) => r.status === 503,
        () => true,
      );
      if (!refused) await new Promise((r) => setTimeout(r, 50));
    }
    expect(refused).toBe(true);
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 202/);
    expect(await s.exited).toBe(0);

    const db = p.open();
    try {
      const hookRow = await db.db.selectFrom('webhooks').select(['lease_owner', 'lease_until', 'last_status_code']).executeTakeFirstOrThrow();
      expect(hookRow.lease_owner).toBeNull();
      expect(hookRow.lease_until).toBeNull();
      expect(hookRow.last_status_code).toBe(200);
      const delivery = await db.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow();
      expect(delivery.status).toBe('succeeded');
      expect(await db.db.selectFrom('accounts').select('username').where('username', '=', 'late-one').executeTakeFirst()).toBeDefined();
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe('credence backup FILE', () => {
  it('copies the embedded database while serve writes; the copy restores into a working service', async (ctx) => {
    if (usingPostgres()) return ctx.skip();
    const s = await startServe(p.env);
    servers.push(s);
    const key = (await client(s.port, await signup(s.port, 'ops-backup')).post('/api/v1/account/api-keys', { name: 'k' })).status;
    expect(key).toBe(201);
    // Writes go on during the backup: the copy is a consistent snapshot of some moment.
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) {
        const r = await client(s.port).post('/api/v1/auth/signup', { email: `writer-${n}@ops.test`, password: 'correct horse battery', name: `W${n}`, username: `writer-${n}` });
        expect(r.status).toBe(202);
        n++;
      }
    })();
    const file = path.join(p.dataDir, 'backup', 'copy.sqlite');
    fs.mkdirSync(path.dirname(file));
    const out = await run(TSX, [MAIN, 'backup', file], { env: p.env, timeout: 60_000 });
    expect(out.stdout).toContain(`database copied to ${file}`);
    writing = false;
    await writer;
    // A second backup to the same name is refused rather than overwriting.
    await expect(run(TSX, [MAIN, 'backup', file], { env: p.env, timeout: 60_000 })).rejects.toMatchObject({ stderr: expect.stringContaining('exists') });
    signal(s, 'SIGTERM');
    expect(await s.exited).toBe(0);

    // Restore as the README says: the copy becomes DATA_DIR/credence.sqlite of a service that is not running.
    const restoredDir = path.join(p.dataDir, 'restored');
    fs.mkdirSync(restoredDir);
    fs.copyFileSync(file, path.join(restoredDir, 'credence.sqlite'));
    const r = await startServe({ ...p.env, DATA_DIR: restoredDir });
    servers.push(r);
    const login = await client(r.port).post('/api/v1/auth/login', { email: 'ops-backup@ops.test', password: 'correct horse battery' });
    expect(login.status, login.text).toBe(200);
    // Every account the copy holds was whole when copied; at least the ones made before the backup began.
    // (The writers never confirmed their addresses, so they have no public profile.)
    expect((await client(r.port).post('/api/v1/auth/login', { email: 'writer-0@ops.test', password: 'correct horse battery' })).status).toBe(200);
    const profile = await client(r.port).get('/api/v1/contributors/ops-backup');
    expect(profile.status).toBe(200);
    signal(r, 'SIGTERM');
    expect(await r.exited).toBe(0);
  }, 120_000);

  it('refuses on PostgreSQL and names pg_dump', async (ctx) => {
    if (!usingPostgres()) return ctx.skip();
    await expect(run(TSX, [MAIN, 'backup', path.join(p.dataDir, 'x.sqlite')], { env: p.env, timeout: 60_000 })).rejects.toMatchObject({
      stderr: expect.stringContaining('pg_dump'),
    });
  });
});
