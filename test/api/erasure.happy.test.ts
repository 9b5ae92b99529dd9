// Leaving for good: a contributor with accepted work, a confirmed authorship, a pending submission and a
// taken request deletes their account. Every proof the log gave before still verifies (checked by the independent
// RFC 9162 verifier of test/transparency/rfc9162.ts), a checkpoint saved before is consistent with the one after,
// and neither any public answer, the feed, the log's entries nor the database's bytes hold their e-mail, name,
// username or summary. Runs on both databases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/log-verify.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmClaims, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { openBody } from '../transparency/commitments.js';
import * as rfc from '../transparency/rfc9162.js';

let t: TestApp;
let pub: TestPublisher;
let zelda: TestUser;
let bystander: TestUser;
let listDir: string;
const anon = { get: (p: string, opts?: Parameters<Client['get']>[1]) => new Client(t.baseUrl).get(p, opts) };
const SUMMARY = 'Zelda writes about tidal energy from Saint-Malo';
const NAME = 'Zelda Quenneville';
const b64 = (s: string) => Buffer.from(s, 'base64');

beforeAll(async () => {
  listDir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-erasures-'));
  t = await startTestApp({ erasureList: path.join(listDir, 'erasures.jsonl'), requestsHeldPerAccount: 10 });
  pub = await publisher(t);
  zelda = await signup(t, { name: NAME, username: 'zelda-q', email: 'zelda.quenneville@mail.test' });
  bystander = await signup(t, { name: 'Bea Stander' });
  expect((await zelda.client.patch('/api/v1/account/profile', { summary: SUMMARY, topics: ['energy'] })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(listDir, { recursive: true, force: true });
});

async function published() {
  const key = (await anon.get('/v1/log/key')).text.trim();
  const note = (await anon.get('/v1/log/checkpoint')).text;
  return { key, note, ...rfc.openCheckpoint(note, key) };
}

async function entries(size: number) {
  const out: { index: number; body: string; openings: Record<string, { opening: string; value: Record<string, unknown> }> }[] = [];
  while (out.length < size) {
    const res = await anon.get(`/v1/log/entries?start=${out.length}&limit=1000`);
    expect(res.status, res.text).toBe(200);
    if (res.body.data.length === 0) break;
    out.push(...res.body.data);
  }
  return out;
}

async function work(url: string, role: 'correction' | 'review', accept: boolean) {
  const key = await contributorKey(zelda);
  const evidence =
    role === 'correction'
      ? { before: '1999', after: '2001', reason: 'the archive says so', sources: ['https://archive.example/a'] }
      : { reason: 'read it twice', sources: ['https://archive.example/b'] };
  const res = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role, summary: `${role} by hand`, evidence });
  expect(res.status, res.text).toBe(201);
  if (accept) {
    const d = await pub.api.post('/api/v1/submissions/decide', { submission_id: res.body.data.id, decision: 'accept', note: 'thanks' });
    expect(d.status, d.text).toBe(200);
  }
  return res.body.data.id as number;
}

describe('erasing an account', () => {
  let before: Awaited<ReturnType<typeof published>>;
  let beforeLeaves: Buffer[];
  const pages: number[] = [];

  it('is set up: accepted work, a confirmed authorship, a pending submission, a taken request, all in the log', async () => {
    for (const p of ['tides', 'authored', 'pending', 'asked']) {
      const r = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/${p}`, title: `Page ${p}`, topic: 'energy', ...(p === 'authored' ? { authors: [zelda.username] } : {}) });
      expect(r.status, r.text).toBeLessThan(300);
      pages.push(r.body.data.id);
    }
    await work(`https://${pub.domain}/tides`, 'correction', true);
    await confirmClaims(zelda);
    await work(`https://${pub.domain}/pending`, 'review', false);
    const req = await pub.api.post('/api/v1/requests', { url: `https://${pub.domain}/asked`, request_type: 'reviewer', title: 'Asked', topic: 'energy' });
    expect(req.status, req.text).toBe(201);
    expect((await zelda.client.post(`/api/v1/review-requests/${req.body.data.id}/take`)).status).toBe(200);
    await integrate(t.runtime.deps);
    before = await published();
    const all = await entries(before.size);
    beforeLeaves = all.map((e) => rfc.leaf(Buffer.from(e.body, 'utf8')));
    expect(rfc.mth(beforeLeaves).equals(before.root)).toBe(true);
    // Before: the record and the openings name her.
    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`);
    expect(record.text).toContain(NAME);
    const opened = all.filter((e) => Object.values(e.openings).some((o) => o.value.username === zelda.username));
    expect(opened.length).toBeGreaterThan(2);
    for (const e of opened) expect(openBody(e.body, e.openings)).toBeTruthy();
  });

  it('exports everything held about the account, with no secret in it', async () => {
    const res = await zelda.client.get('/api/v1/account/export');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const d = res.body.data;
    expect(d.format).toBe('credence-account-export/1');
    expect(d.account).toMatchObject({ username: zelda.username, name: NAME, email: zelda.email, summary: SUMMARY, topics: ['energy'] });
    expect(d.submissions.map((s: { status: string }) => s.status).sort()).toEqual(['accepted', 'pending']);
    expect(d.submissions.find((s: { status: string }) => s.status === 'accepted')).toMatchObject({ reason: 'the archive says so', decision_note: 'thanks' });
    expect(d.contributions.map((c: { role: string }) => c.role).sort()).toEqual(['author', 'correction']);
    expect(d.author_claims).toEqual([expect.objectContaining({ state: 'confirmed', publisher: pub.slug })]);
    expect(d.api_keys.length).toBeGreaterThan(0);
    expect(d.sessions.length).toBeGreaterThan(0);
    expect(d.requests_taken).toEqual([expect.objectContaining({ status: 'taken' })]);
    expect(d.membership_history).toEqual(d.memberships.map((m: { publisher: string; publisher_name: string; since: string }) => ({ publisher: m.publisher, publisher_name: m.publisher_name, since: m.since })));
    expect(d.log_openings.length).toBeGreaterThan(2);
    expect(res.text).not.toMatch(/scrypt|cred_live_[0-9a-f]{8}|cred_sess_|"secret"|token_hash|key_hash|password/);
  });

  it('needs the person’s own session and password', async () => {
    const key = await contributorKey(zelda);
    const none = await anon.get('/api/v1/account/export');
    expect(none.status).toBe(401);
    const noCredential = await new Client(t.baseUrl).req('DELETE', '/api/v1/account', { body: { password: zelda.password } });
    expect(noCredential.status).toBe(401);
    const withKey = await new Client(t.baseUrl).as(key).req('DELETE', '/api/v1/account', { body: { password: zelda.password } });
    expect(withKey.status, withKey.text).toBe(403);
    const exportWithKey = await new Client(t.baseUrl).as(key).get('/api/v1/account/export');
    expect(exportWithKey.status).toBe(403);
    const wrong = await zelda.client.req('DELETE', '/api/v1/account', { body: { password: 'not her password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'password' }] } });
    const missing = await zelda.client.req('DELETE', '/api/v1/account', { body: {} });
    expect(missing.status).toBe(400);
    // Someone else's session with her password erases nobody: it asks for the session holder's own password.
    const other = await bystander.client.req('DELETE', '/api/v1/account', { body: { password: 'not bea password' } });
    expect(other.status).toBe(400);
    expect((await zelda.client.get('/api/v1/account')).status).toBe(200);
  });

  it('asks the last owner of a publication to hand it over first', async () => {
    const res = await pub.owner.client.req('DELETE', '/api/v1/account', { body: { password: pub.owner.password } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: { code: 'conflict', details: [{ field: 'publications', message: pub.slug }] } });
    expect((await pub.owner.client.get('/api/v1/account')).status).toBe(200);
  });

  it('erases the account: work kept naming a former contributor, the rest gone', async () => {
    const res = await zelda.client.req('DELETE', '/api/v1/account', { body: { password: zelda.password } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ kept_work: 2, withdrawn_submissions: 1, released_requests: 1 });
    expect(res.body.data.forgotten_openings).toBeGreaterThan(2);
    // Her session and keys are gone; her username stays hers alone.
    expect((await zelda.client.get('/api/v1/account')).status).toBe(401);
    expect((await new Client(t.baseUrl).post('/api/v1/auth/login', { email: zelda.email, password: zelda.password })).status).toBe(401);
    const again = await new Client(t.baseUrl).post('/api/v1/auth/signup', { email: 'someone.else@mail.test', password: 'correct horse battery', name: 'Else', username: zelda.username });
    expect(again.status).toBe(409);
    const former = await new Client(t.baseUrl).post('/api/v1/auth/signup', { email: 'x@mail.test', password: 'correct horse battery', name: 'X', username: 'former-contributor' });
    expect(former.status).toBe(409);
    // The record keeps the correction, naming nobody.
    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`);
    expect(record.status).toBe(200);
    expect(record.text).toContain('A former contributor');
    expect(record.text).toContain('2001');
    // The request she took is open again.
    const asked = await t.runtime.deps.db.selectFrom('requests').select(['status', 'taken_by']).where('title', '=', 'Asked').executeTakeFirstOrThrow();
    expect(asked).toEqual({ status: 'open', taken_by: null });
    // The erasure list names her account by id and time only.
    const list = fs.readFileSync(t.config.erasureList!, 'utf8');
    expect(JSON.parse(list.trim())).toEqual({ account_id: zelda.id, account_created_at: expect.any(String), erased_at: res.body.data.erased_at });
  });

  it('keeps every proof: the same leaves, inclusion and consistency from a checkpoint saved before', async () => {
    await integrate(t.runtime.deps);
    const after = await published();
    expect(after.size).toBeGreaterThan(before.size);
    const all = await entries(after.size);
    const leaves = all.map((e) => rfc.leaf(Buffer.from(e.body, 'utf8')));
    for (let i = 0; i < before.size; i++) expect(leaves[i]!.equals(beforeLeaves[i]!)).toBe(true);
    expect(rfc.mth(leaves).equals(after.root)).toBe(true);
    for (let i = 0; i < after.size; i++) {
      const p = await anon.get(`/v1/log/proof/inclusion?index=${i}`);
      expect(rfc.checkInclusion(i, after.size, leaves[i]!, p.body.hashes.map(b64), after.root)).toBe(true);
    }
    const c = await anon.get(`/v1/log/proof/consistency?first=${before.size}&second=${after.size}`);
    expect(rfc.checkConsistency(before.size, after.size, c.body.hashes.map(b64), before.root, after.root)).toBe(true);
    // Her entries keep their commitments; their openings are gone; everyone else's still open.
    const hers = all.filter((e) => e.body.includes('"contributor":{"commitment"') && !e.openings['/contributor']);
    expect(hers.length).toBeGreaterThan(2);
    for (const e of all) expect(openBody(e.body, e.openings)).toBeTruthy();
    // The project's own auditor, from the checkpoint saved before.
    const saved = path.join(listDir, 'saved.txt');
    fs.writeFileSync(saved, before.note);
    const lines: string[] = [];
    await verifyLog({ url: t.baseUrl, checkpointFile: saved, key: before.key, out: (l) => lines.push(l) });
    expect(lines.join('\n')).toMatch(/consistent|verified/i);
  });

  it('leaves nothing of theirs to read: public answers, the feed, the log, the pages and the database bytes', async () => {
    const secrets = [zelda.email, NAME, zelda.username, SUMMARY];
    const urls = [
      `/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`,
      `/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/authored`)}`,
      `/api/v1/pages/lookup?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`,
      `/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`,
      `/api/v1/embed/article/${pages[0]}`,
      `/api/v1/contributors?per_page=100`,
      `/v1/contributors/${zelda.id}`,
      `/api/v1/contributors/${zelda.username}`,
      `/v1/changes?limit=500`,
      `/api/v1/changes?limit=500`,
      `/v1/log/entries?start=0&limit=1000`,
      `/records/${pages[0]}`,
      `/records/${pages[1]}`,
      `/contributors`,
      `/contributors/${zelda.username}`,
      `/contributors/former-contributor`,
      `/`,
    ];
    for (const u of urls) {
      const res = await anon.get(u, { headers: { accept: 'text/html, application/json' } });
      expect(res.status, u).toBeLessThan(500);
      // A path that holds the username itself (asked for by the reader) may echo it back; nothing else may.
      for (const s of secrets) if (!(u.includes(zelda.username) && s === zelda.username)) expect(res.text, `${u} names them`).not.toContain(s);
      if (u.includes(zelda.username) || u === `/v1/contributors/${zelda.id}`) expect(res.status, u).toBe(404);
    }
    const ld = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`, { headers: { accept: 'application/ld+json' } });
    for (const s of secrets) expect(ld.text).not.toContain(s);
    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/tides`)}`);
    for (const c of record.body.contributions ?? []) {
      const proof = await anon.get(`/proofs/${String(c.id).replace('ctb_', '')}`);
      for (const s of secrets) expect(proof.text).not.toContain(s);
    }
    const bytes = await t.databaseBytes();
    for (const s of secrets) expect(bytes.includes(Buffer.from(s, 'utf8')), `the database holds "${s}"`).toBe(false);
    // Everyone else is still there.
    expect(bytes.includes(Buffer.from('Bea Stander', 'utf8'))).toBe(true);
  });

  it('erases again whoever the erasure list names, when a backup from before brings them back', async () => {
    const { reapplyErasures, parseErasureList } = await import('../../src/domain/privacy/erasure.service.js');
    // A restored backup holds an account the list says was erased: the same id, created at the same moment.
    const person = await signup(t, { name: 'Rita Restore' });
    const row = await t.runtime.deps.db.selectFrom('accounts').select('created_at').where('id', '=', person.id).executeTakeFirstOrThrow();
    const line = JSON.stringify({ account_id: person.id, account_created_at: row.created_at, erased_at: new Date().toISOString() });
    const records = parseErasureList(`${fs.readFileSync(t.config.erasureList!, 'utf8')}${line}\n`);
    const survivor = await signup(t, { name: 'Sam Survivor' });
    records.push({ account_id: survivor.id, account_created_at: '2000-01-01T00:00:00.000Z', erased_at: new Date().toISOString() });
    expect(await reapplyErasures(t.runtime.deps, records)).toEqual({ reapplied: [person.id], alreadyErased: records.length - 1 });
    expect((await person.client.get('/api/v1/account')).status).toBe(401);
    expect((await anon.get(`/api/v1/contributors/${person.username}`)).status).toBe(404);
    // Another account that only shares an id with a listed one (created at another time) is left alone.
    expect((await survivor.client.get('/api/v1/account')).status).toBe(200);
  });
});
