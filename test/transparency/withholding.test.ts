// Text withheld by a decision, with every proof intact (docs/decisions/free-text-in-the-log.md). A fact check's
// summary is a salted commitment in its entry, opened beside it; withholding it stops serving its opening on every
// public read (the feeds, the log's entries, bundles and pages), while the independent RFC 9162 verifier of
// rfc9162.ts still checks every inclusion and consistency proof and `credence log:verify` reports the field removed
// by the decision; restoring serves it again. An entry written before free text was committed to holds its title in
// clear: withheld, it is served without it beside its leaf hash, and still verifies. Runs on both databases.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/log-verify.js';
import { appendChange, type ChangeKind } from '../../src/domain/changes/change-log.js';
import { forgetWithheld, restoreText, type TextRef, withholdText } from '../../src/domain/changes/withholding.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { openBody } from './commitments.js';
import * as rfc from './rfc9162.js';

let t: TestApp;
let pub: TestPublisher;
let author: TestUser;
let anon: Client;
let contributionId: number;
let pageId: number;
const SENTENCE = 'Mayor Oakhurst pocketed the flood relief fund';
const NAME = 'Quill Defamer-Name';
const OLD_TITLE = 'Old clear headline about Councillor Brisbane';
const b64 = (s: string) => Buffer.from(s, 'base64');

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  // From the allowlisted address: the test reads every proof of the log, several times over.
  anon = new Client(t.baseUrl, '127.0.0.1');
  pub = await publisher(t);
  author = await signup(t, { name: NAME });
  const url = `https://${pub.domain}/flood-relief`;
  pageId = (await pub.api.post('/api/v1/pages', { url, title: 'Flood relief audit', topic: 'politics' })).body.data.id;
  const key = await contributorKey(author);
  const submitted = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', {
    url,
    role: 'fact_check',
    summary: SENTENCE,
    evidence: { reason: 'The ledger says otherwise', sources: ['https://ledger.example/a'] },
  });
  expect(submitted.status, submitted.text).toBe(201);
  const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: submitted.body.data.id, decision: 'accept' });
  expect(decided.status, decided.text).toBe(200);
  contributionId = decided.body.data.contribution_id;
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

async function published() {
  const key = (await anon.get('/v1/log/key')).text.trim();
  const note = (await anon.get('/v1/log/checkpoint')).text;
  return { key, note, ...rfc.openCheckpoint(note, key) };
}

type Entry = { index: number; kind: string; body: string; openings: Record<string, { opening: string; value: unknown }>; withheld?: Record<string, number>; leaf_hash?: string };
async function entries(size: number): Promise<Entry[]> {
  const out: Entry[] = [];
  while (out.length < size) {
    const res = await anon.get(`/v1/log/entries?start=${out.length}&limit=1000`);
    expect(res.status, res.text).toBe(200);
    if (res.body.data.length === 0) break;
    out.push(...res.body.data);
  }
  return out;
}

/** Every inclusion proof of the log and the consistency proof from `before`, checked from the specification alone. */
async function checkEveryProof(before: { size: number; root: Buffer }) {
  const now = await published();
  const all = await entries(now.size);
  // A served body that is not the entry's bytes comes with its leaf hash; it must be the one the tiles hold.
  const leaves = all.map((e) => (e.leaf_hash ? b64(e.leaf_hash) : rfc.leaf(Buffer.from(e.body, 'utf8'))));
  const tileBytes = Buffer.from(await (await fetch(`${t.baseUrl}/v1/log/tile/0/000${now.size < 256 ? `.p/${now.size}` : ''}`)).arrayBuffer());
  for (const e of all) if (e.leaf_hash) expect(tileBytes.subarray(e.index * 32, e.index * 32 + 32).equals(b64(e.leaf_hash))).toBe(true);
  expect(rfc.mth(leaves).equals(now.root)).toBe(true);
  for (let i = 0; i < now.size; i++) {
    const p = await anon.get(`/v1/log/proof/inclusion?index=${i}`);
    expect(rfc.checkInclusion(i, now.size, leaves[i]!, p.body.hashes.map(b64), now.root), `inclusion of ${i}`).toBe(true);
  }
  if (before.size > 0 && before.size < now.size) {
    const c = await anon.get(`/v1/log/proof/consistency?first=${before.size}&second=${now.size}`);
    expect(rfc.checkConsistency(before.size, now.size, c.body.hashes.map(b64), before.root, now.root)).toBe(true);
  }
  for (const e of all) expect(openBody(e.body, e.openings)).toBeTruthy();
  return { now, all };
}

async function audit(): Promise<string> {
  const lines: string[] = [];
  await verifyLog({ url: t.baseUrl, out: (l) => lines.push(l) });
  return lines.join('\n');
}

/** Every public read of the log, as a reader gets it: the feeds (list and replay), entries, bundles, entry pages. */
async function publicReads(size: number): Promise<{ url: string; text: string; status: number }[]> {
  const urls = [
    '/v1/changes?after=0&limit=500',
    '/api/v1/changes?after=0&limit=500',
    '/v1/changes?after=2&limit=500',
    `/v1/log/entries?start=0&limit=1000`,
    `/v1/log/tile/entries/000${size < 256 ? `.p/${size}` : ''}`,
    ...Array.from({ length: size }, (_, i) => `/log/${i}`),
    ...Array.from({ length: size }, (_, i) => `/v1/log/proof/bundle?index=${i}`),
  ];
  const out = [];
  for (const url of urls) {
    const res = await anon.get(url, { headers: { accept: url.startsWith('/log/') ? 'text/html' : '*/*' } });
    expect(res.status, url).toBeLessThan(500);
    out.push({ url, text: res.text, status: res.status });
  }
  return out;
}

async function decide(ref: TextRef, decisionId: number, op: 'withhold' | 'restore') {
  return t.runtime.deps.db.transaction().execute(async (trx) => {
    const withheld = op === 'withhold' ? await withholdText(trx, ref, decisionId) : (await restoreText(trx, ref, decisionId), []);
    // The decision entry the reports work writes; its shape is theirs, its `withheld` list is what a verifier reads.
    await appendChange(trx, {
      kind: 'moderation.decided' as ChangeKind,
      ids: { pageId },
      data: { decision: { id: decisionId, type: op === 'withhold' ? 'restrict_field' : 'restore', item: ref }, withheld: withheld.map((w) => ({ seq: w.seq, pointer: w.pointer })) },
      now: new Date().toISOString(),
    });
    return withheld;
  });
}

describe('free text as commitments', () => {
  it('holds a fact check’s summary as a commitment that verifies with its opening', async () => {
    const { now, all } = await checkEveryProof({ size: 0, root: Buffer.alloc(0) });
    const accepted = all.find((e) => e.kind === 'contribution.accepted')!;
    expect(accepted.body).not.toContain(SENTENCE);
    expect(accepted.body).not.toContain('Flood relief audit');
    expect(openBody(accepted.body, accepted.openings)).toMatchObject({ contribution: { summary: SENTENCE }, page: { title: 'Flood relief audit' }, contributor: { name: NAME } });
    const rows = await t.runtime.deps.db.selectFrom('change_openings').select(['pointer', 'subject_kind', 'subject_id', 'field']).where('seq', '=', accepted.index + 1).execute();
    expect(rows).toContainEqual({ pointer: '/contribution/summary', subject_kind: 'contribution', subject_id: contributionId, field: 'summary' });
    expect(rows).toContainEqual({ pointer: '/page/title', subject_kind: 'page', subject_id: pageId, field: 'title' });
    expect(now.size).toBe(all.length);
    expect(await audit()).toMatch(/commitments: \d+ opened and matching/);
  });

  it('withholds the summary from every public read; every proof still verifies and log:verify names the decision', async () => {
    const before = await published();
    const withheld = await decide({ kind: 'contribution', id: contributionId, field: 'summary' }, 41, 'withhold');
    expect(withheld).toEqual([{ seq: expect.any(Number), pointer: '/contribution/summary' }]);
    await integrate(t.runtime.deps);
    const { now, all } = await checkEveryProof(before);
    for (const r of await publicReads(now.size)) expect(r.text, r.url).not.toContain(SENTENCE);
    const entry = all.find((e) => e.index === withheld[0]!.seq - 1)!;
    expect(entry.withheld).toEqual({ '/contribution/summary': 41 });
    expect(entry.leaf_hash).toBeUndefined();
    expect(entry.openings['/page/title']).toBeDefined();
    const out = await audit();
    expect(out).toMatch(new RegExp(`removed: 1 field withheld by a decision .*${entry.index}/contribution/summary \\(decision 41, log entry ${now.size - 1}\\)`));
    // The kept copy is in no public table, and the same field withheld again withholds nothing more.
    expect(await t.runtime.deps.db.selectFrom('withheld_openings').select('pointer').execute()).toEqual([{ pointer: '/contribution/summary' }]);
  });

  it('serves it again when the decision is reversed', async () => {
    const before = await published();
    await decide({ kind: 'contribution', id: contributionId, field: 'summary' }, 42, 'restore');
    await integrate(t.runtime.deps);
    const { all } = await checkEveryProof(before);
    const feed = await anon.get('/v1/changes?after=0&limit=500');
    expect(feed.text).toContain(SENTENCE);
    expect(all.some((e) => e.withheld)).toBe(false);
    expect(await audit()).not.toMatch(/removed:/);
  });

  it('withholds a person’s name inside their slot, leaving the rest of it open', async () => {
    const before = await published();
    const withheld = await decide({ kind: 'profile', id: author.id, field: 'name' }, 43, 'withhold');
    expect(withheld.length).toBeGreaterThan(1);
    expect(new Set(withheld.map((w) => w.pointer))).toEqual(new Set(['/contributor/name']));
    await integrate(t.runtime.deps);
    const { now, all } = await checkEveryProof(before);
    for (const r of await publicReads(now.size)) expect(r.text, r.url).not.toContain(NAME);
    const accepted = all.find((e) => e.kind === 'contribution.accepted')!;
    expect(accepted.openings['/contributor']).toMatchObject({ value: { username: author.username } });
    expect(await audit()).toMatch(/removed: \d+ fields withheld .*\/contributor\/name \(decision 43/);
    await t.runtime.deps.db.transaction().execute((trx) => forgetWithheld(trx, { kind: 'profile', id: author.id, field: 'name' }));
    expect(await t.runtime.deps.db.selectFrom('withheld_openings').select('pointer').where('pointer', '=', '/contributor/name').execute()).toEqual([]);
  });
});

describe('erasure', () => {
  it('forgets a person’s openings by reference, withheld ones too, and every proof still verifies', async () => {
    const summary = 'Wren writes about reservoirs near Ashbourne';
    const wren = await signup(t, { name: 'Wren Withheld' });
    expect((await wren.client.patch('/api/v1/account/profile', { summary, topics: ['energy'] })).status).toBe(200);
    await integrate(t.runtime.deps);
    const before = await published();
    const withheld = await decide({ kind: 'profile', id: wren.id, field: 'summary' }, 45, 'withhold');
    expect(withheld.length).toBeGreaterThan(0);
    const erased = await wren.client.req('DELETE', '/api/v1/account', { body: { password: wren.password } });
    expect(erased.status, erased.text).toBe(200);
    await integrate(t.runtime.deps);
    for (const table of ['change_openings', 'withheld_openings'] as const) {
      expect(await t.runtime.deps.db.selectFrom(table).select('pointer').where('account_id', '=', wren.id).execute(), table).toEqual([]);
    }
    const { now } = await checkEveryProof(before);
    for (const r of await publicReads(now.size)) for (const s of [summary, 'Wren Withheld']) expect(r.text, r.url).not.toContain(s);
  });
});

describe('an entry written with its text in clear', () => {
  let seq: number;
  let original: string;

  beforeAll(async () => {
    // As entries stood before migration 0029: the page's title in clear inside the signed bytes.
    const db = t.runtime.deps.db;
    seq = Number((await db.selectFrom('changes').select((eb) => eb.fn.max('seq').as('m')).executeTakeFirstOrThrow()).m) + 1;
    const now = new Date().toISOString();
    original = JSON.stringify({
      created_at: now,
      kind: 'page.updated',
      page: { id: pageId, title: OLD_TITLE, topic: 'politics', url: `https://${pub.domain}/flood-relief` },
      publisher: { name: `The ${pub.slug}`, slug: pub.slug },
      seq,
    });
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${seq}, ${now}, ${'page.updated'}, ${pageId}, ${null}, ${null}, ${null}, ${original})`.execute(db);
    await integrate(t.runtime.deps);
  });

  it('is served without the withheld field, beside its leaf hash, and every proof still verifies', async () => {
    const before = await published();
    expect((await anon.get(`/v1/log/entries?start=${seq - 1}&limit=1`)).text).toContain(OLD_TITLE);
    const withheld = await decide({ kind: 'page', id: pageId, field: 'title' }, 44, 'withhold');
    expect(withheld).toContainEqual({ seq, pointer: '/page/title' });
    await integrate(t.runtime.deps);
    const { now, all } = await checkEveryProof(before);
    const reads = await publicReads(now.size);
    for (const r of reads) expect(r.text, r.url).not.toContain(OLD_TITLE);
    // No proof that travels carries its bytes; its bundle is no longer immutable.
    expect(reads.find((r) => r.url === `/v1/log/proof/bundle?index=${seq - 1}`)!.status).toBe(404);
    const entry = all.find((e) => e.index === seq - 1)!;
    expect(entry.leaf_hash).toBe(rfc.leaf(Buffer.from(original, 'utf8')).toString('base64'));
    expect(entry.withheld).toEqual({ '/page/title': 44 });
    expect(JSON.parse(entry.body).page.title).toEqual({ withheld: 44 });
    const bundle = await anon.get(`/v1/log/tile/entries/000${now.size < 256 ? `.p/${now.size}` : ''}`);
    expect(bundle.headers.get('cache-control')).not.toMatch(/immutable/);
    const out = await audit();
    expect(out).toMatch(new RegExp(`${seq - 1}/page/title \\(decision 44, log entry ${now.size - 1}\\)`));
    expect(out).toMatch(/whole log: \d+ entries rebuild the signed root/);
  });

  it('keeps only the withheld form once the kept copy is forgotten, and still verifies', async () => {
    const before = await published();
    await t.runtime.deps.db.transaction().execute((trx) => forgetWithheld(trx, { kind: 'page', id: pageId, field: 'title' }));
    const row = await t.runtime.deps.db.selectFrom('changes').select('body').where('seq', '=', seq).executeTakeFirstOrThrow();
    expect(row.body).not.toContain(OLD_TITLE);
    await checkEveryProof(before);
    expect(await audit()).toMatch(/page\/title \(decision 44/);
  });
});
