// Conflicts of interest of authorship: an author took the fact-check request on their own page, submitted, the
// publisher accepted, and the record said "Written by Priya · Fact-checked by Priya"; later, an author who took their
// name back did the same, and the record said "Fact-checked by Priya" alone. Now nobody who agreed to be named as a
// page's author (a claim confirmed, an authorship on its record, even one taken back since) takes a request on it,
// submits work on it, or has such work accepted: 403 `conflict_of_interest` with the reason in words. A person a
// claim names on the page answers it first: 409 `claim_pending`, saying so; a declined claim is no conflict, so
// naming a rival cannot lock them out. On /api/v1 and on the web forms; the web marketplace marks such requests with
// the reason instead of offering them. /v1 has no take or submit route: its requests and records show that nothing
// moved (the request stays open, the record names no author as checker). Both databases.
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
const FORMER = 'You were named as an author of this page, so you cannot fact-check it, even after taking your name back';
const PENDING = 'A publication named you as an author of this page: answer that claim first (decline it if you did not write the page), then you can fact-check it';

async function declineClaims(u: TestUser): Promise<void> {
  const claims = await u.client.get('/api/v1/account/claims?state=pending');
  for (const c of claims.body.data as { id: number }[]) expect((await u.client.post(`/api/v1/account/claims/${c.id}/decline`)).status).toBe(200);
}

/** The person takes their name back from their authorship of the page, as on /me/names. */
async function withdrawAuthorship(u: TestUser, url: string): Promise<void> {
  const record = await new Client(t.baseUrl).get(`/v1/pages/record?url=${encodeURIComponent(url)}`);
  const mine = (record.body.contributions as { id: string; role: string; contributor: string }[]).find((c) => c.role === 'author' && c.contributor === u.username)!;
  const done = await u.client.post(`/api/v1/account/contributions/${mine.id.replace(/^ctb_/, '')}/withdraw`);
  expect(done.status, done.text).toBe(200);
}
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

  it('a pending claim is answered first (409 claim_pending, on take, submit and accept); a declined one is no conflict', async () => {
    const pending = await signup(t);
    const a = await pageWithRequest([pending.username]);
    const res = await take(pending, a.requestId);
    expect(res.status, res.text).toBe(409);
    expect(res.body).toEqual({ success: false, error: { code: 'claim_pending', message: PENDING } });
    const sub = await pending.client.post('/api/v1/submissions', { url: a.url, role: 'fact_check', ...work });
    expect(sub.status, sub.text).toBe(409);
    expect(sub.body).toEqual({ success: false, error: { code: 'claim_pending', message: PENDING } });
    // Work submitted before the claim waits for the claim's answer too.
    const early = await signup(t);
    const c = await pageWithRequest([]);
    const before = await early.client.post('/api/v1/submissions', { url: c.url, role: 'fact_check', ...work });
    expect(before.status, before.text).toBe(201);
    expect((await p.api.post('/api/v1/pages', [{ url: c.url, authors: [early.username] }])).status).toBe(200);
    const accepted = await p.api.post('/api/v1/submissions/decide', { submission_id: before.body.data.id, decision: 'accept' });
    expect(accepted.status, accepted.text).toBe(409);
    expect(accepted.body.error.code).toBe('claim_pending');
    expect(accepted.body.error.message).toContain('once they decline it');
    // Declining the claim ends it: the work is accepted, and the person takes requests on the page.
    await declineClaims(early);
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: before.body.data.id, decision: 'accept' })).status).toBe(200);
    expect(await rolesOn(c.url)).toEqual([`fact_check ${early.username}`]);

    // A rival named on a page to lock them out declines, and checks it.
    const declined = await signup(t);
    const b = await pageWithRequest([declined.username]);
    await declineClaims(declined);
    expect((await take(declined, b.requestId)).status).toBe(200);
    const done = await declined.client.post('/api/v1/submissions', { request_id: b.requestId, ...work });
    expect(done.status, done.text).toBe(201);
    expect((await p.api.post('/api/v1/submissions/decide', { submission_id: done.body.data.id, decision: 'accept' })).status).toBe(200);
  });

  it('an author who took their name back still cannot take, submit or be accepted on the page', async () => {
    const priya = await signup(t);
    // Work submitted before she was named, then named, confirmed and taken back.
    const { url, requestId } = await pageWithRequest([]);
    const earlier = await priya.client.post('/api/v1/submissions', { url, role: 'review', ...work });
    expect(earlier.status, earlier.text).toBe(201);
    expect((await p.api.post('/api/v1/pages', [{ url, authors: [priya.username] }])).status).toBe(200);
    await confirmClaims(priya);
    await withdrawAuthorship(priya, url);
    expect(await rolesOn(url)).toEqual([]);

    const taken = await take(priya, requestId);
    expect(taken.status, taken.text).toBe(403);
    expect(taken.body).toEqual(refusal(FORMER));
    const sub = await priya.client.post('/api/v1/submissions', { url, role: 'fact_check', ...work });
    expect(sub.status, sub.text).toBe(403);
    expect(sub.body).toEqual(refusal(FORMER));
    const accepted = await p.api.post('/api/v1/submissions/decide', { submission_id: earlier.body.data.id, decision: 'accept' });
    expect(accepted.status, accepted.text).toBe(403);
    expect(accepted.body.error).toEqual({ code: 'conflict_of_interest', message: 'The contributor was named as an author of this page, so their work cannot be accepted as its review' });
    // The record names nobody as its checker; the request is open for someone else.
    expect(await rolesOn(url)).toEqual([]);
    expect((await t.runtime.deps.db.selectFrom('requests').select('status').where('id', '=', requestId).executeTakeFirstOrThrow()).status).toBe('open');
  });

  it('erasing the account removes what kept the conflict', async () => {
    const priya = await signup(t);
    const { url } = await pageWithRequest([priya.username]);
    await confirmClaims(priya);
    await withdrawAuthorship(priya, url);
    const kept = (table: 'author_claims' | 'withdrawn_contributions') =>
      t.runtime.deps.db.selectFrom(table).select('account_id').where('account_id', '=', priya.id).execute();
    expect(await kept('author_claims')).toHaveLength(1);
    expect(await kept('withdrawn_contributions')).toHaveLength(1);
    const erased = await priya.client.req('DELETE', '/api/v1/account', { body: { password: priya.password } });
    expect(erased.status, erased.text).toBe(200);
    expect(await kept('author_claims')).toEqual([]);
    expect(await kept('withdrawn_contributions')).toEqual([]);
  });

  it('work submitted before the person was named an author is not accepted as a check of their page', async () => {
    const late = await signup(t);
    const { url } = await pageWithRequest([]);
    const sub = await late.client.post('/api/v1/submissions', { url, role: 'fact_check', ...work });
    expect(sub.status, sub.text).toBe(201);
    const named = await p.api.post('/api/v1/pages', [{ url, title: 'Named later', topic: 'health', authors: [late.username] }]);
    expect(named.status, named.text).toBe(200);
    await confirmClaims(late);
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
    await confirmClaims(priya);
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
    await confirmClaims(priya);
    const takeForm = `action="/me/requests/${requestId}/take"`;
    const b = await signedIn(priya);
    for (const path of ['/me/requests', '/requests']) {
      const page = await b.get(path);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`${FACT_CHECK}.`);
      expect(page.text).not.toContain(takeForm);
    }
    // Asked and not answered: the note says so, and where to answer.
    const asked = await signup(t);
    const pendingOne = await pageWithRequest([asked.username]);
    const ba = await signedIn(asked);
    const market = await ba.get('/requests');
    expect(market.text).toContain(`${PENDING}. <a href="/me/names">Your claims</a>`);
    expect(market.text).not.toContain(`action="/me/requests/${pendingOne.requestId}/take"`);
    await ba.get('/me/requests');
    const refused = await ba.post(`/me/requests/${pendingOne.requestId}/take`, {});
    expect(refused.status).toBe(409);
    expect(refused.text).toContain(PENDING);
    // Named once, taken back: still not offered, and the note says why.
    const former = await signup(t);
    const formerOne = await pageWithRequest([former.username]);
    await confirmClaims(former);
    await withdrawAuthorship(former, formerOne.url);
    const bf = await signedIn(former);
    const theirs = await bf.get('/requests');
    expect(theirs.text).toContain(`${FORMER}.`);
    expect(theirs.text).not.toContain(`action="/me/requests/${formerOne.requestId}/take"`);

    // Anyone else is offered it.
    const other = await signedIn(await signup(t));
    const offered = await other.get('/me/requests');
    expect(offered.text).toContain(takeForm);
    expect(offered.text).not.toContain(FACT_CHECK);
  });
});
