// The work itself (SPEC §4): a publisher asks, a specialist takes and submits, the publisher decides, and the
// accepted work becomes the public record everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

const events = async (type: string) =>
  (await t.runtime.deps.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('id').execute()).map((e) => ({
    ...e,
    payload: JSON.parse(e.payload),
  }));

async function openRequest(body: Record<string, unknown>) {
  const res = await pub.api.post('/api/v1/requests', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

const correction = (over: Record<string, unknown> = {}) => ({
  summary: 'Fixed the vaccination rate',
  evidence: { before: 'Rates fell to 70%.', after: 'Rates fell to 79%.', reason: 'The CDC table says 79%.', sources: ['https://www.cdc.gov/table'] },
  ...over,
});

describe('a correction from request to public record', () => {
  let specialist: TestUser;
  let requestId: number;
  let submissionId: number;
  const url = () => `https://${pub.domain}/health/measles`;

  it('the publisher opens a request (the page is registered first)', async () => {
    requestId = await openRequest({ url: url(), request_type: 'correction', topic: 'Health', title: 'Check the figures', brief: 'Numbers look off' });
    const market = await anon.get('/api/v1/review-requests?topic=health&type=correction');
    expect(market.body.data).toContainEqual(
      expect.objectContaining({ id: requestId, request_type: 'correction', status: 'open', topic: 'health', title: 'Check the figures', taken_by: null }),
    );
    expect((await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url())}`)).body.data.registered).toBe(true);
  });

  it('a specialist takes it (request.taken)', async () => {
    specialist = await signup(t, { name: 'Dr. Ada Specialist' });
    const take = await specialist.client.post(`/api/v1/review-requests/${requestId}/take`);
    expect(take.status, take.text).toBe(200);
    expect(take.body.data).toMatchObject({ status: 'taken', taken_by: specialist.username });
    const [taken] = (await events('request.taken')).filter((e) => e.payload.request.id === requestId);
    expect(taken?.payload).toMatchObject({ request: { status: 'taken', taken_by: specialist.username }, page: { url: url() } });
    const market = await anon.get('/api/v1/review-requests?type=correction');
    expect(market.body.data.find((r: { id: number }) => r.id === requestId)).toBeUndefined();
  });

  it('the specialist submits a correction with evidence (contribution.submitted, submission.received)', async () => {
    const res = await specialist.client.post('/api/v1/submissions', correction({ request_id: requestId }));
    expect(res.status, res.text).toBe(201);
    submissionId = res.body.data.id;
    for (const type of ['contribution.submitted', 'submission.received']) {
      const e = (await events(type)).find((x) => x.payload.submission.id === submissionId);
      expect(e?.payload).toMatchObject({ submission: { kind: 'correction', request_id: requestId }, contributor: { username: specialist.username } });
    }
    const own = await specialist.client.get('/api/v1/submissions?status=pending');
    expect(own.body.data[0]).toMatchObject({ id: submissionId, status: 'pending', role: 'correction', decision: null });
  });

  it('nothing pending is public', async () => {
    // Registered, with pending work only: no record yet on either surface.
    const v1 = await anon.get(`/v1/pages/record?url=${encodeURIComponent(url())}`);
    expect(v1.status, v1.text).toBe(404);
    const lookup = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url())}`);
    expect(lookup.body.data).toMatchObject({ has_record: false, registered: true });
  });

  it('the publisher reads the inbox with the evidence and accepts', async () => {
    const inbox = await pub.api.get('/api/v1/publisher-auth/requests?status=pending');
    expect(inbox.status).toBe(200);
    expect(inbox.body.data[0]).toMatchObject({
      id: submissionId,
      contributor: { username: specialist.username },
      evidence: { before: 'Rates fell to 70%.', after: 'Rates fell to 79%.', sources: ['https://www.cdc.gov/table'] },
    });
    const decide = await pub.api.post('/api/v1/submissions/decide', { submission_id: submissionId, decision: 'accept', note: 'Thanks' });
    expect(decide.status, decide.text).toBe(200);
    expect(decide.body.data).toMatchObject({ index: 0, status: 'created', submission_id: submissionId });
    expect(decide.body.data.proof_url).toBe(`https://credence.test/proofs/${decide.body.data.contribution_id}`);
    const accepted = (await events('contribution.accepted')).find((e) => e.payload.submission.id === submissionId);
    expect(accepted?.payload.contribution).toMatchObject({ role: 'correction', change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' } });
  });

  it('fulfils the request and shows the work at once in every public place', async () => {
    const r = await anon.get(`/api/v1/review-requests/${requestId}`);
    expect(r.body.data.status).toBe('fulfilled');
    const v1 = await anon.get(`/v1/pages/record?url=${encodeURIComponent(url())}`);
    expect(v1.body.contributions).toEqual([
      expect.objectContaining({
        role: 'correction',
        name: 'Dr. Ada Specialist',
        accepted: '2026-11-21',
        change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' },
      }),
    ]);
    const lookup = await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url())}`);
    expect(lookup.body.data.has_record).toBe(true);
    const entry = lookup.body.data.contributors.correction[0];
    expect(entry).toMatchObject({ username: specialist.username, summary: 'Fixed the vaccination rate', level: 'newcomer', trust_score: 0.21 });
    const proof = await anon.get(new URL(entry.proof_url).pathname);
    expect(proof.status, proof.text).toBe(200);
    expect(proof.body).toMatchObject({
      role: 'correction',
      contributor: { username: specialist.username },
      evidence: { reason: 'The CDC table says 79%.', sources: ['https://www.cdc.gov/table'] },
      decision: { decision: 'accept', note: 'Thanks', decided_at: '2026-11-21T10:00:00.000Z' },
    });
    const record = await anon.get(new URL(lookup.body.data.record_url).pathname);
    expect(record.body.contributors.correction[0].username).toBe(specialist.username);
  });

  it('updates the contributor’s profiles on both surfaces', async () => {
    const profile = await anon.get(`/api/v1/contributors/${specialist.username}`);
    expect(profile.body.data).toMatchObject({
      username: specialist.username,
      trust_score: 0.21,
      contribution_score: 5,
      accepted_count: 1,
      topics: [{ topic: 'health', authority: 0.05, accepted: 1 }],
    });
    expect(profile.body.data.contributions[0]).toMatchObject({ role: 'correction', page: { url: url() }, publisher: { slug: pub.slug } });
    const byId = await anon.get(`/v1/contributors/${specialist.id}`);
    const byName = await anon.get(`/v1/contributors/${specialist.username}`);
    expect(byId.body).toEqual(byName.body);
    expect(byId.body).toMatchObject({ id: String(specialist.id), name: 'Dr. Ada Specialist', contribution_score: 5, trust_score: 0.21 });
    expect(byId.body.contributions[0]).toMatchObject({ role: 'correction', change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' } });
    const own = await specialist.client.get('/api/v1/submissions');
    expect(own.body.data[0].decision).toEqual({ decision: 'accept', note: 'Thanks', decided_at: '2026-11-21T10:00:00.000Z' });
  });
});

describe('rejection, withdrawal and release reopen the request', () => {
  it('rejecting records the note, reopens the request and counts against trust', async () => {
    const specialist = await signup(t);
    const requestId = await openRequest({ url: `https://${pub.domain}/rejected`, request_type: 'reviewer' });
    await specialist.client.post(`/api/v1/review-requests/${requestId}/take`);
    const sub = await specialist.client.post('/api/v1/submissions', { request_id: requestId, summary: 'Reviewed', evidence: { reason: 'Read it', sources: [] } });
    expect(sub.status, sub.text).toBe(201);
    const res = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'reject', note: 'Too thin' });
    expect(res.body.data).toMatchObject({ status: 'updated', submission_id: sub.body.data.id });
    expect((await anon.get(`/api/v1/review-requests/${requestId}`)).body.data).toMatchObject({ status: 'open', taken_by: null });
    const own = await specialist.client.get('/api/v1/submissions');
    expect(own.body.data[0]).toMatchObject({ status: 'rejected', decision: { decision: 'reject', note: 'Too thin' } });
    const profile = await anon.get(`/api/v1/contributors/${specialist.username}`);
    expect(profile.body.data).toMatchObject({ trust_score: 0, accepted_count: 0 });
  });

  it('withdrawing reopens the request (contribution.withdrawn)', async () => {
    const specialist = await signup(t);
    const requestId = await openRequest({ url: `https://${pub.domain}/withdrawn`, request_type: 'editor' });
    await specialist.client.post(`/api/v1/review-requests/${requestId}/take`);
    const sub = await specialist.client.post('/api/v1/submissions', { request_id: requestId, summary: 'Tightened', evidence: { reason: 'Wordy', sources: [] } });
    const w = await specialist.client.post(`/api/v1/submissions/${sub.body.data.id}/withdraw`);
    expect(w.status).toBe(200);
    expect(w.body.data.status).toBe('withdrawn');
    expect((await anon.get(`/api/v1/review-requests/${requestId}`)).body.data.status).toBe('open');
    expect((await events('contribution.withdrawn')).some((e) => e.payload.submission.id === sub.body.data.id)).toBe(true);
  });

  it('releasing gives the request back', async () => {
    const specialist = await signup(t);
    const requestId = await openRequest({ url: `https://${pub.domain}/released`, request_type: 'source' });
    await specialist.client.post(`/api/v1/review-requests/${requestId}/take`);
    const rel = await specialist.client.post(`/api/v1/review-requests/${requestId}/release`);
    expect(rel.status).toBe(200);
    expect(rel.body.data).toMatchObject({ status: 'open', taken_by: null });
  });

  it('the publisher cancels an open request', async () => {
    const requestId = await openRequest({ url: `https://${pub.domain}/cancelled`, request_type: 'fact_checker' });
    const res = await pub.api.post(`/api/v1/requests/${requestId}/cancel`);
    expect(res.body.data.status).toBe('cancelled');
  });
});

describe('unasked work, keys and batches', () => {
  it('takes unasked work with a contributor key, by URL or by article id', async () => {
    const contributor = await signup(t);
    const key = await contributorKey(contributor);
    const page = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/unasked`, title: 'Unasked', topic: 'science' });
    const api = new Client(t.baseUrl).as(key);
    const byUrl = await api.post('/api/v1/submissions', { url: `https://${pub.domain}/unasked/`, role: 'source', summary: 'Added a source', evidence: { reason: 'Primary data', sources: ['https://data.example/x'] } });
    expect(byUrl.status, byUrl.text).toBe(201);
    const byId = await api.post('/api/v1/submissions', { article_ref_id: page.body.data.id, role: 'fact_check', summary: 'Checked', evidence: { reason: 'All good', sources: [] } });
    expect(byId.status, byId.text).toBe(201);
  });

  it('decides a batch item by item, 409 already_decided per item', async () => {
    const contributor = await signup(t);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/batch-decide`, title: 'Batch' });
    const subs = await contributor.client.post(
      '/api/v1/submissions',
      [1, 2, 3].map((i) => ({ url: `https://${pub.domain}/batch-decide`, role: 'review', summary: `Review ${i}`, evidence: { reason: 'r', sources: [] } })),
    );
    expect(subs.body.data.summary.created).toBe(3);
    const [a, b, c] = subs.body.data.results.map((r: { id: number }) => r.id);
    const res = await pub.api.post('/api/v1/submissions/decide', [
      { submission_id: a, decision: 'accept' },
      { submission_id: b, decision: 'reject', note: 'dup' },
      { submission_id: a, decision: 'reject' },
      { submission_id: 99999999, decision: 'accept' },
      { submission_id: c, decision: 'maybe' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual(['created', 'updated', 'failed', 'failed', 'failed']);
    expect(res.body.data.results[2].error.code).toBe('already_decided');
    expect(res.body.data.results[3].error.code).toBe('not_found');
    expect(res.body.data.results[4].error.details[0]).toEqual({ field: 'decision', message: 'must be one of: accept, reject' });
    expect(res.body.data.summary).toEqual({ created: 1, updated: 1, skipped: 0, failed: 3 });
  });

  it('lets a member decide with a session', async () => {
    const contributor = await signup(t);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/session-decide`, title: 'S' });
    const sub = await contributor.client.post('/api/v1/submissions', { url: `https://${pub.domain}/session-decide`, role: 'edit', summary: 'e', evidence: { reason: 'r', sources: [] } });
    const res = await pub.owner.client.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    expect(res.status, res.text).toBe(200);
  });

  it('makes exactly one contribution from two concurrent accepts', async () => {
    const contributor = await signup(t);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/race`, title: 'Race' });
    const sub = await contributor.client.post('/api/v1/submissions', { url: `https://${pub.domain}/race`, role: 'review', summary: 'r', evidence: { reason: 'r', sources: [] } });
    const decision = { submission_id: sub.body.data.id, decision: 'accept' };
    const [x, y] = await Promise.all([pub.api.post('/api/v1/submissions/decide', decision), pub.owner.client.post('/api/v1/submissions/decide', decision)]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    expect([x, y].find((r) => r.status === 409)!.body.error.code).toBe('already_decided');
    const rows = await t.runtime.deps.db.selectFrom('contributions').select('id').where('submission_id', '=', sub.body.data.id).execute();
    expect(rows.length).toBe(1);
  });
});

describe('/v1 requests', () => {
  it('opens a request with a key and lists the caller’s requests newest first', async () => {
    const res = await pub.api.post('/v1/requests', { url: `https://${pub.domain}/v1-request`, type: 'fact_check', topic: 'climate' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'open', url: `https://${pub.domain}/v1-request`, type: 'fact_check', topic: 'climate' });
    expect(res.body.id).toMatch(/^req_\d+$/);
    const list = await pub.api.get('/v1/requests?per_page=2');
    expect(list.body.data[0].id).toBe(res.body.id);
    expect(list.body.meta).toMatchObject({ page: 1, per_page: 2 });
    expect(list.body.meta.total).toBeGreaterThan(2);
    expect(list.body.success).toBeUndefined();
  });

  it('refuses a URL off the verified domains with 403 page_not_verified naming the host', async () => {
    const res = await pub.api.post('/v1/requests', { url: 'https://elsewhere.example/a', type: 'review' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'page_not_verified', message: 'elsewhere.example is not a verified site on this account' } });
  });

  it('speaks its own vocabulary: reviewer is not a /v1 type', async () => {
    const res = await pub.api.post('/v1/requests', { url: `https://${pub.domain}/v1-vocab`, type: 'reviewer' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual({ field: 'type', message: 'must be one of: review, fact_check, edit, correction, source' });
  });
});

describe('the contributor directory', () => {
  it('filters by topic (by authority), searches names, paginates', async () => {
    const res = await anon.get('/api/v1/contributors?topic=health');
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({ name: 'Dr. Ada Specialist', latest_contribution: expect.objectContaining({ role: 'correction' }) });
    const q = await anon.get('/api/v1/contributors?q=ada%20spec');
    expect(q.body.data.map((c: { name: string }) => c.name)).toEqual(['Dr. Ada Specialist']);
    const all = await anon.get('/api/v1/contributors?per_page=1&page=2');
    expect(all.body.meta).toMatchObject({ page: 2, per_page: 1 });
    expect(all.body.data.length).toBe(1);
    expect(JSON.stringify(all.body)).not.toContain('@');
    const none = await anon.get('/api/v1/contributors?q=%25');
    expect(none.status).toBe(200);
  });

  it('404s an unknown contributor on both surfaces', async () => {
    expect((await anon.get('/api/v1/contributors/nobody-here')).status).toBe(404);
    expect((await anon.get('/v1/contributors/999999')).body.error.code).toBe('not_found');
  });
});
