// CORS: every public read is readable from any site's scripts without credentials, its errors too, and
// answers a preflight; no authenticated route says anything to another origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, randomIp, type Res } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { AUTH_ROUTES, PUBLIC_ROUTES, type RouteSpec, WORLD_APP_OPTIONS, type World, keyFor, makeWorld, routeName, sessionFor, validCall } from './route-table.js';

let t: TestApp;
let w: World;
const ORIGIN = { origin: 'https://reader.example' };

beforeAll(async () => {
  // The world's owner sets up every authenticated row in turn: its clients (all in 10/8) are not rate limited, so the
  // table can grow; the 429 below comes from an address outside it.
  t = await startTestApp({ ...WORLD_APP_OPTIONS, publicationsOwnedPerAccount: 100_000, rateLimitAllowlist: ['10.0.0.0/8'] });
  w = await makeWorld(t);
});
afterAll(async () => t?.close());

/** The GETs anyone may call: the public reads. (Sign-up and log-in are public but not reads.) */
const READS = PUBLIC_ROUTES.filter((r) => r.method === 'GET');

function expectOpen(res: Res, what: string): void {
  expect(res.headers.get('access-control-allow-origin'), what).toBe('*');
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
  expect(exposed, what).toEqual(expect.arrayContaining(['ETag', 'Link', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id']));
  expect(res.headers.get('access-control-allow-credentials'), what).toBeNull();
}

function expectClosed(res: Res, what: string): void {
  for (const h of ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-expose-headers']) {
    expect(res.headers.get(h), `${what}: ${h}`).toBeNull();
  }
}

async function call(route: RouteSpec, token: string | null): Promise<Res> {
  const { path, body } = await validCall(route, w);
  return new Client(t.baseUrl, randomIp(), token).req(route.method, path, { body, headers: ORIGIN });
}

describe('public reads', () => {
  it('are listed (a guard against an empty table)', () => {
    expect(READS.map(routeName)).toEqual(expect.arrayContaining(['GET /api/v1/pages/lookup', 'GET /v1/pages/record', 'GET /v1/proofs/{id}', 'GET /v1/log/entries']));
  });

  it.each(READS.map((r) => [routeName(r), r] as const))('%s answers CORS-open, and its preflight', async (name, route) => {
    const res = await call(route, null);
    expect(route.ok, `${name}: ${res.status} ${res.text.slice(0, 200)}`).toContain(res.status);
    expectOpen(res, name);
    const { path } = await validCall(route, w);
    const pre = await new Client(t.baseUrl).req('OPTIONS', path, {
      headers: { ...ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match, x-request-id' },
    });
    expect(pre.status, name).toBe(204);
    expectOpen(pre, `${name} preflight`);
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(pre.headers.get('access-control-allow-headers')).toContain('If-None-Match');
    expect(pre.headers.get('access-control-allow-headers')).not.toMatch(/authorization|x-api-key/i);
    expect(pre.headers.get('access-control-max-age')).toBe('86400');
  });

  it('answer their errors CORS-open too: 400, 404, 304 and 429', async () => {
    const anon = new Client(t.baseUrl, randomIp());
    const errors = [
      ['/v1/records/999999', 404],
      ['/v1/proofs/ctb_999999', 404],
      ['/v1/pages/record?url=https%3A%2F%2Fnobody.example%2Fx', 404],
      ['/v1/pages/record?url=ftp%3A%2F%2Fx', 400],
      ['/api/v1/pages/lookup', 400],
      ['/api/v1/articles/999999', 404],
      ['/api/v1/embed/article/999999', 404],
      ['/api/v1/embed/by-url', 400],
      ['/api/v1/embed/by-url?url=nope', 400],
      ['/v1/contributors/nobody-at-all', 404],
    ] as const;
    for (const [path, status] of errors) {
      const res = await anon.get(path, { headers: ORIGIN });
      expect(res.status, path).toBe(status);
      expectOpen(res, path);
      expect(res.headers.get('x-request-id'), path).toBeTruthy();
    }
    const embed = await anon.get(`/api/v1/embed/article/${w.page.id}`, { headers: ORIGIN });
    const again = await anon.get(`/api/v1/embed/article/${w.page.id}`, { headers: { ...ORIGIN, 'if-none-match': embed.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expectOpen(again, 'the embed’s 304');
    // /v1 lets an address make 60 requests a minute; the 61st is refused, readably.
    const one = new Client(t.baseUrl, '192.0.2.61');
    let last: Res | undefined;
    for (let i = 0; i < 61; i++) last = await one.get('/v1/panels', { headers: ORIGIN });
    expect(last!.status).toBe(429);
    expectOpen(last!, 'a 429');
    expect(last!.headers.get('retry-after')).toBeTruthy();
  });
});

describe('everything else', () => {
  it.each(AUTH_ROUTES.filter((r) => !r.endsSession).map((r) => [routeName(r), r] as const))('%s says nothing to another origin', async (name, route) => {
    // With its credential (a key where it takes one), and without: neither answer is CORS-open.
    const res = await call(route, keyFor(route, w) ?? sessionFor(route, w));
    expectClosed(res, name);
    expectClosed(await call(route, null), `${name} without a credential`);
  });

  it('answers no preflight on an authenticated path, and none on sign-in', async () => {
    for (const path of ['/api/v1/account', '/api/v1/account/api-keys', '/v1/requests', '/api/v1/auth/login', '/api/v1/pages']) {
      const pre = await new Client(t.baseUrl).req('OPTIONS', path, { headers: { ...ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
      expect(pre.status, path).toBe(405);
      expectClosed(pre, path);
    }
    const login = await new Client(t.baseUrl).post('/api/v1/auth/login', { email: w.owner.email, password: w.owner.password }, { headers: ORIGIN });
    expect(login.status).toBe(200);
    expectClosed(login, 'log-in');
  });
});
