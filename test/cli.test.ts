// The `credence` command, run as a real process: migrate, admin:create, domains:verify, seed and serve.
import type { Database } from '../src/db/client.js';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/cluster.js';
import { usingPostgres } from './harness.js';
import { processEnv } from './process-env.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let open: () => Database;

beforeAll(async () => {
  const p = await processEnv('cli');
  env = p.env;
  cleanup = p.cleanup;
  open = () => p.open();
});
afterAll(async () => cleanup?.());

const credence = (...args: string[]) => run(TSX, [MAIN, ...args], { env, timeout: 60_000 });

describe('credence CLI', () => {
  it('prints help and exits 2 on an unknown verb', async () => {
    const err = await credence('frobnicate').catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toContain('unknown verb');
  });

  it('refuses bad settings with a message naming the variable', async () => {
    const err = await run(TSX, [MAIN, 'migrate'], { env: { ...env, PORT: 'eighty' } }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toContain('PORT');
  });

  it('migrates, twice without harm', async () => {
    expect((await credence('migrate')).stdout).toContain('migrations applied');
    expect((await credence('migrate')).stdout).toContain('migrations applied');
  });

  it('creates an admin, and promotes on a second call', async () => {
    const first = await credence('admin:create', '--email', 'ops@cli.test', '--password', 'a very long password', '--username', 'ops');
    expect(first.stdout).toContain('admin ops created');
    const second = await credence('admin:create', '--email', 'ops@cli.test', '--password', 'a very long password', '--username', 'ops');
    expect(second.stdout).toContain('is now an admin');
  });

  it('confirms an address by hand, and names an unknown one', async () => {
    const db = open();
    try {
      const now = new Date().toISOString();
      await db.db
        .insertInto('accounts')
        .values({ email: 'late@cli.test', username: 'late-cli', name: 'Late', password_hash: 'x', summary: '', topics: '[]', created_at: now, updated_at: now, email_confirmed_at: null })
        .execute();
      expect((await credence('account:confirm', 'Late@cli.test')).stdout).toContain('address confirmed');
      const row = await db.db.selectFrom('accounts').select('email_confirmed_at').where('email', '=', 'late@cli.test').executeTakeFirstOrThrow();
      expect(row.email_confirmed_at).not.toBeNull();
      const err = await credence('account:confirm', 'nobody@cli.test').catch((e: { code: number; stderr: string }) => e);
      expect((err as { code: number }).code).toBe(2);
      expect((err as { stderr: string }).stderr).toContain('no account has this address');
    } finally {
      await db.close();
    }
  });

  it('seeds the demo data idempotently and verifies a domain by hand', async () => {
    const first = await credence('seed', '--demo');
    // Loud, on stderr: the demo accounts' password is public.
    expect(first.stderr).toContain('DEMO DATA: every demo account shares the public password');
    const again = await credence('seed', '--demo');
    expect(again.stderr.split('\n').filter((l) => l && !l.startsWith('!'))).toEqual([]);
    const err = await credence('domains:verify', 'x.example', '--publisher', 'no-such-publisher').catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(1);
    expect((err as { stderr: string }).stderr).toContain('not found');
  }, 120_000);

  it('refuses --demo when NODE_ENV=production, for seed and serve, before touching the database', async () => {
    for (const args of [['seed', '--demo'], ['serve', '--demo']]) {
      const err = await run(TSX, [MAIN, ...args], { env: { ...env, NODE_ENV: 'production', REQUIRE_HTTPS: 'false' }, timeout: 60_000 }).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect((err as { code: number }).code, args.join(' ')).toBe(2);
      expect((err as { stderr: string }).stderr).toContain('--demo is refused when NODE_ENV=production');
    }
  });

  it.skipIf(usingPostgres())('creates the data folder 0700 and the database 0600', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'credence-perm-')), 'data');
    try {
      await run(TSX, [MAIN, 'migrate'], { env: { ...env, DATA_DIR: dir }, timeout: 60_000 });
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, 'credence.sqlite')).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  // An operator erases an account; a backup from before the erasure, restored, is erased again.
  it('erases an account by username, and again after a backup from before is restored', async () => {
    const backup = path.join(os.tmpdir(), `credence-erase-${process.pid}-${Date.now()}.sqlite`);
    if (!usingPostgres()) await credence('backup', backup);
    const erased = await credence('accounts:erase', 'daniel-reyes');
    expect(erased.stdout).toMatch(/^account \d+ erased at .*accepted works now name a former contributor/);
    const list = fs.readFileSync(path.join(env.DATA_DIR!, 'erasures.jsonl'), 'utf8').trim();
    expect(JSON.parse(list)).toEqual({ account_id: expect.any(Number), account_created_at: expect.any(String), erased_at: expect.any(String) });
    expect(list).not.toContain('daniel');
    expect((await credence('erasures:export')).stdout.trim()).toBe(list);
    const missing = await credence('accounts:erase', 'daniel-reyes').catch((e: { code: number; stderr: string }) => e);
    expect((missing as { code: number }).code).toBe(1);
    expect((await credence('erasures:apply')).stdout).toContain('0 applied again');
    if (usingPostgres()) return;
    // The restored file brings Daniel back; the erasure list takes him out again.
    const db = path.join(env.DATA_DIR!, 'credence.sqlite');
    for (const f of [`${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true });
    fs.copyFileSync(backup, db);
    fs.rmSync(backup, { force: true });
    expect(fs.readFileSync(db).includes(Buffer.from('Daniel Reyes'))).toBe(true);
    // Every command that opens the database re-applies the list first (serve included), so the verb finds it done.
    expect((await credence('erasures:apply')).stdout).toContain('1 erasures listed');
    expect(fs.readFileSync(db).includes(Buffer.from('Daniel Reyes'))).toBe(false);
    expect(fs.readFileSync(db).includes(Buffer.from('daniel-reyes'))).toBe(false);
  });

  it('serves HTTP until told to stop', async () => {
    const port = await freePort();
    const child = spawn(TSX, [MAIN, 'serve'], { env: { ...env, PORT: String(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('serving')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      // A quiet, clear first start: one address to open, prose for people (no JSON), a request written only when it
      // failed.
      expect((await fetch(`http://127.0.0.1:${port}/nowhere-at-all`)).status).toBe(404);
      await new Promise((r) => setTimeout(r, 300));
      const origins = new Set(out.match(/https?:\/\/[^\s/]+/g));
      expect([...origins], out).toHaveLength(1);
      expect(out).not.toContain('Server listening');
      expect(out).not.toMatch(/^\{/m);
      expect(out).not.toContain('/healthz');
      expect(out).toMatch(/INFO +GET \/nowhere-at-all 404 \(\d+ ms\)/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('starts a fresh demo with no take already run out', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-demo-'));
    const child = spawn(TSX, [MAIN, 'serve', '--demo'], { env: { ...env, DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('Credence is serving')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      await new Promise((r) => setTimeout(r, 500));
      // On PostgreSQL the file's earlier seeding test shares the database: the demo is then already there.
      expect(out).toMatch(/demo data (ready|already present)/);
      expect(out).not.toContain('request takes expired');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('writes JSON log lines, every request included, when LOG_FORMAT=json', async () => {
    const port = await freePort();
    const child = spawn(TSX, [MAIN, 'serve'], { env: { ...env, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('serving')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      const lines = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; path?: string });
      expect(lines.some((l) => l.msg === 'request' && l.path === '/healthz')).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
