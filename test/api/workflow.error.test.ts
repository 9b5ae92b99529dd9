// Every refused move of SPEC §4, and bad input on the workflow routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pubA: TestPublisher;
let pubB: TestPublisher;
let alice: TestUser;
let bob: TestUser;
let anon: Client;
let n = 0;

beforeAll(async () => {
  // One specialist takes a fresh request for many cases here; the cap on requests held has its own test
  // (requests.holding.test.ts).
  t = await startTestApp({ requestsHeldPerAccount: 1000 });
  [pubA, pubB, alice, bob] = await Promise.all([publisher(t), publisher(t), signup(t), signup(t)]);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

async function request(pub = pubA, type = 'reviewer') {
  const res = await pub.api.post('/api/v1/requests', { url: `https://${pub.domain}/p/${++n}`, request_type: type });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

async function pendingSubmission(pub = pubA, by = alice) {
  const url = `https://${pub.domain}/s/${++n}`;
  await pub.api.post('/api/v1/pages', { url, title: 'S' });
  const res = await by.client.post('/api/v1/submissions', { url, role: 'review', summary: 's', evidence: { reason: 'r', sources: [] } });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

const decide = (pub: TestPublisher, id: number, decision = 'accept') => pub.api.post('/api/v1/submissions/decide', { submission_id: id, decision });

describe('refused state moves', () => {
  it('taking a taken request is 409', async () => {
    const id = await request();
    expect((await alice.client.post(`/api/v1/review-requests/${id}/take`)).status).toBe(200);
    const again = await bob.client.post(`/api/v1/review-requests/${id}/take`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('taken') });
  });

  it('taking a cancelled or fulfilled request is 409; an unknown one 404', async () => {
    const id = await request();
    await pubA.api.post(`/api/v1/requests/${id}/cancel`);
    expect((await alice.client.post(`/api/v1/review-requests/${id}/take`)).status).toBe(409);
    expect((await alice.client.post('/api/v1/review-requests/999999/take')).status).toBe(404);
  });

  it('only the taker releases, and only a taken request', async () => {
    const id = await request();
    expect((await alice.client.post(`/api/v1/review-requests/${id}/release`)).status).toBe(409);
    await alice.client.post(`/api/v1/review-requests/${id}/take`);
    expect((await bob.client.post(`/api/v1/review-requests/${id}/release`)).status).toBe(403);
  });

  it('release waits for a pending submission to be withdrawn', async () => {
    const id = await request();
    await alice.client.post(`/api/v1/review-requests/${id}/take`);
    await alice.client.post('/api/v1/submissions', { request_id: id, summary: 's', evidence: { reason: 'r', sources: [] } });
    const res = await alice.client.post(`/api/v1/review-requests/${id}/release`);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('withdraw it first');
  });

  it('submitting on a request not taken by the caller is 409', async () => {
    const id = await request();
    const open = await alice.client.post('/api/v1/submissions', { request_id: id, summary: 's', evidence: { reason: 'r', sources: [] } });
    expect(open.status).toBe(409);
    await bob.client.post(`/api/v1/review-requests/${id}/take`);
    const other = await alice.client.post('/api/v1/submissions', { request_id: id, summary: 's', evidence: { reason: 'r', sources: [] } });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toContain('someone else');
  });

  it('a role other than the request’s is 400', async () => {
    const id = await request(pubA, 'editor');
    await alice.client.post(`/api/v1/review-requests/${id}/take`);
    const res = await alice.client.post('/api/v1/submissions', { request_id: id, role: 'review', summary: 's', evidence: { reason: 'r', sources: [] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('role');
  });

  it('deciding a withdrawn submission is 409 already_decided', async () => {
    const id = await pendingSubmission();
    expect((await alice.client.post(`/api/v1/submissions/${id}/withdraw`)).status).toBe(200);
    const res = await decide(pubA, id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_decided');
  });

  it('withdrawing an accepted submission is 409 already_decided; nothing changes', async () => {
    const id = await pendingSubmission();
    expect((await decide(pubA, id)).status).toBe(200);
    const res = await alice.client.post(`/api/v1/submissions/${id}/withdraw`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('already_decided');
    const own = await alice.client.get('/api/v1/submissions?status=accepted');
    expect(own.body.data.some((s: { id: number }) => s.id === id)).toBe(true);
  });

  it('deciding twice is 409; a rejected submission cannot be accepted later', async () => {
    const id = await pendingSubmission();
    expect((await decide(pubA, id, 'reject')).status).toBe(200);
    const again = await decide(pubA, id, 'accept');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_decided');
  });

  it('cancelling a fulfilled request is 409', async () => {
    const id = await request();
    await alice.client.post(`/api/v1/review-requests/${id}/take`);
    const sub = await alice.client.post('/api/v1/submissions', { request_id: id, summary: 's', evidence: { reason: 'r', sources: [] } });
    await decide(pubA, sub.body.data.id);
    expect((await pubA.api.post(`/api/v1/requests/${id}/cancel`)).status).toBe(409);
  });
});

describe('who may do what', () => {
  it('nobody decides their own submission', async () => {
    const id = await pendingSubmission(pubA, pubA.owner);
    const res = await decide(pubA, id);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('own submission');
  });

  it('publisher A cannot decide, see or cancel publisher B’s work (404)', async () => {
    const id = await pendingSubmission(pubB);
    const res = await decide(pubA, id);
    expect(res.status).toBe(404);
    const inbox = await pubA.api.get('/api/v1/publisher-auth/requests');
    expect(inbox.body.data.some((s: { id: number }) => s.id === id)).toBe(false);
    const reqB = await request(pubB);
    expect((await pubA.api.post(`/api/v1/requests/${reqB}/cancel`)).status).toBe(404);
    const byRef = await pubA.api.post('/api/v1/requests', { article_ref_id: (await pubB.api.post('/api/v1/pages', { url: `https://${pubB.domain}/ref` })).body.data.id, request_type: 'reviewer' });
    expect(byRef.status).toBe(404);
  });

  it('a contributor key cannot decide or open requests; a publisher key cannot take or submit', async () => {
    const ck = new Client(t.baseUrl).as(await contributorKey(alice));
    const id = await pendingSubmission(pubA, bob);
    expect((await ck.post('/api/v1/submissions/decide', { submission_id: id, decision: 'accept' })).status).toBe(403);
    expect((await ck.post('/api/v1/requests', { url: `https://${pubA.domain}/x`, request_type: 'reviewer' })).status).toBe(403);
    const reqId = await request();
    const take = await pubA.api.post(`/api/v1/review-requests/${reqId}/take`);
    expect(take.status).toBe(403);
    expect(take.body.error.code).toBe('publisher_key_scope');
    const submit = await pubA.api.post('/api/v1/submissions', { url: `https://${pubA.domain}/s/1`, role: 'review', summary: 's', evidence: { reason: 'r', sources: [] } });
    expect(submit.status).toBe(403);
  });

  it('another contributor cannot withdraw my submission (404)', async () => {
    const id = await pendingSubmission(pubA, alice);
    expect((await bob.client.post(`/api/v1/submissions/${id}/withdraw`)).status).toBe(404);
  });

  it('only the submitter reads a submission by id: anyone else, the page’s publisher key included, is refused', async () => {
    const id = await pendingSubmission(pubA, alice);
    const mine = await alice.client.get(`/api/v1/submissions/${id}`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data).toMatchObject({ id, status: 'pending', role: 'review', decision: null });
    const other = await bob.client.get(`/api/v1/submissions/${id}`);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('"reason"');
    // A publisher key acts for its publication only: it reads the work in its inbox, not here.
    expect((await pubA.api.get(`/api/v1/submissions/${id}`)).status).toBe(403);
    expect((await anon.get(`/api/v1/submissions/${id}`)).status).toBe(401);
    expect((await alice.client.get('/api/v1/submissions/999999')).status).toBe(404);
  });

  it('a session of a non-member has no inbox', async () => {
    const res = await bob.client.get('/api/v1/publisher-auth/requests');
    expect(res.status).toBe(403);
  });
});

describe('bad input', () => {
  it.each([
    [{ role: 'correction', summary: 's', evidence: { before: 'a', reason: 'r', sources: [] } }, 'evidence.after'],
    [{ role: 'correction', summary: 's', evidence: { after: 'b', reason: 'r', sources: [] } }, 'evidence.before'],
    [{ role: 'review', summary: 's', evidence: { reason: 'r', sources: ['javascript:alert(1)'] } }, 'evidence.sources.0'],
    [{ role: 'review', summary: 's', evidence: { reason: '', sources: [] } }, 'evidence.reason'],
    [{ role: 'review', summary: 's', evidence: { reason: 'r' } }, 'evidence.sources'],
    [{ role: 'author', summary: 's', evidence: { reason: 'r', sources: [] } }, 'role'],
    [{ summary: 's', evidence: { reason: 'r', sources: [] } }, 'role'],
    [{ role: 'review', evidence: { reason: 'r', sources: [] } }, 'summary'],
    [{ role: 'review', summary: 's', evidence: { reason: 'r', sources: [], extra: 1 } }, 'evidence.extra'],
  ])('submission %j → 400 naming %s', async (body, field) => {
    const url = `https://${pubA.domain}/bad/${++n}`;
    await pubA.api.post('/api/v1/pages', { url });
    const res = await alice.client.post('/api/v1/submissions', { url, ...body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('work on an unregistered page is 404', async () => {
    const res = await alice.client.post('/api/v1/submissions', { url: 'https://nowhere.example/x', role: 'review', summary: 's', evidence: { reason: 'r', sources: [] } });
    expect(res.status).toBe(404);
  });

  it('a request names its page by url or article_ref_id, not both, not neither', async () => {
    const both = await pubA.api.post('/api/v1/requests', { url: `https://${pubA.domain}/both`, article_ref_id: 1, request_type: 'reviewer' });
    expect(both.status).toBe(400);
    const neither = await pubA.api.post('/api/v1/requests', { request_type: 'reviewer' });
    expect(neither.status).toBe(400);
    expect(neither.body.error.code).toBe('missing_parameter');
  });

  it('refuses unknown request types, listing the allowed ones, in batches per item', async () => {
    const res = await pubA.api.post('/api/v1/requests', [
      { url: `https://${pubA.domain}/t/1`, request_type: 'review' },
      { url: `https://${pubA.domain}/t/2`, request_type: 'fact_checker' },
    ]);
    expect(res.body.data.summary).toEqual({ created: 1, updated: 0, skipped: 0, failed: 1 });
    expect(res.body.data.results[0].error.details[0]).toEqual({
      field: 'request_type',
      message: 'must be one of: reviewer, fact_checker, editor, correction, source',
    });
    const market = await anon.get('/api/v1/review-requests?type=review');
    expect(market.status).toBe(400);
    expect(market.body.error.details[0].field).toBe('type');
  });

  it('refuses 501 decisions as a whole', async () => {
    const res = await pubA.api.post('/api/v1/submissions/decide', Array.from({ length: 501 }, (_, i) => ({ submission_id: i + 1, decision: 'reject' })));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('500');
  });
});
