// The transparency log over HTTP: checkpoints, keys, proofs and entries, checked by the independent
// RFC 9162 verifier in test/transparency/rfc9162.ts, never by the service's own proof code.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmClaims, contributorKey, publisher, signup } from '../factories.js';
import { addChanges } from '../transparency/changes.js';
import * as rfc from '../transparency/rfc9162.js';

let t: TestApp;
// A fresh simulated address per call: a verifier walking every proof would outrun one address's bucket.
const anon = { get: (path: string, opts?: Parameters<Client['get']>[1]) => new Client(t.baseUrl).get(path, opts) };
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const b64 = (s: string) => Buffer.from(s, 'base64');

async function published() {
  const key = (await anon.get('/v1/log/key')).text.trim();
  const note = await anon.get('/v1/log/checkpoint');
  expect(note.status, note.text).toBe(200);
  expect(note.headers.get('content-type')).toContain('text/plain');
  return { key, note: note.text, ...rfc.openCheckpoint(note.text, key) };
}

async function allLeaves(size: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  while (out.length < size) {
    const res = await anon.get(`/v1/log/entries?start=${out.length}&limit=1000`);
    expect(res.status, res.text).toBe(200);
    for (const e of res.body.data as { index: number; body: string }[]) {
      expect(e.index).toBe(out.length);
      out.push(rfc.leaf(Buffer.from(e.body, 'utf8')));
    }
    if (res.body.data.length === 0) break;
  }
  return out;
}

describe('the transparency log', () => {
  it('signs a checkpoint of the whole log that an independent verifier accepts, with the published key', async () => {
    await addChanges(t.runtime.deps.db, 37);
    await integrate(t.runtime.deps);
    const c = await published();
    expect(c.origin).toBe('credence.test/log/v2');
    expect(c.key.startsWith('credence.test/log/v2+')).toBe(true);
    const leaves = await allLeaves(c.size);
    expect(leaves.length).toBe(c.size);
    expect(rfc.mth(leaves).equals(c.root)).toBe(true);
    // The JSON form of the key says the same.
    const json = await anon.get('/v1/log/key', { headers: { accept: 'application/json' } });
    expect(json.body.verifier_key).toBe(c.key);
    expect(json.body.history).toEqual([expect.objectContaining({ verifier_key: c.key })]);
  });

  it('proves every entry’s inclusion and consistency between checkpoints', async () => {
    const before = await published();
    await addChanges(t.runtime.deps.db, 29);
    await integrate(t.runtime.deps);
    const after = await published();
    expect(after.size).toBe(before.size + 29);
    const leaves = await allLeaves(after.size);
    for (let i = 0; i < after.size; i++) {
      const p = await anon.get(`/v1/log/proof/inclusion?index=${i}`);
      expect(p.status, p.text).toBe(200);
      expect(p.body.tree_size).toBe(after.size);
      expect(p.body.checkpoint).toBe(after.note);
      expect(rfc.checkInclusion(i, after.size, leaves[i]!, p.body.hashes.map(b64), after.root)).toBe(true);
    }
    // Against the older checkpoint too.
    const old = await anon.get(`/v1/log/proof/inclusion?index=3&tree_size=${before.size}`);
    expect(old.body.checkpoint).toBe(before.note);
    expect(rfc.checkInclusion(3, before.size, leaves[3]!, old.body.hashes.map(b64), before.root)).toBe(true);
    for (const first of [1, 2, 7, 8, before.size, after.size]) {
      const p = await anon.get(`/v1/log/proof/consistency?first=${first}&second=${after.size}`);
      expect(p.status, p.text).toBe(200);
      expect(rfc.checkConsistency(first, after.size, p.body.hashes.map(b64), rfc.mth(leaves.slice(0, first)), after.root)).toBe(true);
    }
  });

  it('answers bad proof requests with a 400 naming the field', async () => {
    const { size } = await published();
    const cases = [
      [`/v1/log/proof/inclusion?index=${size}`, 'index'],
      [`/v1/log/proof/inclusion?index=0&tree_size=${size + 1}`, 'tree_size'],
      ['/v1/log/proof/inclusion?index=-1', 'index'],
      ['/v1/log/proof/inclusion', 'index'],
      [`/v1/log/proof/consistency?first=${size}&second=2`, 'first'],
      [`/v1/log/entries?start=${size + 1}`, 'start'],
      ['/v1/log/entries?start=0&limit=1001', 'limit'],
    ] as const;
    for (const [path, field] of cases) {
      const res = await anon.get(path);
      expect(res.status, path).toBe(400);
      expect(JSON.stringify(res.body.error), path).toContain(field);
    }
  });

  it('detects an entry changed or deleted in the database', async () => {
    const c = await published();
    const db = t.runtime.deps.db;
    const row = await sql<{ body: string }>`select body from changes where seq = 5`.execute(db);
    await sql`update changes set body = ${row.rows[0]!.body.replace('entry 5', 'entry five')} where seq = 5`.execute(db);
    try {
      const leaves = await allLeaves(c.size);
      expect(rfc.mth(leaves).equals(c.root)).toBe(false);
      const p = await anon.get('/v1/log/proof/inclusion?index=4');
      expect(rfc.checkInclusion(4, c.size, leaves[4]!, p.body.hashes.map(b64), c.root)).toBe(false);
    } finally {
      await sql`update changes set body = ${row.rows[0]!.body} where seq = 5`.execute(db);
    }
    expect(rfc.mth(await allLeaves(c.size)).equals(c.root)).toBe(true);
    const all = await sql<Record<string, unknown>>`select * from changes where seq = 9`.execute(db);
    await sql`delete from changes where seq = 9`.execute(db);
    const res = await anon.get('/v1/log/entries?start=0&limit=1000');
    const indexes = (res.body.data as { index: number }[]).map((e) => e.index);
    // Index 8 is missing: a verifier walking the entries cannot rebuild the signed root.
    expect(indexes).not.toContain(8);
    // Deleted before the tree took it, the entry stops the log: the sequencer waits for it and says which.
    const max = Number((await sql<{ m: number }>`select max(seq) as m from changes`.execute(db)).rows[0]!.m);
    await sql`insert into changes (seq, created_at, kind, body) values (${max + 2}, ${'2026-11-21T10:00:00.000Z'}, ${'test.entry'}, ${'{}'})`.execute(db);
    const stuck = await integrate(t.runtime.deps);
    expect(stuck.waitingFor).toBe(max + 1);
    expect(stuck.size).toBe(max);
    await sql`delete from changes where seq = ${max + 2}`.execute(db);
    const r = all.rows[0]!;
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${r.seq}, ${r.created_at}, ${r.kind}, ${r.page_id}, ${r.account_id}, ${r.publisher_id}, ${r.panel_id}, ${r.body})`.execute(db);
  });

  it('links accepted work, corrections and panel versions to entries whose proofs verify', async () => {
    const pub = await publisher(t);
    const author = await signup(t);
    const url = `https://${pub.domain}/news/linked`;
    const reg = await pub.api.post('/api/v1/pages', { url, title: 'Linked', topic: 'health', authors: [author.username] });
    await confirmClaims(author);
    expect(reg.status, reg.text).toBe(201);
    const fixer = await signup(t);
    const key = await contributorKey(fixer);
    const sub = await new Client(t.baseUrl, undefined, key).post('/api/v1/submissions', {
      url,
      role: 'correction',
      summary: 'Fixes the year',
      evidence: { before: 'in 2019', after: 'in 2021', reason: 'The journal says 2021', sources: ['https://journal.example/a'] },
    });
    expect(sub.status, sub.text).toBe(201);
    const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'Thanks' });
    expect(decided.status, decided.text).toBe(200);
    await integrate(t.runtime.deps);
    const c = await published();

    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
    expect(record.body.contributions.map((x: { role: string }) => x.role)).toEqual(['author', 'correction']);
    for (const entry of record.body.contributions as { id: string; log: { index: number; proof_url: string } }[]) {
      expect(entry.log.proof_url).toBe(`https://credence.test/v1/log/proof/inclusion?index=${entry.log.index}`);
      const body = (await anon.get(`/v1/log/entries?start=${entry.log.index}&limit=1`)).body.data[0].body as string;
      // The entry is about this contribution, and its proof leads to the signed root.
      expect(JSON.parse(body).contribution.id).toBe(Number(entry.id.replace('ctb_', '')));
      const proof = await anon.get(`/v1/log/proof/inclusion?index=${entry.log.index}`);
      expect(rfc.checkInclusion(entry.log.index, c.size, rfc.leaf(Buffer.from(body)), proof.body.hashes.map(b64), c.root)).toBe(true);
      // Its proof that travels (C2SP tlog-proof), read here from the spec: the entry on `extra`, the index, the
      // proof hashes, a blank line, the checkpoint; it checks with nothing else fetched.
      const bundleUrl = (entry.log as { bundle_url?: string }).bundle_url!;
      expect(bundleUrl).toBe(`https://credence.test/v1/log/proof/bundle?index=${entry.log.index}`);
      const file = await anon.get(bundleUrl.replace('https://credence.test', ''));
      expect(file.headers.get('content-disposition')).toContain('.tlog-proof');
      const lines = file.text.split('\n');
      expect(lines[0]).toBe('c2sp.org/tlog-proof@v1');
      expect(b64(lines[1]!.replace(/^extra /, '')).toString('utf8')).toBe(body);
      expect(lines[2]).toBe(`index ${entry.log.index}`);
      const blank = lines.indexOf('', 3);
      const checkpoint = rfc.openCheckpoint(lines.slice(blank + 1).join('\n'), c.key);
      expect(rfc.checkInclusion(entry.log.index, checkpoint.size, rfc.leaf(Buffer.from(body)), lines.slice(3, blank).map(b64), checkpoint.root)).toBe(true);
    }
    // The same links on /api/v1, on the proof's JSON, and in the embed's full style.
    const lookup = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
    expect(lookup.body.data.contributors.correction[0].log).toEqual(record.body.contributions[1].log);
    const proofJson = await anon.get(`/proofs/${record.body.contributions[1].id.replace('ctb_', '')}`);
    expect(proofJson.body.log).toEqual(record.body.contributions[1].log);
    const embed = await anon.get(`/api/v1/embed/by-url?url=${encodeURIComponent(url)}`);
    expect(embed.body.html).toContain(`/proofs/${String(record.body.contributions[1].id).replace('ctb_', '')}#log`);

    // A panel version links to its entry too.
    const admin = await signup(t);
    await sql`update accounts set is_admin = 1 where id = ${admin.id}`.execute(t.runtime.deps.db);
    const statement = {
      id: 'log-linked-panel',
      topic: 'health',
      question: 'Is it linked?',
      answer: 'Yes.',
      certainty: 'low-moderate',
      vote: { agree: 1, dissent: 0 },
      panel: [{ name: 'Dr. A', role: 'chair', vote: 'agree' }],
      revisit_by: '2028-01-01',
      reopen_triggers: ['new_study'],
    };
    const issued = await new Client(t.baseUrl, undefined, admin.token).post('/api/v1/admin/panels', statement);
    expect(issued.status, issued.text).toBe(201);
    await integrate(t.runtime.deps);
    const panel = await anon.get('/v1/panels/log-linked-panel');
    const entry = (await anon.get(`/v1/log/entries?start=${panel.body.log.index}&limit=1`)).body.data[0];
    expect(entry.kind).toBe('panel.issued');
    expect(JSON.parse(entry.body).panel).toEqual(expect.objectContaining({ id: 'log-linked-panel', version: 1 }));
  });
});
