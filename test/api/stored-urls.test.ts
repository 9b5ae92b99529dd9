// Stored URLs are RFC 3986 URIs (the documents' `format: uri`): what the WHATWG parser leaves raw in a path or query
// (`|`, `{}`, `^`, `[]`, a stray `%`) is percent-encoded once, where URLs are normalised (domain/pages/url-keys.ts),
// so page URLs (registration, one or a batch, and the lookup), webhook URLs (the listing, the export, batch results)
// and sources come back valid, and both spellings of one URL name one page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

/** RFC 3986's characters, once the scheme and authority are set aside: nothing raw that it forbids. */
const isUri = (s: string) => /^https?:\/\/[^/?#]+(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/.test(s);

describe('page URLs', () => {
  it('one registration answers the URI form, and the lookup finds the page by either spelling', async () => {
    const raw = `https://${pub.domain}/pipe|bar?q={a}|b^c`;
    const res = await pub.api.post('/api/v1/pages', { url: raw, title: 'Pipes', topic: 'health' });
    expect(res.status, res.text).toBe(201);
    const uri = `https://${pub.domain}/pipe%7Cbar?q=%7Ba%7D%7Cb%5Ec`;
    expect(res.body.data.url).toBe(uri);
    for (const spelling of [raw, uri]) {
      const look = await pub.api.get(`/api/v1/pages/lookup?url=${encodeURIComponent(spelling)}`);
      expect(look.status, look.text).toBe(200);
      expect(look.body.data).toMatchObject({ id: res.body.data.id, url: uri, registered: true });
    }
    // Registering the other spelling is the same page.
    const again = await pub.api.post('/api/v1/pages', { url: uri, title: 'Pipes', topic: 'health' });
    expect(again.body.data).toMatchObject({ id: res.body.data.id, status: 'skipped' });
  });

  it('a batch answers every URL as a URI (it was a 500)', async () => {
    const res = await pub.api.post('/api/v1/pages', [
      { url: `https://${pub.domain}/x|y`, title: 'A', topic: 'health' },
      { url: `https://${pub.domain}/[1]/{2}^`, title: 'B', topic: 'health' },
      { url: `https://${pub.domain}/100%/sure`, title: 'C', topic: 'health' },
    ]);
    expect(res.status, res.text).toBe(200);
    const urls = res.body.data.results.map((r: { url: string }) => r.url);
    expect(urls).toEqual([`https://${pub.domain}/x%7Cy`, `https://${pub.domain}/%5B1%5D/%7B2%7D%5E`, `https://${pub.domain}/100%25/sure`]);
    for (const u of urls) expect(isUri(u)).toBe(true);
  });

  it('a URL longer than 2,048 characters once encoded is refused, naming url', async () => {
    const res = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/${'|'.repeat(1000)}`, title: 'Long', topic: 'health' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_url');
  });
});

describe('webhook URLs', () => {
  it('come back as URIs in the answer, the listing, batch results and the export', async () => {
    const one = await pub.owner.client.post('/api/v1/account/webhooks', { url: 'https://hooks.example.com/pipe|bar?q={a}|b^c#frag' });
    expect(one.status, one.text).toBe(201);
    const uri = 'https://hooks.example.com/pipe%7Cbar?q=%7Ba%7D%7Cb%5Ec';
    expect(one.body.data.url).toBe(uri);
    const batch = await pub.owner.client.post('/api/v1/account/webhooks', [{ url: 'https://hooks.example.com/[x]' }]);
    expect(batch.body.data.results[0].webhook.url).toBe('https://hooks.example.com/%5Bx%5D');
    const list = await pub.owner.client.get('/api/v1/account/webhooks');
    for (const w of list.body.data) expect(isUri(w.url), w.url).toBe(true);
    const exported = await pub.owner.client.get('/api/v1/account/export');
    expect(exported.status, exported.text).toBe(200);
    const urls = (exported.body.data.webhooks as { url: string }[]).map((w) => w.url);
    expect(urls).toEqual(expect.arrayContaining([uri, 'https://hooks.example.com/%5Bx%5D']));
  });
});
