// Seed 001 §4: write endpoints take one object or an array (at most 500). Key and webhook creation do too: an array
// answers as every batch endpoint does (`results` with each item's index and status, `summary`), each made object
// with its secret beside its result (shown once), a bad item failing alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  pub = await publisher(t);
});
afterAll(async () => t?.close());

describe('creating keys and webhooks in a batch', () => {
  it('POST /account/api-keys takes an array; a bad item fails alone', async () => {
    const res = await pub.owner.client.post('/api/v1/account/api-keys', [{ name: 'one', publisher: null }, { name: '' }, { name: 'three', publisher: pub.slug }]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    const [one, two, three] = res.body.data.results;
    expect(one).toMatchObject({ index: 0, status: 'created', id: expect.any(Number), api_key: { name: 'one', key: expect.stringMatching(/live_[0-9a-f]{64}$/) } });
    expect(two).toMatchObject({ index: 1, status: 'failed', error: { code: 'invalid_request', details: [{ field: 'name' }] } });
    expect(three).toMatchObject({ index: 2, status: 'created', api_key: { name: 'three' } });
    expect(res.body.data.summary).toEqual({ created: 2, updated: 0, skipped: 0, failed: 1 });
    // The secret works.
    const who = await new (await import('../client.js')).Client(t.baseUrl).as(one.api_key.key).get('/api/v1/whoami');
    expect(who.status).toBe(200);
  });

  it('one object still answers 201 with the key', async () => {
    const res = await pub.owner.client.post('/api/v1/account/api-keys', { name: 'single', publisher: null });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'single', key: expect.any(String) });
    const bad = await pub.owner.client.post('/api/v1/account/api-keys', { name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('name');
  });

  it('POST /account/webhooks takes an array', async () => {
    const res = await pub.owner.client.post('/api/v1/account/webhooks', [
      { url: 'https://hooks.example.com/a', events: ['page.registered'] },
      { url: 'ftp://nope' },
    ]);
    expect(res.status, res.text).toBe(200);
    const [a, b] = res.body.data.results;
    expect(a).toMatchObject({ index: 0, status: 'created', webhook: { url: 'https://hooks.example.com/a', secret: expect.stringMatching(/^whsec_/) } });
    expect(b).toMatchObject({ index: 1, status: 'failed' });
    expect(res.body.data.summary).toMatchObject({ created: 1, failed: 1 });
  });

  it('an empty array or one over 500 is refused whole', async () => {
    expect((await pub.owner.client.post('/api/v1/account/api-keys', [])).status).toBe(400);
    expect((await pub.owner.client.post('/api/v1/account/webhooks', Array.from({ length: 501 }, () => ({ url: 'https://hooks.example.com/x' })))).status).toBe(400);
  });
});
