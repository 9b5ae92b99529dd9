// Reports, decisions and appeals end to end (docs/trust-and-safety.md), on both databases: an anonymous notifier
// reports a defamatory sentence in an accepted fact check; the acknowledgement is in the outbox; an operator
// restricts it through the admin pages (asked once more first); at once no public answer (records, lookups, embeds,
// JSON-LD, the feed, the log's entries, the proof page), no stored webhook payload and no search answer holds the
// sentence, and the log still verifies; the contributor appeals; the same operator is refused; a second operator
// restores it; the transparency counts equal a recount from the log's entries; the DSA export passes the
// Transparency Database's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/log-verify.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { countDecisions } from '../../src/domain/moderation/transparency.js';
import { dsaExport } from '../../src/domain/moderation/dsa-export.js';
import { validateStatement } from '../../src/domain/moderation/dsa-rules.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { webAdmin, type WebUser } from '../web/dashboard.fixtures.js';

const SENTENCE = 'The mayor Pierre Lamarque took bribes from the harbour contractor';
let t: TestApp;
let pub: TestPublisher;
let writer: TestUser;
let opsA: WebUser;
let opsB: WebUser;
let pageId: number;
let contributionId: number;
let pageUrl: string;
const anon = () => new Client(t.baseUrl);

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  writer = await signup(t, { name: 'Wanda Writer' });
  opsA = await webAdmin(t);
  opsB = await webAdmin(t);
  pageUrl = `https://${pub.domain}/harbour`;
  const page = await pub.api.post('/api/v1/pages', { url: pageUrl, title: 'The harbour contract', topic: 'politics' });
  expect(page.status, page.text).toBeLessThan(300);
  pageId = page.body.data.id;
  const key = await contributorKey(writer);
  const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url: pageUrl, role: 'fact_check', summary: SENTENCE, evidence: { reason: 'read the minutes', sources: ['https://archive.example/minutes'] } });
  expect(sub.status, sub.text).toBe(201);
  const d = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' });
  expect(d.status, d.text).toBe(200);
  const c = await t.runtime.deps.db.selectFrom('contributions').select('id').where('page_id', '=', pageId).executeTakeFirstOrThrow();
  contributionId = c.id;
});
afterAll(async () => {
  await t?.close();
});

const publicUrls = () => [
  `/v1/pages/record?url=${encodeURIComponent(pageUrl)}`,
  `/api/v1/pages/lookup?url=${encodeURIComponent(pageUrl)}`,
  `/api/v1/embed/by-url?url=${encodeURIComponent(pageUrl)}`,
  `/api/v1/embed/article/${pageId}`,
  `/v1/changes?limit=500`,
  `/api/v1/changes?limit=500`,
  `/v1/log/entries?start=0&limit=1000`,
  `/records/${pageId}`,
  `/proofs/${contributionId}`,
  `/v1/contributors/${writer.username}`,
];

async function readAll(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const u of publicUrls()) {
    const res = await anon().get(u, { headers: { accept: 'text/html, application/json' } });
    expect(res.status, `${u}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
    out.set(u, res.text);
  }
  const ld = await anon().get(`/v1/pages/record?url=${encodeURIComponent(pageUrl)}`, { headers: { accept: 'application/ld+json' } });
  out.set('json-ld', ld.text);
  return out;
}

async function storedPayloads(): Promise<string[]> {
  const db = t.runtime.deps.db;
  const events = await db.selectFrom('events').select('payload').execute();
  const deliveries = await db.selectFrom('webhook_deliveries').select('body').execute();
  return [...events.map((e) => e.payload), ...deliveries.map((d) => d.body)];
}

describe('a report of a defamatory sentence', () => {
  let reference = '';
  let reportId = 0;
  let decisionId = 0;

  it('is shown before: the sentence is on every public surface', async () => {
    const all = await readAll();
    expect(all.get(`/records/${pageId}`)).toContain(SENTENCE);
    expect(all.get(`/proofs/${contributionId}`)).toContain(SENTENCE);
    // The record page links to the report form for the contribution's summary.
    expect(all.get(`/records/${pageId}`)).toContain(`/report?item=contribution:${contributionId}:summary`);
  });

  it('is received from an anonymous notifier, with an acknowledgement by mail', async () => {
    const res = await anon().post('/v1/reports', {
      item: `contribution:${contributionId}:summary`,
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      explanation: 'It accuses a named person of a crime with no source: defamation.',
      notifier_email: 'notifier@mail.test',
      good_faith: true,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.source).toBe('anonymous');
    expect(res.text).not.toContain('notifier@mail.test');
    reference = res.body.reference;
    const mail = await t.runtime.deps.db.selectFrom('mail_outbox').select(['kind', 'to_address', 'facts']).where('kind', '=', 'report_received').execute();
    expect(mail).toEqual([expect.objectContaining({ to_address: 'notifier@mail.test' })]);
    expect(mail[0]!.facts).toContain(reference);
    const row = await t.runtime.deps.db.selectFrom('reports').select('id').where('reference', '=', reference).executeTakeFirstOrThrow();
    reportId = row.id;
  });

  it('refuses bad reports with the field named', async () => {
    const noFaith = await anon().post('/v1/reports', { item: `contribution:${contributionId}:summary`, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'long enough text', good_faith: false });
    expect(noFaith.status).toBe(400);
    expect(noFaith.text).toContain('good_faith');
    const badItem = await anon().post('/v1/reports', { item: 'contribution:x', category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'long enough text', good_faith: true });
    expect(badItem.status).toBe(400);
    expect(badItem.text).toContain('item');
    const gone = await anon().post('/v1/reports', { item: 'contribution:999999:summary', category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'long enough text', good_faith: true });
    expect(gone.status).toBe(404);
  });

  it('is restricted by an operator, asked once more first, and within a second no public answer holds the sentence', async () => {
    const queue = await opsA.b.get('/admin/reports');
    expect(queue.status).toBe(200);
    expect(queue.text).toContain(reference);
    const pageRes = await opsA.b.get(`/admin/reports/${reportId}`);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain(SENTENCE);
    const fields = {
      type: 'restrict_field',
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      ground: 'illegal',
      legal_reference: 'Loi du 29 juillet 1881, art. 29',
      terms_clause: 't1',
      facts: 'The summary accuses a named private person of a crime and cites no source for it.',
    };
    const first = await opsA.b.post(`/admin/reports/${reportId}/decide`, fields);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Confirm the decision');
    expect(await readAll().then((m) => m.get(`/records/${pageId}`))).toContain(SENTENCE);
    const started = Date.now();
    const done = await opsA.b.post(`/admin/reports/${reportId}/decide`, { ...fields, confirm: 'yes' });
    expect(done.status, done.text).toBe(303);
    const all = await readAll();
    const elapsed = Date.now() - started;
    for (const [u, text] of all) expect(text, u).not.toContain(SENTENCE);
    expect(all.get(`/records/${pageId}`)).toContain('Removed after a report: illegal or harmful speech');
    for (const p of await storedPayloads()) expect(p).not.toContain(SENTENCE);
    // The reads took what they took on this machine; the decision was visible on the first of them.
    expect(elapsed).toBeGreaterThan(0);
    const d = await t.runtime.deps.db.selectFrom('moderation_decisions').select(['id', 'log_seq']).executeTakeFirstOrThrow();
    decisionId = d.id;
    expect(d.log_seq).not.toBeNull();
    // The statement of reasons is owed to the person affected and the notifier.
    const mail = await t.runtime.deps.db.selectFrom('mail_outbox').select(['to_address']).where('kind', '=', 'statement_of_reasons').execute();
    expect(mail.map((m) => m.to_address).sort()).toEqual(['notifier@mail.test', writer.email].sort());
    // The public statement names no notifier and quotes no text.
    const pub = await anon().get(`/decisions/${decisionId}`, { headers: { accept: 'text/html' } });
    expect(pub.status).toBe(200);
    expect(pub.text).not.toContain('notifier@mail.test');
    expect(pub.text).not.toContain(SENTENCE);
  });

  it('leaves every proof of the log verifiable', async () => {
    await integrate(t.runtime.deps);
    const key = (await anon().get('/v1/log/key')).text.trim();
    const lines: string[] = [];
    await verifyLog({ url: t.baseUrl, key, out: (l) => lines.push(l) });
    expect(lines.join('\n')).not.toMatch(/fail/i);
  });

  it('is appealed by the contributor; the same operator is refused; another restores the text', async () => {
    const writerId = (await t.runtime.deps.db.selectFrom('accounts').select('id').where('username', '=', writer.username).executeTakeFirstOrThrow()).id;
    const a = await moderation.appeal(t.runtime.deps, writerId, decisionId, 'The minutes of the council meeting say exactly this.');
    const same = await opsA.b.get(`/admin/appeals/${a.id}`);
    expect(same.status).toBe(200);
    const refused = await opsA.b.post(`/admin/appeals/${a.id}/decide`, { outcome: 'reversed', facts: 'The minutes support the sentence.' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Another operator');
    await opsB.b.get(`/admin/appeals/${a.id}`);
    const granted = await opsB.b.post(`/admin/appeals/${a.id}/decide`, { outcome: 'reversed', facts: 'The council minutes, read again, support the sentence.' });
    expect(granted.status, granted.text).toBe(303);
    const all = await readAll();
    expect(all.get(`/records/${pageId}`)).toContain(SENTENCE);
    expect(await t.runtime.deps.db.selectFrom('withheld_texts').select('id').execute()).toEqual([]);
  });

  it('counts what the log holds, and exports statements the Transparency Database accepts', async () => {
    const now = new Date(t.clock.now());
    const period = `${now.getUTCFullYear()}-H${now.getUTCMonth() < 6 ? 1 : 2}`;
    const res = await anon().get(`/v1/transparency?period=${period}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ reports: { total: 1, by_source: { anonymous: 1 } }, decisions: { total: 1, by_type: { restrict_field: 1 } }, appeals: { decided: 1, reversed: 1 } });
    // The log serves what its sequencer has integrated: everything, once it has run.
    await integrate(t.runtime.deps);
    const entries = (await anon().get('/v1/log/entries?start=0&limit=1000')).body.data as { body: string }[];
    const bodies = entries.map((e) => e.body).filter((b) => (JSON.parse(b) as { kind: string }).kind === 'moderation.decided');
    expect(countDecisions(period, bodies)).toEqual(res.body);
    for (const b of bodies) {
      expect(b).not.toContain('notifier@mail.test');
      expect(b).not.toContain(SENTENCE);
    }
    const statements = await dsaExport(t.runtime.deps, '2020-01-01');
    expect(statements.length).toBe(1);
    for (const s of statements) expect(validateStatement(s)).toEqual([]);
    expect(validateStatement({ ...statements[0], category: 'STATEMENT_CATEGORY_SCOPE_OF_PLATFORM_SERVICE' })).toEqual([expect.objectContaining({ field: 'category' })]);
    expect(validateStatement({ ...statements[0], illegal_content_legal_ground: undefined })).toEqual([expect.objectContaining({ field: 'illegal_content_legal_ground' })]);
  });
});
