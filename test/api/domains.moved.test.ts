// A publication acts only on pages of sites it holds now (seed 000 §4 rule 1, §5.3). After `domains:verify` moves a
// domain to another publication, the old publication's key opens no request on its old pages there, on either
// surface, and decides no work on them: 403 `page_not_verified`. Its pages keep their history. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { correction, unique } from './webhooks.fixtures.js';

let t: TestApp;
let before: TestPublisher;
let after: TestPublisher;
let url: string;
let pageId: number;
let submissionId: number;

beforeAll(async () => {
  t = await startTestApp();
  before = await publisher(t);
  url = `https://${before.domain}/moving/${unique()}`;
  const page = await before.api.post('/api/v1/pages', { url, title: 'A page that changes hands', topic: 'health' });
  expect(page.status, page.text).toBe(201);
  pageId = page.body.data.id;
  const writer = await signup(t);
  const sub = await new Client(t.baseUrl).as(await contributorKey(writer)).post('/api/v1/submissions', { url, role: 'correction', ...correction() });
  expect(sub.status, sub.text).toBe(201);
  submissionId = sub.body.data.id;
  // Before the move, the publication acts on its page.
  expect((await before.api.post('/api/v1/requests', { url, request_type: 'correction', topic: 'health', title: 'Before' })).status).toBe(201);
  after = await publisher(t);
  await verifyDomainByOperator(t.runtime.deps, after.slug, before.domain);
});
afterAll(async () => t?.close());

describe('once its domain moved to another publication', () => {
  it('the old publication opens no request on its old page, by URL or by id, on either surface', async () => {
    const byUrl = await before.api.post('/api/v1/requests', { url, request_type: 'correction', topic: 'health', title: 'After' });
    expect(byUrl.status, byUrl.text).toBe(403);
    expect(byUrl.body).toMatchObject({ success: false, error: { code: 'page_not_verified' } });
    const byId = await before.api.post('/api/v1/requests', { article_ref_id: pageId, request_type: 'correction', topic: 'health', title: 'After' });
    expect(byId.status, byId.text).toBe(403);
    const v1 = await before.api.post('/v1/requests', { url, type: 'review' });
    expect(v1.status, v1.text).toBe(403);
    expect(v1.body).toMatchObject({ error: { code: 'page_not_verified' } });
  });

  it('the old publication decides no work on it', async () => {
    const res = await before.api.post('/api/v1/submissions/decide', { submission_id: submissionId, decision: 'accept', note: 'Thanks' });
    expect(res.status, res.text).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: { code: 'page_not_verified' } });
  });

  it('the page keeps its record, and the new holder registers its own', async () => {
    expect((await new Client(t.baseUrl).get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`)).status).toBeLessThan(500);
    const mine = await after.api.post('/api/v1/pages', { url: `https://${before.domain}/moving/new-${unique()}`, title: 'The new holder’s page', topic: 'health' });
    expect(mine.status, mine.text).toBe(201);
  });
});
