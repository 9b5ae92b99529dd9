// HTTP itself (item 6): what Node's parser refuses (an unknown method, a bad Content-Length, headers too
// large) and a known path asked with the wrong method answer in the surface's envelope, with a request id.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { type TestApp, startTestApp } from '../harness.js';

let t: TestApp;
let c: Client;

beforeAll(async () => {
  t = await startTestApp();
  c = new Client(t.baseUrl);
});
afterAll(async () => t.close());

/** Send bytes as they are and read the whole answer (the server closes the connection after a parser error). */
function raw(request: string | Buffer, halfClose = true): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { hostname, port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const bodyText = rest.join('\r\n\r\n');
      let body: unknown;
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = bodyText;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    // Without the half-close, the server's own close ends the exchange (HTTP/1.0 closes after its answer).
    if (halfClose) socket.end(request);
    else socket.write(request);
  });
}

describe('errors of the HTTP parser', () => {
  const cases = [
    { name: 'an unknown method', request: (path: string) => `FROB ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, status: 400 },
    { name: 'a Content-Length that is not a number', request: (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}`, status: 400 },
    {
      name: 'Content-Length and Transfer-Encoding together',
      request: (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      status: 400,
    },
    { name: 'headers over 16 KB', request: (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, status: 431 },
  ];

  it.each(cases)('$name on /api/v1 answers $status in the /api/v1 envelope with a request id', async ({ request, status }) => {
    const res = await raw(request('/api/v1/pages/lookup?url=https://example.com/a'));
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual({ success: false, error: { code: 'invalid_request', message: expect.any(String) } });
  });

  it.each(cases)('$name on /v1 answers $status in the /v1 envelope with a request id', async ({ request, status }) => {
    const res = await raw(request('/v1/panels'));
    expect(res.status).toBe(status);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: expect.any(String) } });
  });

  it('says what was wrong', async () => {
    expect((await raw(cases[3]!.request('/v1/panels'))).body.error.message).toMatch(/headers are too large/);
    expect((await raw(cases[1]!.request('/v1/panels'))).body.error.message).toMatch(/Content-Length/);
  });
});

describe('a request without a Host header', () => {
  it.each([
    ['/api/v1/pages/lookup?url=https://example.com/a', { success: false, error: { code: 'invalid_request', message: expect.stringContaining('Host') } }],
    ['/v1/panels', { error: { code: 'invalid_request', message: expect.stringContaining('Host') } }],
    ['/no/such/path', { error: { code: 'invalid_request', message: expect.stringContaining('Host') } }],
  ])('on %s answers 400 in its envelope with a request id', async (path, body) => {
    const res = await raw(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`, false);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual(body);
  });

  it('is not asked of HTTP/1.0, which has none', async () => {
    const res = await raw('GET /v1/panels HTTP/1.0\r\n\r\n', false);
    expect(res.status).toBe(200);
  });
});

describe('a known path with a method it does not take', () => {
  it('is 405 with Allow on /api/v1, in its envelope', async () => {
    const res = await c.req('DELETE', '/api/v1/pages/lookup?url=https://example.com/a');
    expect(res.status).toBe(405);
    // A public read answers its CORS preflight too.
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.body).toEqual({ success: false, error: { code: 'invalid_request', message: 'DELETE is not allowed on /api/v1/pages/lookup; it takes GET, HEAD, OPTIONS' } });
  });

  it('is 405 with Allow on /v1 and at the site root, with path parameters', async () => {
    const v1 = await c.req('PUT', '/v1/panels');
    expect(v1.status).toBe(405);
    expect(v1.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(v1.body.error.code).toBe('invalid_request');
    const record = await c.post('/records/12345', {});
    expect(record.status).toBe(405);
    expect(record.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const key = await c.req('PUT', '/api/v1/account/api-keys/7');
    expect(key.status).toBe(405);
    expect(key.headers.get('allow')).toContain('DELETE');
  });

  it('lists every method a path takes', async () => {
    const res = await c.req('PUT', '/api/v1/account/api-keys');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('still answers 404 for a path nobody serves', async () => {
    const res = await c.req('DELETE', '/api/v1/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect(res.body.error.code).toBe('not_found');
  });
});
