// The embeds' edges: a credential that cannot be used is a 401 (an absent one is fine), and `format=jsonld` for a
// page with no public record is a 404 in the surface's envelope, never an empty 200 to paste.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
let pageId: number;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  url = `https://${pub.domain}/no-record`;
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'No record yet' });
  expect(reg.status).toBe(201);
  pageId = reg.body.data.id;
});
afterAll(async () => t?.close());

describe('the embeds and credentials', () => {
  it('answer 401 to an invalid X-API-Key, cold and warm, and 200 without one', async () => {
    for (const path of [`/api/v1/embed/article/${pageId}`, `/api/v1/embed/by-url?url=${encodeURIComponent(url)}`]) {
      // Twice each: the second is the warm line (http/request-lines.ts), which must not skip the check.
      for (let i = 0; i < 2; i++) {
        expect((await anon.get(path)).status, path).toBe(200);
        const bad = await anon.get(path, { headers: { 'x-api-key': 'crd_live_not-a-real-key' } });
        expect(bad.status, path).toBe(401);
        expect(bad.body.success).toBe(false);
      }
    }
  });
});

describe('format=jsonld without a record', () => {
  it('is a 404 in the JSON envelope, by id and by URL, unknown or without public work, cold and warm', async () => {
    for (const path of [
      `/api/v1/embed/article/${pageId}?format=jsonld`,
      `/api/v1/embed/by-url?url=${encodeURIComponent(url)}&format=jsonld`,
      `/api/v1/embed/by-url?url=${encodeURIComponent('https://unknown.example/x')}&format=jsonld`,
    ]) {
      for (let i = 0; i < 2; i++) {
        const res = await anon.get(path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect(res.body.success).toBe(false);
        expect(res.body.error.code).toBe('not_found');
      }
    }
    // The other formats keep the seed's empty block.
    expect((await anon.get(`/api/v1/embed/article/${pageId}`)).body).toEqual({ success: true, html: '' });
  });
});
