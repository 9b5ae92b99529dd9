// The change log with real processes, on one SQLite file (or one PostgreSQL schema on the PostgreSQL run), without Redis:
// two `credence serve` and the CLI write, and each server's lookup, record and embed show the change within 1 s;
// a feed reader that stops and resumes from its cursor (list or stream) misses nothing and sees nothing twice,
// across a server restart.
import type { Database } from '../../src/db/client.js';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmIn, processEnv } from '../process-env.js';
import { readEvents } from './sse.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');
/** The promise under test: a request that starts this long after a write returned shows it (1 s, plus slack for the clocks of two processes). */
const WITHIN_MS = 1000;

let env: Record<string, string>;
let cleanup: () => Promise<void>;
const servers = new Map<string, { child: ChildProcess; port: number }>();

/**
 * Start `credence serve`; a start that fails is tried again (twice): on the shared PostgreSQL, the migrator's
 * catalogue read can trip over another test's schema being dropped at that moment.
 */
async function start(name: string, attempt = 1): Promise<void> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(TSX, [MAIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  servers.set(name, { child, port });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${out}`)), 60_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('serving')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
  } catch (err) {
    await stop(name);
    if (attempt >= 3) throw err;
    return start(name, attempt + 1);
  }
}

async function stop(name: string): Promise<void> {
  const s = servers.get(name);
  if (!s) return;
  servers.delete(name);
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  try {
    process.kill(-s.child.pid!, 'SIGTERM');
  } catch {
    return; // already gone
  }
  await exited;
}

const base = (name: string) => `http://127.0.0.1:${servers.get(name)!.port}`;
const client = (name: string, token: string | null = null) => new Client(base(name), '127.0.0.1', token);

/** Sign up on one server, then log in (sign-up starts no session). */
async function account(name: string, who: { email: string; name: string; username: string }): Promise<string> {
  const signup = await client(name).post('/api/v1/auth/signup', { ...who, password: 'a long password' });
  expect(signup.status, signup.text).toBe(202);
  await confirmIn(openDb!, who.email);
  const login = await client(name).post('/api/v1/auth/login', { email: who.email, password: 'a long password' });
  expect(login.status, login.text).toBe(200);
  return login.body.data.token as string;
}
let openDb: (() => Database) | undefined;
const credence = (...args: string[]) => run(TSX, [MAIN, ...args], { env, timeout: 60_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const p = await processEnv('changes', { SITE_URL: 'https://credence.test', RATE_LIMIT_ALLOWLIST: '127.0.0.1/32,::1/128', WEBHOOK_ALLOW_PRIVATE: 'true' });
  delete p.env.REDIS_URL;
  env = p.env;
  cleanup = p.cleanup;
  openDb = () => p.open();
  await credence('migrate');
  await Promise.all([start('a'), start('b')]);
}, 120_000);

afterAll(async () => {
  for (const name of [...servers.keys()]) await stop(name);
  await cleanup?.();
});

interface World {
  owner: { token: string };
  key: string;
  slug: string;
  domain: string;
  url: string;
  pageId: number;
}
let w: World;

/** What a reader of each server sees of the page: lookup, /v1 record and the embed by URL. */
async function seen(name: string) {
  const enc = encodeURIComponent(w.url);
  const c = client(name);
  const [lookup, record, embed] = await Promise.all([
    c.get(`/api/v1/pages/lookup?url=${enc}`),
    c.get(`/v1/pages/record?url=${enc}`),
    c.get(`/api/v1/embed/by-url?url=${enc}`),
  ]);
  return {
    title: lookup.body.data.title as string | null,
    publisher: lookup.body.data.publisher?.slug as string | undefined,
    verified: lookup.body.data.publisher?.verified as boolean | undefined,
    contributors: Object.values(lookup.body.data.contributors ?? {}).flat().map((c) => (c as { username: string }).username),
    recordStatus: record.body.status as string | undefined,
    recordNames: ((record.body.contributions ?? []) as { name: string }[]).map((c) => c.name),
    embedTitle: embed.body.title as string,
    embedHtml: embed.body.html as string,
  };
}

/** Warm both servers' caches (two reads each), write, wait the promised second, then both must show the write. */
async function writeThenSeeEverywhere(write: () => Promise<void>, check: (s: Awaited<ReturnType<typeof seen>>) => void) {
  for (const name of ['a', 'b']) {
    await seen(name);
    await seen(name);
  }
  await write();
  await sleep(WITHIN_MS + 100);
  for (const name of ['a', 'b']) check(await seen(name));
}

describe('two serve processes and the CLI on one database, without Redis', { timeout: 180_000 }, () => {
  it('is set up: a publisher verified by the CLI, a key and a page, registered through a', async () => {
    const token = await account('a', { email: 'owner@proc.test', name: 'Owner', username: 'owner' });
    const owner = client('a', token);
    expect((await owner.post('/api/v1/account/publishers', { name: 'The Ledger', slug: 'ledger' })).status).toBe(201);
    await credence('domains:verify', 'ledger.example', '--publisher', 'ledger');
    const key = await owner.post('/api/v1/account/api-keys', { name: 'cms', publisher: 'ledger' });
    expect(key.status, key.text).toBe(201);
    w = { owner: { token }, key: key.body.data.key, slug: 'ledger', domain: 'ledger.example', url: 'https://ledger.example/news/one', pageId: 0 };
    // b has answered "no record" for the URL before it exists, and cached that answer.
    expect(await seen('b')).toMatchObject({ title: null, embedTitle: '' });
    const created = await client('a', w.key).post('/api/v1/pages', { url: w.url, title: 'First title', topic: 'health' });
    expect(created.status, created.text).toBe(201);
    w.pageId = created.body.data.id;
    await sleep(WITHIN_MS + 100);
    // No accepted work yet: the lookup knows the page, the /v1 record does not exist (the one record rule).
    expect(await seen('b')).toMatchObject({ title: 'First title', publisher: 'ledger', verified: true, recordStatus: undefined });
  });

  it('shows a registration update made through a, on b', async () => {
    await writeThenSeeEverywhere(
      async () => {
        const res = await client('a', w.key).post('/api/v1/pages', { url: w.url, title: 'Second title' });
        expect(res.body.data.status).toBe('updated');
      },
      (s) => expect(s).toMatchObject({ title: 'Second title', embedTitle: 'Second title' }),
    );
  });

  it('shows work accepted through b, on a', async () => {
    const spec = client('b', await account('b', { email: 'spec@proc.test', name: 'Spec Ialist', username: 'spec' }));
    const submitted = await spec.post('/api/v1/submissions', {
      url: w.url,
      role: 'correction',
      summary: 'Fixed a figure',
      evidence: { before: '70%', after: '79%', reason: 'The table says 79%', sources: ['https://src.example/t'] },
    });
    expect(submitted.status, submitted.text).toBe(201);
    await writeThenSeeEverywhere(
      async () => {
        const res = await client('b', w.key).post('/api/v1/submissions/decide', { submission_id: submitted.body.data.id, decision: 'accept' });
        expect(res.status, res.text).toBe(200);
      },
      (s) => {
        expect(s.contributors).toContain('spec');
        expect(s.recordNames).toContain('Spec Ialist');
        expect(s.embedHtml).toContain('Spec Ialist');
      },
    );
  });

  it('an author named through a is shown nowhere until they confirm through b; withdrawn through a, gone from b', async () => {
    const writer = client('a', await account('a', { email: 'writer@proc.test', name: 'Wendy Writer', username: 'wendy' }));
    const profile = (name: string) => client(name).get('/api/v1/contributors/wendy');
    await writeThenSeeEverywhere(
      async () => {
        const res = await client('a', w.key).post('/api/v1/pages', { url: w.url, authors: ['wendy'] });
        expect(res.body.data.authors).toEqual([{ username: 'wendy', status: 'pending' }]);
      },
      (s) => {
        expect(s.contributors).not.toContain('wendy');
        expect(s.embedHtml).not.toContain('Wendy Writer');
      },
    );
    for (const name of ['a', 'b']) expect((await profile(name)).body.data.accepted_count).toBe(0);
    const [claim] = (await writer.get('/api/v1/account/claims')).body.data;
    const onB = client('b', writer.token);
    await writeThenSeeEverywhere(
      async () => expect((await onB.post(`/api/v1/account/claims/${claim.id}/confirm`)).status).toBe(200),
      (s) => {
        expect(s.contributors).toContain('wendy');
        expect(s.recordNames).toContain('Wendy Writer');
        expect(s.embedHtml).toContain('Wendy Writer');
      },
    );
    for (const name of ['a', 'b']) expect((await profile(name)).body.data.accepted_count).toBe(1);
    const record = await client('a').get(`/v1/pages/record?url=${encodeURIComponent(w.url)}`);
    const id = (record.body.contributions as { id: string; contributor: string }[]).find((c) => c.contributor === 'wendy')!.id.replace('ctb_', '');
    await writeThenSeeEverywhere(
      async () => expect((await writer.post(`/api/v1/account/contributions/${id}/withdraw`)).status).toBe(200),
      (s) => {
        expect(s.contributors).not.toContain('wendy');
        expect(s.embedHtml).not.toContain('Wendy Writer');
      },
    );
    for (const name of ['a', 'b']) expect((await profile(name)).body.data.accepted_count).toBe(0);
  });

  it('shows a profile change made through a, on b (the name in records and embeds)', async () => {
    const login = await client('a').post('/api/v1/auth/login', { email: 'spec@proc.test', password: 'a long password' });
    await writeThenSeeEverywhere(
      async () => {
        const res = await client('a', login.body.data.token).patch('/api/v1/account/profile', { name: 'Dr. Spec' });
        expect(res.status, res.text).toBe(200);
      },
      (s) => {
        expect(s.recordNames).toContain('Dr. Spec');
        expect(s.embedHtml).toContain('Dr. Spec');
      },
    );
  });

  it('shows a domain moved by the CLI to another publication, on both', async () => {
    const other = client('a', w.owner.token);
    expect((await other.post('/api/v1/account/publishers', { name: 'The Rival', slug: 'rival' })).status).toBe(201);
    await writeThenSeeEverywhere(
      async () => void (await credence('domains:verify', w.domain, '--publisher', 'rival')),
      (s) => expect(s).toMatchObject({ publisher: 'ledger', verified: false, recordStatus: 'unverified', embedHtml: '' }),
    );
  });
});

describe('a feed reader across a server restart', { timeout: 300_000 }, () => {
  it('resumes from its cursor (list and stream) and misses nothing, sees nothing twice', async () => {
    const seqs: number[] = [];
    let cursor = 0;
    // Read part of the feed from a, two entries at a time, then stop.
    for (let i = 0; i < 3; i++) {
      const res = await client('a').get(`/api/v1/changes?after=${cursor}&limit=2`);
      seqs.push(...res.body.data.map((e: { seq: number }) => e.seq));
      cursor = res.body.meta.next_cursor;
    }
    // A stream reader on b reads a few entries and stops too.
    const streamed = await readEvents(`${base('b')}/v1/changes?after=0`, {}, (ev) => ev.length >= 4);
    const lastStreamed = streamed.events.at(-1)!.id;

    await stop('a');
    await stop('b');
    // Writes while nothing serves: the CLI.
    await credence('domains:verify', w.domain, '--publisher', 'ledger');
    await Promise.all([start('a'), start('b')]);
    const more = await client('a', w.key).post('/api/v1/pages', [1, 2, 3].map((i) => ({ url: `https://ledger.example/after/${i}`, title: `After ${i}` })));
    expect(more.status, more.text).toBe(200);

    for (;;) {
      const res = await client('a').get(`/api/v1/changes?after=${cursor}&limit=2`);
      seqs.push(...res.body.data.map((e: { seq: number }) => e.seq));
      cursor = res.body.meta.next_cursor;
      if (!res.body.meta.has_more) break;
    }
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const kinds = (await client('b').get(`/api/v1/changes?after=${seqs.length - 4}`)).body.data.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['domain.moved', 'page.registered', 'page.registered', 'page.registered']);

    const resumed = await readEvents(`${base('b')}/v1/changes`, { 'last-event-id': lastStreamed }, (ev) => Number(ev.at(-1)?.id) === seqs.length);
    const ids = [...streamed.events, ...resumed.events].map((e) => Number(e.id));
    expect(ids).toEqual(seqs);
  });
});
