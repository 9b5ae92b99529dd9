// Panels that reopen themselves, across processes: a statement citing a page is flagged within a second
// of that page's correction being accepted in one `credence serve`, as read from another serving the same database.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from './client.js';
import { confirmIn, processEnv, type ProcessEnv } from './process-env.js';
import { killHard, MAIN, type ServeProcess, startServe, TSX } from './serve-process.js';
import { statementBody } from './api/panels.fixtures.js';

const run = promisify(execFile);
let p: ProcessEnv;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  p = await processEnv('panelflag', { LOG_LEVEL: 'warn', RATE_LIMIT_ALLOWLIST: '127.0.0.1', SITE_URL: 'https://credence.test' });
}, 60_000);
afterAll(async () => {
  for (const s of servers) await killHard(s);
  await p?.cleanup();
});

const client = (port: number, token: string | null = null) => new Client(`http://127.0.0.1:${port}`, '127.0.0.1', token);

async function signup(port: number, username: string): Promise<string> {
  const res = await client(port).post('/api/v1/auth/signup', { email: `${username}@flag.test`, password: 'correct horse battery', name: username, username });
  expect(res.status, res.text).toBe(202);
  // Addresses are confirmed before an account may make keys: by hand here, as an operator would.
  await confirmIn(() => p.open(), `${username}@flag.test`);
  const login = await client(port).post('/api/v1/auth/login', { email: `${username}@flag.test`, password: 'correct horse battery' });
  expect(login.status, login.text).toBe(200);
  return login.body.data.token as string;
}

describe('a review flag raised in one process', () => {
  it('is read from another within a second', async () => {
    const a = await startServe(p.env);
    servers.push(a);
    const b = await startServe(p.env);
    servers.push(b);
    const owner = await signup(a.port, 'flag-owner');
    expect((await client(a.port, owner).post('/api/v1/account/publishers', { name: 'Flag Daily', slug: 'flag-daily' })).status).toBe(201);
    await run(TSX, [MAIN, 'domains:verify', 'flag.example', '--publisher', 'flag-daily'], { env: p.env, timeout: 60_000 });
    const key = (await client(a.port, owner).post('/api/v1/account/api-keys', { name: 'cms', publisher: 'flag-daily' })).body.data.key as string;
    expect((await client(a.port, key).post('/api/v1/pages', { url: 'https://flag.example/study', title: 'Study', topic: 'health' })).status).toBe(201);
    const file = path.join(p.dataDir, 'statement.json');
    const statement = statementBody({ sources: ['https://flag.example/study'] });
    fs.writeFileSync(file, JSON.stringify(statement));
    await run(TSX, [MAIN, 'panels:issue', file], { env: p.env, timeout: 60_000 });
    expect((await client(b.port).get(`/v1/panels/${statement.id}`)).body.review.needed).toBe(false);

    const fixer = await signup(a.port, 'flag-fixer');
    const fixerKey = (await client(a.port, fixer).post('/api/v1/account/api-keys', { name: 'k', publisher: null })).body.data.key as string;
    const sub = await client(a.port, fixerKey).post('/api/v1/submissions', {
      url: 'https://flag.example/study',
      role: 'correction',
      summary: 'Fix it',
      evidence: { before: 'a', after: 'b', reason: 'Because', sources: [] },
    });
    expect(sub.status, sub.text).toBe(201);
    const decided = await client(a.port, key).post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(200);
    const acceptedAt = Date.now();
    let flags: { reason: string }[] = [];
    while (Date.now() - acceptedAt < 1000) {
      flags = (await client(b.port).get(`/v1/panels/${statement.id}`)).body.review.flags;
      if (flags.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(flags.map((f) => f.reason)).toEqual(['source_corrected']);
    expect(Date.now() - acceptedAt).toBeLessThan(1000);
    // The feed of the other process says so too.
    const feed = (await client(b.port).get('/v1/changes?limit=500')).body.data.filter((e: { kind: string }) => e.kind === 'panel.flagged');
    expect(feed).toHaveLength(1);
  }, 180_000);
});
