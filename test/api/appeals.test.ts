// Appeals (DSA Art. 20) other than from the decision's page: the person affected through /api/v1, and a notifier
// without an account through the single-use link in their statement's mail. Each refusal changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';
import { webAdmin, type WebUser } from '../web/dashboard.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let writer: TestUser;
let writerKey: string;
let stranger: TestUser;
let ops: WebUser;
const decisions: number[] = [];

const appeals = async () => t.runtime.deps.db.selectFrom('appeals').select(['decision_id', 'account_id', 'appellant']).orderBy('id').execute();

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
  writer = await signup(t, { name: 'Abe Appellant' });
  stranger = await signup(t, { name: 'Sue Stranger' });
  writerKey = await contributorKey(writer);
  ops = await webAdmin(t);
  const deps = t.runtime.deps;
  const opsId = (await deps.db.selectFrom('accounts').select('id').where('username', '=', ops.username).executeTakeFirstOrThrow()).id;
  for (const n of [1, 2]) {
    const url = `https://${pub.domain}/appealed-${n}`;
    expect((await pub.api.post('/api/v1/pages', { url, title: `Appealed ${n}`, topic: 'politics' })).status).toBeLessThan(300);
    const sub = await new Client(t.baseUrl).as(writerKey).post('/api/v1/submissions', { url, role: 'review', summary: `A sharp review number ${n}`, evidence: { reason: 'read it', sources: ['https://archive.example/r'] } });
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
    const c = await deps.db.selectFrom('contributions').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const r = await moderation.submitReport(deps, { item: { kind: 'contribution', id: c.id, field: 'summary' }, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'It insults the author by name.', notifier_email: `anon${n}@mail.test`, good_faith: true, locale: 'en' }, null);
    decisions.push((await moderation.decideReport(deps, opsId, r.id, { type: 'restrict_field', ground: 'incompatible', terms_clause: 't5', facts: 'The review insults the article’s author by name.' })).id);
  }
});
afterAll(async () => t?.close());

describe('POST /api/v1/decisions/{id}/appeal', () => {
  it('takes the affected person’s appeal, by key or session', async () => {
    const res = await new Client(t.baseUrl).as(writerKey).post(`/api/v1/decisions/${decisions[0]}/appeal`, { explanation: 'The review criticises the work, not the person.' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ decision_id: decisions[0], created_at: expect.any(String) });
    expect(await appeals()).toEqual([expect.objectContaining({ decision_id: decisions[0], appellant: 'affected' })]);
  });

  it('refuses a second appeal while one waits (409), anyone else (404), a publisher key (403) and no credential (401)', async () => {
    const again = await writer.client.post(`/api/v1/decisions/${decisions[0]}/appeal`, { explanation: 'Once more, with feeling this time.' });
    expect(again.status).toBe(409);
    const other = await stranger.client.post(`/api/v1/decisions/${decisions[1]}/appeal`, { explanation: 'I have nothing to do with it.' });
    expect(other.status).toBe(404);
    const byPublisher = await pub.api.post(`/api/v1/decisions/${decisions[1]}/appeal`, { explanation: 'A publisher key is not a person.' });
    expect(byPublisher.status).toBe(403);
    expect(byPublisher.body.error.code).toBe('publisher_key_scope');
    const anon = await new Client(t.baseUrl).post(`/api/v1/decisions/${decisions[1]}/appeal`, { explanation: 'Nobody at all is asking.' });
    expect(anon.status).toBe(401);
    const short = await writer.client.post(`/api/v1/decisions/${decisions[1]}/appeal`, { explanation: 'no' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('explanation');
    expect(await appeals()).toHaveLength(1);
  });
});

describe('an appeal through the notifier’s mailed link', () => {
  const linkOf = async (to: string) => {
    const mail = await t.runtime.deps.db.selectFrom('mail_outbox').select('facts').where('kind', '=', 'statement_of_reasons').where('to_address', '=', to).executeTakeFirstOrThrow();
    const m = /\/decisions\/([0-9]+)\/appeal\?token=([A-Za-z0-9_-]+)/.exec(mail.facts);
    expect(m).not.toBeNull();
    return { decision: Number(m![1]), token: m![2]! };
  };

  it('is in the statement mailed to a notifier without an account, and opens the form without signing in', async () => {
    const link = await linkOf('anon2@mail.test');
    expect(link.decision).toBe(decisions[1]);
    const b = new FormClient(t.baseUrl);
    const form = await b.get(`/decisions/${link.decision}/appeal?token=${link.token}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('Why the decision should change');
    const sent = await b.post(`/decisions/${link.decision}/appeal`, { token: link.token, explanation: 'The review is harsh but names nobody’s private life.' });
    expect(sent.status, sent.text).toBe(303);
    expect((await appeals()).at(-1)).toEqual({ decision_id: decisions[1], account_id: null, appellant: 'notifier' });
  });

  it('works once, and only for its decision', async () => {
    const used = await linkOf('anon2@mail.test');
    const b = new FormClient(t.baseUrl);
    expect((await b.get(`/decisions/${used.decision}/appeal?token=${used.token}`)).status).toBe(403);
    const other = await linkOf('anon1@mail.test');
    expect((await b.get(`/decisions/${decisions[1]}/appeal?token=${other.token}`)).status).toBe(403);
    const page = await b.get(`/decisions/${other.decision}/appeal?token=${other.token}`);
    expect(page.status).toBe(200);
    const wrong = await b.post(`/decisions/${decisions[1]}/appeal`, { token: other.token, explanation: 'Trying a link for another decision.' });
    expect(wrong.status).toBe(403);
    expect((await b.get(`/decisions/${decisions[1]}/appeal?token=nonsense`)).status).toBe(403);
    expect(await appeals()).toHaveLength(2);
    // The link refused for another decision is still good for its own (an appeal already waits there: 409, unspent).
    await b.get(`/decisions/${other.decision}/appeal?token=${other.token}`);
    const own = await b.post(`/decisions/${other.decision}/appeal`, { token: other.token, explanation: 'My own decision, through my own link.' });
    expect(own.status).toBe(409);
    expect((await b.get(`/decisions/${other.decision}/appeal?token=${other.token}`)).status).toBe(200);
  });

  it('is refused after six months', async () => {
    t.clock.advanceDays(200);
    // The window is checked first: the answer is the closed window, not the appeal waiting.
    const res = await new Client(t.baseUrl).as(writerKey).post(`/api/v1/decisions/${decisions[1]}/appeal`, { explanation: 'Far too late to ask for this.' });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.message).toContain('The time to appeal this decision ended');
    expect(await appeals()).toHaveLength(2);
  });
});
