// A suspended account (an operator's decision on a report) can sign in, read, sign out and appeal; every other
// write, by key, by session or by a page's form, answers 403 account_suspended and changes nothing. An appeal that
// reverses the decision, or the end of the suspension, lets it write again; nobody else is touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { webAdmin, webUser, type WebUser } from '../web/dashboard.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let person: WebUser;
let personId: number;
let key: string;
let opsA: WebUser;
let opsB: WebUser;
let decisionId: number;

const idOf = async (username: string) => (await t.runtime.deps.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;
const summary = async () => (await t.runtime.deps.db.selectFrom('accounts').select('summary').where('id', '=', personId).executeTakeFirstOrThrow()).summary;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
  person = await webUser(t, 'Sid Suspended');
  personId = await idOf(person.username);
  key = await contributorKey({ client: person.api } as never);
  expect((await person.api.patch('/api/v1/account/profile', { summary: 'Harasses people in reviews.' })).status).toBe(200);
  opsA = await webAdmin(t);
  opsB = await webAdmin(t);
  const r = await moderation.submitReport(t.runtime.deps, { item: { kind: 'profile', id: personId, field: 'summary' }, category: 'STATEMENT_CATEGORY_CYBER_VIOLENCE', explanation: 'The account uses reviews to target one person.', good_faith: true, locale: 'en' }, null);
  decisionId = (await moderation.decideReport(t.runtime.deps, await idOf(opsA.username), r.id, { type: 'suspend_account', ground: 'incompatible', terms_clause: 't5', facts: 'Twelve reviews in a week, each about one journalist.' })).id;
});
afterAll(async () => t?.close());

describe('a suspended account', () => {
  it('is refused every write with 403 account_suspended, by key, session and form, and nothing changes', async () => {
    const url = `https://${pub.domain}/target`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'Target', topic: 'politics' })).status).toBeLessThan(300);
    const byKey = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'review', summary: 'Another one', evidence: { reason: 'x', sources: ['https://archive.example/x'] } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe('account_suspended');
    expect(byKey.body.error.message).toMatch(/suspended until 20\d\d-/);
    const bySession = await person.api.patch('/api/v1/account/profile', { summary: 'Changed while suspended' });
    expect(bySession.status).toBe(403);
    expect(bySession.body.error.code).toBe('account_suspended');
    const keyMade = await person.api.post('/api/v1/account/api-keys', { name: 'another' });
    expect(keyMade.status).toBe(403);
    await person.b.get('/me/profile');
    const form = await person.b.post('/me/profile', { name: 'Sid', summary: 'Changed by the form', topics: '' });
    expect(form.status).toBe(403);
    expect(form.text).toContain('suspended');
    expect(await summary()).toBe('Harasses people in reviews.');
    expect(await t.runtime.deps.db.selectFrom('submissions').select('id').execute()).toEqual([]);
  });

  it('can still sign in, read and appeal', async () => {
    expect((await person.api.get('/api/v1/whoami')).status).toBe(200);
    expect((await person.api.get('/api/v1/account/export')).status).toBe(200);
    const login = await new Client(t.baseUrl).post('/api/v1/auth/login', { email: person.email, password: 'long enough password' });
    expect(login.status).toBe(200);
    await person.b.get(`/decisions/${decisionId}/appeal`);
    const appealed = await person.b.post(`/decisions/${decisionId}/appeal`, { explanation: 'The reviews were about one newsroom’s work, not a person.' });
    expect(appealed.status, appealed.text).toBe(303);
    expect((await new Client(t.baseUrl).as(login.body.data.token).post('/api/v1/auth/logout')).status).toBe(200);
  });

  it('does not touch anyone else', async () => {
    const other = await signup(t);
    expect((await other.client.patch('/api/v1/account/profile', { summary: 'Unaffected' })).status).toBe(200);
  });

  it('writes again once an appeal reverses the suspension', async () => {
    const appeal = await t.runtime.deps.db.selectFrom('appeals').select('id').where('decision_id', '=', decisionId).executeTakeFirstOrThrow();
    await moderation.decideAppeal(t.runtime.deps, await idOf(opsB.username), appeal.id, { outcome: 'reversed', facts: 'The reviews discuss the newsroom’s published work.' });
    expect((await person.api.patch('/api/v1/account/profile', { summary: 'Writes again' })).status).toBe(200);
  });

  it('writes again once the suspension has run out', async () => {
    const r = await moderation.submitReport(t.runtime.deps, { item: { kind: 'profile', id: personId, field: 'summary' }, category: 'STATEMENT_CATEGORY_CYBER_VIOLENCE', explanation: 'Again the same pattern of reviews.', good_faith: true, locale: 'en' }, null);
    await moderation.decideReport(t.runtime.deps, await idOf(opsA.username), r.id, { type: 'suspend_account', ground: 'incompatible', terms_clause: 't5', facts: 'Eight more reviews about one journalist.' });
    expect((await person.api.patch('/api/v1/account/profile', { summary: 'Too soon' })).status).toBe(403);
    t.clock.advanceDays(91);
    // A session lasts 30 days: a new one, 91 days on.
    const login = await new Client(t.baseUrl).post('/api/v1/auth/login', { email: person.email, password: 'long enough password' });
    expect((await new Client(t.baseUrl).as(login.body.data.token).patch('/api/v1/account/profile', { summary: 'After the suspension' })).status).toBe(200);
  });
});
