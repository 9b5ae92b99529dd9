// The browser extension's private lookup: the verified domains (with an ETag), a bucket by hash prefix answering
// every record in it (nothing of a page without work), and a page's records by its key hash.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
const hashOf = (embedKey: string) => createHash('sha256').update(embedKey).digest('hex');

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  const author = await signup(t, { name: 'Ada Author' });
  for (const path of ['science/study', 'science/bare']) {
    const reg = await pub.api.post('/api/v1/pages', { url: `https://www.${pub.domain}/${path}/?x=1`, title: path, topic: 'science', ...(path.endsWith('study') ? { authors: [author.username] } : {}) });
    expect(reg.status, reg.text).toBe(201);
    if (path.endsWith('study')) {
      const n = await pub.api.post(`/api/v1/pages/${reg.body.data.id}/notices`, { type: 'retraction', date: '2026-01-02', reason: 'Data could not be reproduced.' });
      expect(n.status, n.text).toBe(201);
    }
  }
  await confirmClaims(author);
});
afterAll(async () => t?.close());

describe('extension reads', () => {
  it('lists the verified domains with an ETag, 304 when held', async () => {
    const res = await anon.get('/v1/extension/hosts');
    expect(res.status, res.text).toBe(200);
    expect(res.body.domains).toContain(pub.domain);
    expect(res.body.bucket_hex).toBe(3);
    const etag = res.headers.get('etag')!;
    expect(res.headers.get('cache-control')).toContain('max-age=3600');
    const again = await anon.get('/v1/extension/hosts', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('answers a bucket with the records whose key hash falls in it, and nothing of a page without work', async () => {
    const study = hashOf(`${pub.domain}/science/study`);
    const res = await anon.get(`/v1/extension/buckets/${study.slice(0, 3)}`);
    expect(res.status, res.text).toBe(200);
    const entry = res.body.records.find((r: { hash: string }) => r.hash === study);
    expect(entry).toMatchObject({ standing: 'retracted', notices: ['retraction'] });
    expect(res.body.records.every((r: { hash: string }) => r.hash.startsWith(study.slice(0, 3)))).toBe(true);
    const bare = hashOf(`${pub.domain}/science/bare`);
    const b = await anon.get(`/v1/extension/buckets/${bare.slice(0, 3)}`);
    expect(b.body.records.some((r: { hash: string }) => r.hash === bare)).toBe(false);
    const rec = await anon.get(`/v1/extension/records/${study}`);
    expect(rec.status, rec.text).toBe(200);
    expect(rec.body.records[0].standing).toBe('retracted');
    expect((await anon.get(`/v1/extension/records/${bare}`)).status).toBe(404);
  });

  it('refuses a prefix that is not three hex digits, naming the field', async () => {
    for (const p of ['ab', 'abcd', 'xyz']) {
      const res = await anon.get(`/v1/extension/buckets/${p}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('prefix');
    }
  });
});
