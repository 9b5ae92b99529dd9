// A publication acts only on pages whose domain it holds now (seed 000 §4 rule 1, §5.3): once `domains:verify` moves
// a domain to another publication, the old publication's key can neither open requests on its old pages nor decide
// the work submitted on them; the new holder can.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let old: TestPublisher;
let specialist: TestUser;
let submissionId: number;
let pageId: number;
const url = () => `https://${old.domain}/moved/page`;

beforeAll(async () => {
  t = await startTestApp();
  old = await publisher(t);
  specialist = await signup(t);
  const opened = await old.api.post('/api/v1/requests', { url: url(), request_type: 'reviewer', topic: 'health' });
  expect(opened.status, opened.text).toBe(201);
  const lookup = await old.api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url())}`);
  pageId = lookup.body.data.id;
  const take = await specialist.client.post(`/api/v1/review-requests/${opened.body.data.id}/take`);
  expect(take.status, take.text).toBe(200);
  const sub = await specialist.client.post('/api/v1/submissions', { request_id: opened.body.data.id, summary: 'Reviewed', evidence: { reason: 'Read it', sources: [] } });
  expect(sub.status, sub.text).toBe(201);
  submissionId = sub.body.data.id;
  const rival = await publisher(t);
  await verifyDomainByOperator(t.runtime.deps, rival.slug, old.domain);
});
afterAll(async () => t?.close());

describe('a domain moved to another publication', () => {
  it('the old key cannot open a request on its old page (/v1 and /api/v1)', async () => {
    const v1 = await old.api.post('/v1/requests', { url: url(), type: 'review' });
    expect(v1.status, v1.text).toBe(403);
    expect(v1.body.error.code).toBe('page_not_verified');
    const api = await old.api.post('/api/v1/requests', { url: url(), request_type: 'reviewer' });
    expect(api.status, api.text).toBe(403);
    expect(api.body.error.code).toBe('page_not_verified');
    if (typeof pageId === 'number') {
      const byId = await old.api.post('/api/v1/requests', { article_ref_id: pageId, request_type: 'reviewer' });
      expect(byId.status, byId.text).toBe(403);
    }
  });

  it('the old key cannot decide the work submitted on it', async () => {
    const res = await old.api.post('/api/v1/submissions/decide', { submission_id: submissionId, decision: 'accept' });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe('page_not_verified');
    const batch = await old.api.post('/api/v1/submissions/decide', [{ submission_id: submissionId, decision: 'accept' }]);
    expect(batch.body.data.results[0]).toMatchObject({ status: 'failed', error: { code: 'page_not_verified' } });
  });
});
