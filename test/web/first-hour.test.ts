// What a new user meets in the first hour (item 10): the addresses people type answer as people expect,
// and the public records answer JSON to curl and HTML to a browser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { type TestApp, startTestApp } from '../harness.js';

let t: TestApp;
let c: Client;

beforeAll(async () => {
  t = await startTestApp();
  c = new Client(t.baseUrl);
});
afterAll(async () => t.close());

describe('addresses people type', () => {
  it('/docs/ sends the browser to /docs', async () => {
    const res = await c.get('/docs/');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/docs');
    expect((await c.get('/docs')).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('/favicon.ico is an empty answer, not a JSON 404', async () => {
    const res = await c.get('/favicon.ico');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('cache-control')).toContain('max-age');
  });

  it('/embed.js is served at the site root, as JavaScript (and under /v1 for clients generated from its document)', async () => {
    const res = await c.get('/embed.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect((await c.get('/v1/embed.js')).text).toBe(res.text);
  });
});

describe('records and proofs', () => {
  it('answer JSON to curl and HTML to a browser', async () => {
    const pub = await publisher(t);
    const author = await signup(t);
    const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/first-hour`, title: 'First hour', authors: [author.username] });
    await confirmClaims(author);
    expect(reg.status, reg.text).toBe(201);
    const id = reg.body.data.id;
    const curl = await c.get(`/records/${id}`, { headers: { accept: '*/*' } });
    expect(curl.headers.get('content-type')).toMatch(/^application\/json/);
    expect(curl.body.data ?? curl.body).toMatchObject({ id });
    const browser = await c.get(`/records/${id}`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(browser.headers.get('content-type')).toMatch(/^text\/html/);
    expect(browser.text).toContain('First hour');
    const proofId = (curl.body.data ?? curl.body).contributors.author[0].proof_url.split('/').pop();
    expect((await c.get(`/proofs/${proofId}`, { headers: { accept: '*/*' } })).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await c.get(`/proofs/${proofId}`, { headers: { accept: 'text/html' } })).headers.get('content-type')).toMatch(/^text\/html/);
    // The id the APIs return (`ctb_<id>`) reaches the same proof.
    const byRef = await c.get(`/proofs/ctb_${proofId}`, { headers: { accept: '*/*' } });
    expect(byRef.status, byRef.text).toBe(200);
    expect(byRef.body.id).toBe(`ctb_${proofId}`);
    expect((await c.get('/proofs/ctb_9999999999', { headers: { accept: '*/*' } })).status).toBe(404);
    expect((await c.get('/proofs/ctb_abc', { headers: { accept: '*/*' } })).status).toBe(400);
  });

  it('are documented under /v1 (and served there too), so a client based at the surface reaches them', async () => {
    const v1 = (await c.get('/v1/openapi.json')).body;
    expect(v1.paths['/proofs/{id}'].servers).toBeUndefined();
    expect(v1.paths['/proofs/{id}'].get.parameters[0].schema.pattern).toContain('ctb_');
    expect(Object.keys(v1.paths['/embed.js'].get.responses['200'].content)).toEqual(['application/javascript']);
  });
});
