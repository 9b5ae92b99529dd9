// The transparency log with real `credence serve` processes: checkpoints stay consistent across a restart (the key
// made at first start in DATA_DIR, mode 0600) and across two instances sharing one database and one key by setting
// (LOG_SIGNING_KEY); `credence log:verify` checks the log from its HTTP API alone, and finds a changed or deleted
// entry. Every checkpoint is checked by the independent verifier in test/transparency/rfc9162.ts.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../scripts/cluster.js';
import type { Database } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { type ProcessEnv, processEnv } from './process-env.js';
import { addChanges } from './transparency/changes.js';
import * as rfc from './transparency/rfc9162.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');

let p: ProcessEnv;
let db: Database;
const servers = new Set<ChildProcess>();

beforeAll(async () => {
  // A fixed site: the log's origin (its name in every checkpoint) comes from it, not from the random port.
  p = await processEnv('tlog', { SITE_URL: 'https://tlog.test' });
  db = p.open(2);
  await migrate(db);
});
afterAll(async () => {
  await Promise.all([...servers].map((s) => stop(s)));
  await db?.close();
  await p?.cleanup();
});

async function serve(extra: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await serveOnce(extra);
    } catch (err) {
      if (attempt >= 2 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function serveOnce(extra: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(TSX, [MAIN, 'serve'], { env: { ...p.env, PORT: String(port), RATE_LIMIT_ALLOWLIST: '127.0.0.1', ...extra }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  servers.add(child);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      servers.delete(child);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function stop(child: ChildProcess): Promise<void> {
  if (!servers.delete(child) || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

async function text(base: string, p: string): Promise<string> {
  const res = await fetch(base + p);
  if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return res.text();
}

/** The checkpoint `base` serves once it covers `size` entries (the sequencer runs within a second or so). */
async function checkpointOf(base: string, size: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const key = (await text(base, '/v1/log/key')).trim();
    const res = await fetch(`${base}/v1/log/checkpoint`);
    if (res.ok) {
      const note = await res.text();
      // Right after a key change the newest checkpoint may still carry the old key's signature, for a moment.
      const c = (() => {
        try {
          return rfc.openCheckpoint(note, key);
        } catch {
          return null;
        }
      })();
      if (c && c.size >= size) return { note, key, ...c };
    }
    if (Date.now() > deadline) throw new Error(`no checkpoint of ${size} entries at ${base}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function consistent(base: string, a: { size: number; root: Buffer }, b: { size: number; root: Buffer }) {
  const proof = JSON.parse(await text(base, `/v1/log/proof/consistency?first=${a.size}&second=${b.size}`)) as { hashes: string[] };
  return rfc.checkConsistency(a.size, b.size, proof.hashes.map((h) => Buffer.from(h, 'base64')), a.root, b.root);
}

const verify = (...args: string[]) =>
  run(TSX, [MAIN, 'log:verify', ...args], { env: p.env, timeout: 60_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

describe('checkpoints across restarts and instances', () => {
  let saved: string;
  let first: Awaited<ReturnType<typeof checkpointOf>>;

  it('makes its key at first start (0600) and signs the log within seconds of a commit', async () => {
    await addChanges(db.db, 12);
    const s = await serve();
    first = await checkpointOf(s.base, 12);
    expect(first.size).toBe(12);
    const keyFile = path.join(p.dataDir, 'log-signing-key.pem');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    saved = path.join(p.dataDir, 'saved-checkpoint.txt');
    const whole = await verify('--url', s.base, '--save', saved);
    expect(whole.out).toContain('whole log: 12 entries rebuild the signed root');
    expect(whole.code).toBe(0);
    await stop(s.child);
  }, 120_000);

  it('keeps its key and its history across a restart', async () => {
    await addChanges(db.db, 9);
    const s = await serve();
    const after = await checkpointOf(s.base, 21);
    expect(after.key).toBe(first.key);
    expect(await consistent(s.base, first, after)).toBe(true);
    const fromSaved = await verify('--url', s.base, '--checkpoint', saved, '--key', first.key);
    expect(fromSaved.out).toContain('consistent: the saved checkpoint of 12 entries is a prefix of today\'s 21');
    expect(fromSaved.code).toBe(0);
    await stop(s.child);
  }, 120_000);

  it('two instances sharing one key by setting issue one consistent history', async () => {
    const seed = randomBytes(32).toString('base64');
    const a = await serve({ LOG_SIGNING_KEY: seed });
    const b = await serve({ LOG_SIGNING_KEY: seed });
    // The key changed (a rotation): both publish the new one and the log re-signs its current size with it.
    const seen: Awaited<ReturnType<typeof checkpointOf>>[] = [];
    for (let round = 0; round < 5; round++) {
      await addChanges(db.db, 7);
      const size = 21 + 7 * (round + 1);
      seen.push(await checkpointOf(a.base, size), await checkpointOf(b.base, size));
    }
    const key = seen[0]!.key;
    expect(seen.every((c) => c.key === key)).toBe(true);
    expect(key).not.toBe(first.key);
    for (let i = 1; i < seen.length; i++) {
      const [x, y] = [seen[i - 1]!, seen[i]!];
      if (x.size === y.size) expect(x.root.equals(y.root)).toBe(true);
      else expect(await consistent(i % 2 ? a.base : b.base, x, y)).toBe(true);
    }
    // The history of keys shows the rotation.
    const keys = JSON.parse(await (await fetch(`${a.base}/v1/log/key`, { headers: { accept: 'application/json' } })).text()) as { history: { verifier_key: string }[] };
    expect(keys.history.map((h) => h.verifier_key)).toEqual([first.key, key]);
    // A checkpoint saved under the old key still proves consistency with today's.
    expect((await verify('--url', b.base, '--checkpoint', saved)).code).toBe(0);
    await stop(a.child);
    await stop(b.child);
  }, 180_000);

  it('log:verify finds an entry changed or deleted in the database', async () => {
    const s = await serve();
    await checkpointOf(s.base, 56);
    expect((await verify('--url', s.base)).code).toBe(0);
    const row = (await sql<{ body: string }>`select body from changes where seq = 30`.execute(db.db)).rows[0]!;
    await sql`update changes set body = ${row.body.replace('entry 30', 'entry thirty')} where seq = 30`.execute(db.db);
    const changed = await verify('--url', s.base);
    expect(changed.code).toBe(1);
    expect(changed.out).toContain('do NOT match the signed root');
    await sql`delete from changes where seq = 30`.execute(db.db);
    const deleted = await verify('--url', s.base);
    expect(deleted.code).toBe(1);
    expect(deleted.out).toContain('entry 29 is missing');
    await stop(s.child);
  }, 120_000);
});
