import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('smoke', () => {
  it('registers a page and looks it up', async () => {
    const author = await signup(t);
    const pub = await publisher(t);
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/a/`, title: 'A', topic: 'health', authors: [author.username] });
    await confirmClaims(author);
    expect(reg.status, reg.text).toBe(201);
    const look = await new Client(t.baseUrl).get(`/api/v1/pages/lookup?url=${encodeURIComponent(`HTTPS://${pub.domain.toUpperCase()}/a`)}`);
    expect(look.status, look.text).toBe(200);
    expect(look.body.data.has_record).toBe(true);
    expect(look.body.data.contributors.author[0].username).toBe(author.username);
    const v1 = await new Client(t.baseUrl).get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/a`)}`);
    expect(v1.status, v1.text).toBe(200);
    expect(v1.body.contributions[0].role).toBe('author');
  });
});
