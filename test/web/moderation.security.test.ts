// Who may open and post the operators' report pages and a decision's appeal form. Visitors are sent to log in,
// a person who is not an operator gets the 403 page, an API key is no session for a page (the visitor's answer),
// an operator cannot decide an appeal of their own decision, and someone neither affected nor notifier sees no
// decision to appeal. Each refusal changes nothing: no decision, no appeal, no flagger, the text still withheld.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { webAdmin, type WebUser, webUser } from './dashboard.fixtures.js';

const SENTENCE = 'The harbour master forged the tide tables for money';
let t: TestApp;
let pub: TestPublisher;
let writer: TestUser;
let writerId: number;
let opsA: WebUser;
let opsB: WebUser;
let stranger: WebUser;
let reportId: number;
let decisionId: number;
let appealId: number;

const decideFields = {
  type: 'restrict_field',
  category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  ground: 'illegal',
  legal_reference: 'Loi du 29 juillet 1881, art. 29',
  terms_clause: 't1',
  facts: 'The summary accuses a named person of a crime and cites no source.',
  confirm: 'yes',
};

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
  writer = await signup(t, { name: 'Wes Writer' });
  opsA = await webAdmin(t);
  opsB = await webAdmin(t);
  stranger = await webUser(t, 'Sam Stranger');
  const url = `https://${pub.domain}/tides`;
  expect((await pub.api.post('/api/v1/pages', { url, title: 'Tide tables', topic: 'politics' })).status).toBeLessThan(300);
  const key = await contributorKey(writer);
  const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'fact_check', summary: SENTENCE, evidence: { reason: 'the log', sources: ['https://archive.example/tides'] } });
  expect(sub.status, sub.text).toBe(201);
  expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
  const db = t.runtime.deps.db;
  const c = await db.selectFrom('contributions').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  writerId = (await db.selectFrom('accounts').select('id').where('username', '=', writer.username).executeTakeFirstOrThrow()).id;
  const r = await moderation.submitReport(
    t.runtime.deps,
    { item: { kind: 'contribution', id: c.id, field: 'summary' }, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'Accuses a named person of a crime.', good_faith: true, locale: 'en' },
    null,
  );
  reportId = r.id;
});
afterAll(async () => t?.close());

const count = async (_t: TestApp, table: 'moderation_decisions' | 'trusted_flaggers' | 'withheld_texts' | 'appeals') =>
  Number((await t.runtime.deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

const adminGets = () => ['/admin/reports', `/admin/reports/${reportId}`, ...(appealId ? [`/admin/appeals/${appealId}`] : [])];

describe('the operators’ report pages', () => {
  it('send a visitor to log in and change nothing on a post', async () => {
    const anon = new FormClient(t.baseUrl);
    for (const path of adminGets()) {
      const res = await anon.get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location'), path).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    for (const path of [`/admin/reports/${reportId}/decide`, '/admin/trusted-flaggers']) {
      const res = await anon.post(path, { ...decideFields, username: writer.username, organisation: 'Flag Org' }, { csrf: null });
      expect(res.status, path).toBeGreaterThanOrEqual(300);
      expect(res.status, path).toBeLessThan(500);
    }
    expect(await count(t, 'moderation_decisions')).toBe(0);
    expect(await count(t, 'trusted_flaggers')).toBe(0);
  });

  it('show a person who is not an operator the 403 page and refuse their posts', async () => {
    for (const path of adminGets()) {
      const res = await stranger.b.get(path);
      expect(res.status, path).toBe(403);
      expect(res.text).toContain('Only operators can open this page');
      expect(res.text).not.toContain(SENTENCE);
    }
    await stranger.b.get('/me');
    const decide = await stranger.b.post(`/admin/reports/${reportId}/decide`, decideFields);
    expect(decide.status).toBe(403);
    const flag = await stranger.b.post('/admin/trusted-flaggers', { username: stranger.username, organisation: 'Self Appointed' });
    expect(flag.status).toBe(403);
    expect(await count(t, 'moderation_decisions')).toBe(0);
    expect(await count(t, 'trusted_flaggers')).toBe(0);
  });

  it('take no API key as a session: a key is a visitor here, even an operator’s', async () => {
    const opsKey = (await opsA.api.post('/api/v1/account/api-keys', { name: 'ops key' })).body.data?.key as string | undefined;
    const writerKey = await contributorKey(writer);
    for (const key of [writerKey, ...(opsKey ? [opsKey] : [])]) {
      for (const path of adminGets()) {
        for (const headers of [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }]) {
          const res = await fetch(t.baseUrl + path, { headers: { accept: 'text/html', ...headers }, redirect: 'manual' });
          expect([303, 401], path).toContain(res.status);
          expect(await res.text()).not.toContain(SENTENCE);
        }
      }
    }
    expect(await count(t, 'moderation_decisions')).toBe(0);
  });

  it('refuse an operator deciding an appeal of their own decision, and let another decide it', async () => {
    await opsA.b.get(`/admin/reports/${reportId}`);
    const decided = await opsA.b.post(`/admin/reports/${reportId}/decide`, decideFields);
    expect(decided.status, decided.text).toBe(303);
    decisionId = (await t.runtime.deps.db.selectFrom('moderation_decisions').select('id').executeTakeFirstOrThrow()).id;
    appealId = (await moderation.appeal(t.runtime.deps, writerId, decisionId, 'The archive shows the forged tables.')).id;
    await opsA.b.get(`/admin/appeals/${appealId}`);
    for (const outcome of ['reversed', 'upheld']) {
      const own = await opsA.b.post(`/admin/appeals/${appealId}/decide`, { outcome, facts: 'I read it again myself.' });
      expect(own.status).toBe(403);
      expect(own.text).toContain('Another operator must decide this appeal');
    }
    await expect(moderation.decideAppeal(t.runtime.deps, (await opsId(opsA)), appealId, { outcome: 'reversed', facts: 'Through the service directly.' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await count(t, 'withheld_texts')).toBeGreaterThan(0);
    const appeal = await t.runtime.deps.db.selectFrom('appeals').select(['decided_at']).where('id', '=', appealId).executeTakeFirstOrThrow();
    expect(appeal.decided_at).toBeNull();
    // A person who is not an operator cannot decide it either.
    await stranger.b.get('/me');
    expect((await stranger.b.post(`/admin/appeals/${appealId}/decide`, { outcome: 'reversed', facts: 'I am not an operator.' })).status).toBe(403);
    await opsB.b.get(`/admin/appeals/${appealId}`);
    const other = await opsB.b.post(`/admin/appeals/${appealId}/decide`, { outcome: 'upheld', facts: 'The archive does not show it.' });
    expect(other.status, other.text).toBe(303);
  });
});

const opsId = async (u: WebUser) => (await t.runtime.deps.db.selectFrom('accounts').select('id').where('username', '=', u.username).executeTakeFirstOrThrow()).id;

describe('a decision’s appeal form', () => {
  it('sends a visitor to log in', async () => {
    const anon = new FormClient(t.baseUrl);
    const res = await anon.get(`/decisions/${decisionId}/appeal`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/login?next=${encodeURIComponent(`/decisions/${decisionId}/appeal`)}`);
  });

  it('shows someone neither affected nor notifier no decision to appeal, and takes no appeal from them', async () => {
    const before = await count(t, 'appeals');
    const page = await stranger.b.get(`/decisions/${decisionId}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Appeal this decision');
    await stranger.b.get('/me');
    const res = await stranger.b.post(`/decisions/${decisionId}/appeal`, { explanation: 'I was not part of this at all.' });
    expect(res.status).toBe(404);
    expect(await count(t, 'appeals')).toBe(before);
  });

  it('needs the form’s CSRF token', async () => {
    const writerWeb = new FormClient(t.baseUrl);
    const res = await writerWeb.post(`/decisions/${decisionId}/appeal`, { explanation: 'No token with this post.' }, { csrf: null });
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(500);
  });
});
