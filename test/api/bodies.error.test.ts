// Request bodies an attacker sends: each route takes what it needs and no more, counted before anything
// is built from the text, and a caller without a credential costs no parse. Sizes are bounded so each case runs in
// milliseconds here; before the fix, 40,000 form fields took 17 s and 300,000 JSON keys 1.9 s of the event loop.
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { BODY_LIMITS, parseForm, scanJson } from '../../src/http/bodies.js';
import { AppError } from '../../src/http/errors.js';
import { Client, randomIp } from '../client.js';
import { publisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;

describe('the member and depth scan', () => {
  it('counts keys and items at every depth, strings skipped', () => {
    // a and c, 1, 2 and {…}, b: six; the empty object has none.
    expect(scanJson('{"a":[1,2,{"b":"x,y,{[z"}],"c":{}}', 6)).toBeNull();
    expect(scanJson('{"a":[1,2,{"b":"x,y,{[z"}],"c":{}}', 5)?.status).toBe(413);
    expect(scanJson('[[],[],{}]', 3)).toBeNull();
    expect(scanJson('"a \\" , , ,"', 0)).toBeNull();
    // A string ending in an escaped backslash ends at its quote; an escaped quote does not end it.
    expect(scanJson('["a\\\\", 1, "b\\"c,d"]', 3)).toBeNull();
    expect(scanJson('["a\\\\", 1, "b\\"c,d"]', 2)?.status).toBe(413);
    expect(scanJson(keys(2_000), 2_000)).toBeNull();
    expect(scanJson(keys(2_001), 2_000)?.message).toMatch(/at most 2000/);
  });

  it('refuses nesting past 32 levels as it reads, wherever it is', () => {
    expect(scanJson(`${'['.repeat(32)}${']'.repeat(32)}`, 100)).toBeNull();
    const deep = scanJson(`{"a":${'['.repeat(33)}`, 100);
    expect(deep?.status).toBe(400);
    expect(deep?.details).toEqual([{ field: 'a', message: 'is nested more than 32 levels deep' }]);
    expect(scanJson(`[{"a":1},{"b":${'['.repeat(40)}`, 100)?.details?.[0]?.field).toBe('1');
  });

  it('parses forms linearly: repeated fields become one array, pushed to', () => {
    const form = parseForm('a=1&a=2&b=x&a=3', 10);
    expect(form).toEqual({ a: ['1', '2', '3'], b: 'x' });
    const many = parseForm('a=&'.repeat(2_000).slice(0, -1), 2_000);
    expect((many as Record<string, string[]>).a).toHaveLength(2_000);
    expect(parseForm('a=&'.repeat(2_001), 2_000)).toBeInstanceOf(AppError);
    // No field name reaches an object's prototype.
    expect(Object.getPrototypeOf(parseForm('__proto__=x', 10))).toBeNull();
  });
});

describe('forms', () => {
  const flood = 'a=&'.repeat(40_000);

  it('a form post without the CSRF cookie is refused before its body is read', async () => {
    const res = await new Client(t.baseUrl).from(randomIp()).req('POST', '/login', { raw: flood, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(403);
  });

  it('a form larger than the route takes, or with more fields, is a 413, and the server goes on answering', async () => {
    const c = new Client(t.baseUrl).from(randomIp());
    const cookie = 'credence_csrf=abcdefghijklmnopqrstuvwxyz0123456789';
    const posts = Promise.all(
      ['/login', '/dashboard'].map((path) => c.req('POST', path, { raw: flood, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } })),
    );
    const live = await c.get('/livez');
    expect(live.status).toBe(200);
    for (const res of await posts) {
      expect(res.status).toBe(413);
      // /login takes 16 KB; the dashboard takes 256 KB but 2,000 fields.
      expect(res.text).toMatch(/(larger|more fields) than this route takes/);
    }
  });
});

describe('JSON', () => {
  it('sign-in takes 16 KB: a larger body is a 413 that names the limit, in the envelope', async () => {
    const res = await new Client(t.baseUrl).from(randomIp()).req('POST', '/api/v1/auth/login', { raw: keys(300_000) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'payload_too_large', message: expect.stringContaining('16 KB') } });
  });

  it('sign-in refuses a small body of many keys before the validator sees it', async () => {
    const res = await new Client(t.baseUrl).from(randomIp()).req('POST', '/api/v1/auth/login', { raw: keys(1_000) });
    expect(res.status).toBe(413);
    expect(res.body.error.details).toEqual([{ field: '(body)', message: `must have at most ${BODY_LIMITS.small.members} keys and items` }]);
  });

  it('a deep array is refused by its depth, naming the field that holds it', async () => {
    const deep = `{"email":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const api = await new Client(t.baseUrl).from(randomIp()).req('POST', '/api/v1/auth/login', { raw: deep });
    expect(api.status).toBe(400);
    expect(api.body.error.details).toEqual([{ field: 'email', message: 'is nested more than 32 levels deep' }]);
  });

  it('a caller without a credential costs no parse: 401 for a batch-sized body that is not even JSON', async () => {
    const raw = `{${'x'.repeat(4 * 1024 * 1024)}`;
    for (const path of ['/api/v1/pages', '/v1/requests']) {
      const res = await new Client(t.baseUrl).from(randomIp()).req('POST', path, { raw });
      expect(res.status, path).toBe(401);
    }
  });

  it('every batch route takes 500 items (SPEC §9): a batch is a large body whatever the route', async () => {
    const pub = await publisher(t);
    const items = Array.from({ length: 500 }, (_, i) => ({ url: `https://${pub.domain}/req/${i}`, request_type: 'fact_checker', title: `Check ${i}`, brief: 'Please check the numbers', topic: 'health' }));
    const res = await pub.api.post('/api/v1/requests', items);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.summary.failed, JSON.stringify(res.body.data.results[0])).toBe(0);
  });

  it('registration still takes a batch of 500 pages with their text; other routes take 256 KB', async () => {
    const pub = await publisher(t);
    const pages = Array.from({ length: 500 }, (_, i) => ({ url: `https://${pub.domain}/batch/${i}`, title: `Page ${i}`, text: 'word '.repeat(1_000) }));
    const res = await pub.api.post('/api/v1/pages', pages);
    expect(res.status, res.text).toBe(200);
    const big = await pub.owner.client.post('/api/v1/account/publishers', { name: 'x'.repeat(300 * 1024), slug: 'too-big' });
    expect(big.status).toBe(413);
    expect(big.body.error.message).toMatch(/256 KB/);
  });
});

describe('a client that sends its whole body before it reads', () => {
  /** One connection: a POST of `size` bytes written in full, then GET /livez; the status lines of both answers. */
  function naive(path: string, size: number, token: string): Promise<string[]> {
    const port = Number(new URL(t.baseUrl).port);
    return new Promise((resolve, reject) => {
      let got = '';
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
        socket.write(Buffer.alloc(size, 'x'));
        socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      });
      socket.on('data', (d: Buffer) => (got += d.toString()));
      socket.on('error', reject);
      // A body ends with no line break: the next status line follows it on the same line.
      socket.on('close', () => resolve([...got.matchAll(/HTTP\/1\.1 \d{3}[^\r]*/g)].map((m) => m[0])));
    });
  }

  it('gets its 413, not a reset, and the connection goes on to the next request', async () => {
    const pub = await publisher(t);
    expect(await naive('/api/v1/pages', 6 * 1024 * 1024, pub.key)).toEqual(['HTTP/1.1 413 Payload Too Large', 'HTTP/1.1 200 OK']);
    expect(await naive('/api/v1/account/publishers', 1024 * 1024, pub.owner.token)).toEqual(['HTTP/1.1 413 Payload Too Large', 'HTTP/1.1 200 OK']);
  });
});

describe('uploads that stop halfway', () => {
  it('are logged as what they are, not as the database being unavailable', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new PassThrough();
    stream.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    });
    const { app } = await buildApp({ ...t.runtime.deps, config: { ...t.config, logLevel: 'info' } }, { logStream: stream });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"email":');
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => {});
    });
    await new Promise((r) => setTimeout(r, 200));
    await app.close();
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('upload aborted by the client');
    expect(messages).not.toContain('database unavailable');
  });
});
