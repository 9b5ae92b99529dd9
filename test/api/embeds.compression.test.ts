// Embeds and embed.js compressed once per cached answer and negotiated with Accept-Encoding: the coding
// the caller accepts, `Vary: Accept-Encoding`, a strong ETag per coding, 304 for a tag of any coding, the same bytes
// once decoded, and small answers sent as they are, without `Vary`.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmClaims, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;

/** A raw GET (fetch would decode the body and pick its own Accept-Encoding). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const decode = (coding: string | undefined, body: Buffer) =>
  (coding === 'br' ? zlib.brotliDecompressSync(body) : coding === 'gzip' ? zlib.gunzipSync(body) : body).toString('utf8');

let embedPath: string;

beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  // Three authors: a block past the 1 KB under which answers go as they are.
  const authors = await Promise.all(['Ida Tarbell', 'Ray Stannard Baker', 'Upton Sinclair'].map((name) => signup(t, { name })));
  const res = await pub.api.post('/api/v1/pages', {
    url: `https://${pub.domain}/standard-oil`,
    title: 'The History of the Standard Oil Company',
    authors: authors.map((a) => a.username),
  });
  expect(res.status, res.text).toBeLessThan(300);
  await confirmClaims(...authors);
  embedPath = `/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/standard-oil`)}`;
});
afterAll(async () => t?.close());

describe('compressed embeds', () => {
  it('sends the same answer in the coding the caller prefers, with an ETag per coding', async () => {
    const plain = await get(embedPath);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const text = plain.body.toString('utf8');
    expect(JSON.parse(text).html).toContain('Ida Tarbell');
    expect(text.length).toBeGreaterThan(1024);

    const seen = new Set([plain.headers.etag]);
    for (const [accept, coding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip', 'gzip'],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
    ] as const) {
      const res = await get(embedPath, { 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe(coding);
      expect(decode(coding, res.body)).toBe(text);
      if (coding) expect(res.body.length).toBeLessThan(text.length * 0.6);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      seen.add(res.headers.etag);
    }
    expect(seen.size).toBe(3); // identity, br, gzip
  });

  it('answers 304 to a tag of any coding of the current answer, and 200 once the answer changed', async () => {
    const br = await get(embedPath, { 'accept-encoding': 'br' });
    const gzip = await get(embedPath, { 'accept-encoding': 'gzip' });
    for (const tag of [br.headers.etag!, gzip.headers.etag!]) {
      const res = await get(embedPath, { 'accept-encoding': 'br', 'if-none-match': tag });
      expect(res.status).toBe(304);
      expect(res.body.length).toBe(0);
    }
    const another = await signup(t, { name: 'Lincoln Steffens' });
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/standard-oil`, title: 'The History of the Standard Oil Company', authors: [another.username] });
    await confirmClaims(another);
    const after = await get(embedPath, { 'accept-encoding': 'br', 'if-none-match': br.headers.etag! });
    expect(after.status).toBe(200);
    expect(decode('br', after.body)).toContain('Lincoln Steffens');
  });

  it('sends a small answer as it is, the same for every caller, so without Vary', async () => {
    const res = await get(`/api/v1/embed/by-url?url=${encodeURIComponent('https://unknown.example/x')}`, { 'accept-encoding': 'br, gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ success: true, html: '', title: '' });
    // A block of one author, its stylesheet linked rather than carried, is under 1 KB.
    const author = await signup(t, { name: 'Nellie Bly' });
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/ten-days`, title: 'Ten Days in a Mad-House', authors: [author.username] });
    await confirmClaims(author);
    const one = await get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/ten-days`)}`, { 'accept-encoding': 'br, gzip' });
    expect(JSON.parse(one.body.toString('utf8')).html).toContain('Nellie Bly');
    expect(one.body.length).toBeLessThan(1024);
    expect(one.headers['content-encoding']).toBeUndefined();
    expect(one.headers.vary).toBeUndefined();
    const again = await get(`/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/ten-days`)}`, { 'if-none-match': one.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.headers.vary).toBeUndefined();
  });

  it('sends every answer byte for byte with its length, text past ASCII included, and a HEAD its headers alone', async () => {
    // Cached answers are written with their head in one go, one byte a character (http/wire.ts).
    const author = await signup(t, { name: 'Zoë Ørsted-Łukasiewicz' });
    const title = 'Über „Fakten“ — ✓ 事実確認 😀';
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/fakten`, title, authors: [author.username] });
    await confirmClaims(author);
    const base = `/api/v1/embed/by-url?url=${encodeURIComponent(`https://${pub.domain}/fakten`)}`;
    for (const [query, accept] of [['', ''], ['&format=jsonld', ''], ['&format=jsonld', 'br'], ['&format=js', 'gzip']] as const) {
      const res = await get(`${base}${query}`, accept ? { 'accept-encoding': accept } : {});
      expect(res.status, query).toBe(200);
      expect(Number(res.headers['content-length']), query).toBe(res.body.length);
      const text = decode(res.headers['content-encoding'], res.body);
      if (query === '') expect(JSON.parse(text)).toMatchObject({ title });
      if (query === '&format=jsonld') expect(JSON.parse(/<script[^>]*>(.*)<\/script>/s.exec(text)![1]!)).toMatchObject({ headline: title });
      if (query === '&format=js') expect(text).toContain('Zo\\u00eb');
      const head = await new Promise<http.IncomingMessage & { bytes: number }>((resolve, reject) => {
        const req = http.request(`${t.baseUrl}${base}${query}`, { method: 'HEAD', headers: accept ? { 'accept-encoding': accept } : {} }, (r) => {
          let bytes = 0;
          r.on('data', (c: Buffer) => (bytes += c.length));
          r.on('end', () => resolve(Object.assign(r, { bytes })));
        });
        req.on('error', reject).end();
      });
      expect(head.statusCode).toBe(200);
      expect(head.bytes).toBe(0);
      for (const h of ['content-length', 'content-type', 'content-encoding', 'etag', 'cache-control', 'access-control-allow-origin', 'x-content-type-options']) {
        expect(head.headers[h], `${query} HEAD ${h}`).toBe(res.headers[h]);
      }
    }
  });

  it('compresses embed.js and the block’s stylesheet too', async () => {
    const css = await get('/embed.css', { 'accept-encoding': 'gzip' });
    expect(css.headers['content-encoding']).toBe('gzip');
    expect(css.headers.vary).toBe('Accept-Encoding');
    expect(decode('gzip', css.body)).toContain('.credence{');
    const plain = await get('/embed.js');
    const br = await get('/embed.js', { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^application\/javascript/);
    expect(decode('br', br.body)).toBe(plain.body.toString('utf8'));
  });
});
