// Conflicts of interest of authorship: an author took the fact-check request on their own page, submitted, the
// publisher accepted, and the record said "Written by Priya · Fact-checked by Priya". Now nobody named as a page's
// author (a claim pending or confirmed, or an authorship on its record) takes a request on it, submits work on it, or
// has such work accepted: 403 `conflict_of_interest` with the reason in words, on /api/v1 and on the web forms; the
// web marketplace marks such requests with the reason instead of offering them. /v1 has no take or submit route: its
// requests and records show that nothing moved (the request stays open, the record names no author as checker).
// Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';

let t: TestApp;
let p: TestPublisher;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  p = await publisher(t);
});
afterAll(async () => t?.close());

let n = 0;
/** A page naming `authors`, and a fact-check request on it. */
async function pageWithRequest(authors: string[]): Promise<{ url: string; pageId: number; requestId: number }> {
  const url = `https://${p.domain}/coi-${++n}`;
  const reg = await p.api.post('/api/v1/pages', [{ url, title: `Page ${n}`, topic: 'health', authors }]);
  expect(reg.status, reg.text).toBe(200);
  const req = await p.api.post('/api/v1/requests', { url, request_type: 'fact_checker', title: `Check ${n}`, topic: 'health' });
  expect(req.status, req.text).toBe(201);
  return { url, pageId: reg.body.data.results[0].id, requestId: req.body.data.id };
}
const take = (u: TestUser, id: number) => u.client.post(`/api/v1/review-requests/${id}/take`);
const work = { summary: 'Checked the figures', evidence: { reason: 'Compared with the source', sources: ['https://stats.example/t1'] } };
const refusal = (message: string) => ({ success: false, error: { code: 'conflict_of_interest', message } });
const FACT_CHECK = 'You are named as an author of this page, so you cannot fact-check it';
/** The page's record on /v1, as `role username` per contribution (none: no record yet, 404 in /v1's envelope). */
async function rolesOn(url: string): Promise<string[]> {
  const res = await new Client(t.baseUrl).get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
  if (res.status === 404) {
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    return [];
  }
  expect(res.status, res.text).toBe(200);
  return (res.body.contributions as { role: string; contributor: string }[]).map((c) => `${c.role} ${c.contributor}`).sort();
}

async function signedIn(u: TestUser): Promise<FormClient> {
  const b = new FormClient(t.baseUrl);
  await b.get('/login');
  expect((await b.post('/login', { email: u.email, password: u.password })).status).toBe(303);
  return b;
}

describe('an author of a page cannot check it', () => {
  it('a confirmed author cannot take the fact-check request on their page, nor submit work on it, asked or not', async () => {
    const priya = await signup(t);
    const { url, requestId } = await pageWithRequest([priya.username]);
    await confirmClaims(priya);
    const taken = await take(priya, requestId);
    expect(taken.status, taken.text).toBe(403);
    expect(taken.body).toEqual(refusal(FACT_CHECK));
    expect((await t.runtime.deps.db.selectFrom('requests').select('status').where('id', '=', requestId).executeTakeFirstOrThrow()).status).toBe('open');

    for (const [role, verb] of [['fact_check', 'fact-check'], ['review', 'review'], ['edit', 'edit'], ['correction', 'correct'], ['source', 'add sources to']] as const) {
      const body = role === 'correction' ? { ...work, evidence: { ...work.evidence, before: 'a', after: 'b' } } : work;
      const sub = await priya.client.post('/api/v1/submissions', { url, role, ...body });
      expect(sub.status, sub.text).toBe(403);
      expect(sub.body).toEqual(refusal(`You are named as an author of this page, so you cannot ${verb} it`));
    }
    // /v1: the publisher's request is still open, taken by nobody.
    const listed = await p.api.get('/v1/requests?per_page=100');
    expect(listed.status, listed.text).toBe(200);
    expect((listed.body.data as { id: string }[]).find((r) => r.id === `req_${requestId}`)).toMatchObject({ status: 'open', taken_by: null });

    // Someone else takes it and submits as before, and the record names each for what they did.
    const other = await signup(t);
    expect((await take(other, requestId)).status).toBe(200);
    const sub = await other.client.post('/api/v1/submissions', { request_id: requestId, ...work });
    expect(sub.status, sub.text).toBe(201);
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' })).status).toBe(200);
    expect(await rolesOn(url)).toEqual([`author ${priya.username}`, `fact_check ${other.username}`].sort());
  });

  it('a pending claim names them too; a declined one does not', async () => {
    const pending = await signup(t);
    const a = await pageWithRequest([pending.username]);
    const res = await take(pending, a.requestId);
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe('conflict_of_interest');

    const declined = await signup(t);
    const b = await pageWithRequest([declined.username]);
    const claims = await declined.client.get('/api/v1/account/claims?state=pending');
    for (const c of claims.body.data as { id: number }[]) expect((await declined.client.post(`/api/v1/account/claims/${c.id}/decline`)).status).toBe(200);
    expect((await take(declined, b.requestId)).status).toBe(200);
  });

  it('work submitted before the person was named an author is not accepted as a check of their page', async () => {
    const late = await signup(t);
    const { url } = await pageWithRequest([]);
    const sub = await late.client.post('/api/v1/submissions', { url, role: 'fact_check', ...work });
    expect(sub.status, sub.text).toBe(201);
    const named = await p.api.post('/api/v1/pages', [{ url, title: 'Named later', topic: 'health', authors: [late.username] }]);
    expect(named.status, named.text).toBe(200);
    const decided = await p.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    expect(decided.status, decided.text).toBe(403);
    expect(decided.body.error.code).toBe('conflict_of_interest');
    expect(decided.body.error.message).toContain('named as an author of this page');
    // Rejecting it is still the publisher's to do; the /v1 record never says they checked their own page.
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'reject' })).status).toBe(200);
    expect(await rolesOn(url)).not.toContain(`fact_check ${late.username}`);
  });

  it('the web forms say why in words', async () => {
    const priya = await signup(t);
    const { url, requestId } = await pageWithRequest([priya.username]);
    const b = await signedIn(priya);
    await b.get('/me/requests');
    const page = await b.post(`/me/requests/${requestId}/take`, {});
    expect(page.status).toBe(403);
    expect(page.text).toContain(FACT_CHECK);
    await b.get('/me/submit');
    const form = await b.post('/me/submissions', { url, role: 'fact_check', summary: work.summary, reason: work.evidence.reason, sources: '' });
    expect(form.status).toBe(403);
    expect(form.text).toContain(FACT_CHECK);
  });

  it('the marketplace marks their requests with the reason instead of a Take button', async () => {
    const priya = await signup(t);
    const { requestId } = await pageWithRequest([priya.username]);
    const takeForm = `action="/me/requests/${requestId}/take"`;
    const b = await signedIn(priya);
    for (const path of ['/me/requests', '/requests']) {
      const page = await b.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`${FACT_CHECK}.`);
      expect(page.text).not.toContain(takeForm);
    }
    // Anyone else is offered it.
    const other = await signedIn(await signup(t));
    const offered = await other.get('/me/requests');
    expect(offered.text).toContain(takeForm);
    expect(offered.text).not.toContain(FACT_CHECK);
  });
});
