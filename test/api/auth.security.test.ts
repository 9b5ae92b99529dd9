// The security suite: one helper runs every auth-failure case on every authenticated route of route-table.ts (no
// credential, malformed headers, unknown, revoked and expired keys, ended and expired sessions, the wrong kind of
// credential), then the cross-tenant cases, then a scan of every response this file received for leaked secrets.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { toOpenApiPath } from '../../src/surfaces/docs/openapi.js';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { Client, type Res } from '../client.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import {
  AUTH_ROUTES,
  PUBLIC_ROUTES,
  ROUTES,
  type RouteSpec,
  WORLD_APP_OPTIONS,
  type World,
  freshSession,
  keyFor,
  makeWorld,
  routeName,
  routesOf,
  sessionFor,
  takesKey,
  validCall,
} from './route-table.js';

// Every exchange of this file, recorded below fetch, for the X-Request-Id and leak checks at the end.
interface Exchange {
  method: string;
  path: string;
  credential: string | null;
  requestBody: string | undefined;
  status: number;
  requestId: string | null;
  text: string;
}
const exchanges: Exchange[] = [];
const realFetch = globalThis.fetch;

let t: TestApp;
let w: World;
/** Credentials that must not work, made once. */
const bad = { revokedKey: '', expiredKey: '', endedSession: '', expiredSession: '' };

beforeAll(async () => {
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const headers = (init?.headers ?? {}) as Record<string, string>;
    const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    exchanges.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      credential: headers['x-api-key'] ?? bearer ?? null,
      requestBody: typeof init?.body === 'string' ? init.body : undefined,
      status: res.status,
      requestId: res.headers.get('x-request-id'),
      text: await res.clone().text(),
    });
    return res;
  };

  // One specialist takes a fresh request for many cases here; the cap on requests held has its own test
  // (requests.holding.test.ts).
  t = await startTestApp({ ...WORLD_APP_OPTIONS, requestsHeldPerAccount: 1000, publicationsOwnedPerAccount: 100_000, claimLimits: { pendingPerPerson: 100_000, perPublicationPerDay: 1_000_000 } });
  // A session that outlives its 30 days: made first, then the clock moves past its end.
  const stale = await signup(t);
  expect((await stale.client.get('/api/v1/whoami')).status).toBe(200);
  bad.expiredSession = stale.token;
  t.clock.advanceDays(30);
  t.clock.advance(60_000);

  w = await makeWorld(t);

  const expiring = await w.owner.client.post('/api/v1/account/api-keys', { name: 'short-lived', expires_in_days: 1, publisher: w.pub.slug });
  expect(expiring.status, expiring.text).toBe(201);
  bad.expiredKey = expiring.body.data.key;
  expect((await api().get('/api/v1/whoami', { token: bad.expiredKey })).status).toBe(200);
  t.clock.advanceDays(2);

  const doomed = await w.owner.client.post('/api/v1/account/api-keys', { name: 'doomed', publisher: w.pub.slug });
  expect(doomed.status, doomed.text).toBe(201);
  bad.revokedKey = doomed.body.data.key;
  expect((await api().get('/api/v1/whoami', { token: bad.revokedKey })).status).toBe(200);
  const revoked = await w.owner.client.delete(`/api/v1/account/api-keys/${doomed.body.data.id}`);
  expect(revoked.status, revoked.text).toBe(200);
  expect(revoked.body.data.status).toBe('revoked');

  bad.endedSession = await freshSession(w);
  expect((await api().get('/api/v1/whoami', { token: bad.endedSession })).status).toBe(200);
  const out = await api().post('/api/v1/auth/logout', undefined, { token: bad.endedSession });
  expect(out.status, out.text).toBe(200);
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await t?.close();
});

// Buckets refill with the test clock; moving it between tests keeps every case clear of the rate limits it does not
// test (limits.test.ts does).
beforeEach(() => t.clock.advance(10_000));

/** A client from an address of its own, so anonymous calls never share an IP bucket. */
const api = () => new Client(t.baseUrl);

type Call = { path: string; body: Record<string, unknown> | undefined };

async function call(
  route: RouteSpec,
  opts: { token?: string | null; asHeader?: 'bearer' | 'x-api-key'; headers?: Record<string, string>; withoutQuery?: boolean },
  made?: Call,
) {
  const { path, body } = made ?? (await validCall(route, w));
  const target = opts.withoutQuery ? path.split('?')[0]! : path;
  return api().req(route.method, target, { body, token: opts.token ?? null, asHeader: opts.asHeader, headers: opts.headers });
}

/**
 * The error envelope, exactly: on /api/v1 `{success: false, error: {code, message[, details]}}`, on /v1
 * `{error: {code, message[, details]}}`.
 */
function expectApiError(res: Res, status: number, code?: string, surface: 'api' | 'v1' = 'api') {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(Object.keys(res.body ?? {}).sort(), res.text).toEqual(surface === 'api' ? ['error', 'success'] : ['error']);
  if (surface === 'api') expect(res.body.success).toBe(false);
  expect(typeof res.body.error.code).toBe('string');
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (code) expect(res.body.error.code, res.text).toBe(code);
}

const surfaceOf = (route: RouteSpec) => (route.path.startsWith('/api/v1/') ? 'api' : 'v1');

function expectOk(res: Res, route: RouteSpec) {
  expect(route.ok, `${routeName(route)} answered ${res.status}: ${res.text}`).toContain(res.status);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  if (surfaceOf(route) === 'api' && !route.embed) expect(res.body.success, res.text).toBe(true);
}

const hex64 = () => randomBytes(32).toString('hex');

interface BadCredential {
  name: string;
  headers: () => Record<string, string>;
  code: string;
}

/** Every credential that must be refused with 401, and the code it must carry. */
const BAD_CREDENTIALS: BadCredential[] = [
  { name: 'no credential', headers: () => ({}), code: 'unauthorized' },
  { name: 'Authorization: Basic', headers: () => ({ authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' }), code: 'unauthorized' },
  { name: 'Authorization: Bearer with nothing', headers: () => ({ authorization: 'Bearer' }), code: 'unauthorized' },
  { name: 'Authorization: Bearer with two tokens', headers: () => ({ authorization: `Bearer cred_live_${hex64()} extra` }), code: 'unauthorized' },
  { name: 'a key without the Bearer scheme', headers: () => ({ authorization: `cred_live_${hex64()}` }), code: 'unauthorized' },
  { name: 'a garbage token', headers: () => ({ authorization: 'Bearer not-a-credential-at-all' }), code: 'unauthorized' },
  { name: 'a garbage X-API-Key', headers: () => ({ 'x-api-key': '<script>alert(1)</script>' }), code: 'unauthorized' },
  { name: 'a truncated key', headers: () => ({ authorization: 'Bearer cred_live_abc123' }), code: 'unauthorized' },
  { name: 'an unknown well-formed key (Bearer)', headers: () => ({ authorization: `Bearer cred_live_${hex64()}` }), code: 'unauthorized' },
  { name: 'an unknown well-formed key (X-API-Key)', headers: () => ({ 'x-api-key': `cred_live_${hex64()}` }), code: 'unauthorized' },
  { name: 'an unknown key in upper case', headers: () => ({ authorization: `Bearer CRED_LIVE_${hex64().toUpperCase()}` }), code: 'unauthorized' },
  { name: 'an unknown session token', headers: () => ({ authorization: `Bearer cred_sess_${randomBytes(32).toString('base64url')}` }), code: 'unauthorized' },
  { name: 'a revoked key (Bearer)', headers: () => ({ authorization: `Bearer ${bad.revokedKey}` }), code: 'key_revoked' },
  { name: 'a revoked key (X-API-Key)', headers: () => ({ 'x-api-key': bad.revokedKey }), code: 'key_revoked' },
  { name: 'an expired key (Bearer)', headers: () => ({ authorization: `Bearer ${bad.expiredKey}` }), code: 'key_expired' },
  { name: 'an expired key (X-API-Key)', headers: () => ({ 'x-api-key': bad.expiredKey }), code: 'key_expired' },
  { name: 'an ended session (after logout)', headers: () => ({ authorization: `Bearer ${bad.endedSession}` }), code: 'unauthorized' },
  { name: 'an expired session (30 days)', headers: () => ({ authorization: `Bearer ${bad.expiredSession}` }), code: 'unauthorized' },
  // Both headers: a bad one is refused whichever it is, even beside a good one.
  { name: 'a good session (X-API-Key) and a bad Bearer', headers: () => ({ 'x-api-key': w.owner.token, authorization: `Bearer cred_live_${hex64()}` }), code: 'unauthorized' },
  { name: 'a bad X-API-Key and a good session (Bearer)', headers: () => ({ 'x-api-key': `cred_live_${hex64()}`, authorization: `Bearer ${w.owner.token}` }), code: 'unauthorized' },
  { name: 'a revoked X-API-Key and a good session (Bearer)', headers: () => ({ 'x-api-key': bad.revokedKey, authorization: `Bearer ${w.owner.token}` }), code: 'unauthorized' },
  { name: 'a good session (X-API-Key) and a malformed Authorization', headers: () => ({ 'x-api-key': w.owner.token, authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' }), code: 'unauthorized' },
];

/** The shared helper: every auth case, for one authenticated route. */
function securityCases(route: RouteSpec) {
  const surface = surfaceOf(route);
  const expectError = (res: Res, status: number, code: string) => expectApiError(res, status, code, surface);
  // A refused call changes nothing, so every refused case may reuse one valid call (made once: some make objects).
  let made: Call | undefined;
  const refused = async (opts: Parameters<typeof call>[1]) => call(route, opts, (made ??= await validCall(route, w)));
  describe(`${routeName(route)} (${route.auth})`, () => {
    it.each(BAD_CREDENTIALS)('401 $code with $name', async (c) => {
      expectError(await refused({ headers: c.headers() }), 401, c.code);
    });

    if (route.auth === 'session' || route.auth === 'admin') {
      it('403 session_required with a publisher key (Bearer)', async () => {
        expectError(await refused({ token: w.pub.key }), 403, 'session_required');
      });
      it('403 session_required with a publisher key (X-API-Key)', async () => {
        expectError(await refused({ token: w.pub.key, asHeader: 'x-api-key' }), 403, 'session_required');
      });
      it('403 session_required with a contributor key', async () => {
        expectError(await refused({ token: w.contributorKey }), 403, 'session_required');
      });
    }

    if (route.auth === 'admin') {
      it('403 forbidden with the session of an account that is not an admin', async () => {
        expectError(await refused({ token: w.owner.token }), 403, 'forbidden');
      });
      it('403 session_required with a key of an admin', async () => {
        const key = await new Client(t.baseUrl, undefined, w.admin.token).post('/api/v1/account/api-keys', { name: 'ops', publisher: null });
        expect(key.status, key.text).toBe(201);
        expectError(await refused({ token: key.body.data.key }), 403, 'session_required');
      });
    }

    if (route.auth === 'publisher') {
      it('403 forbidden with a contributor key', async () => {
        expectError(await refused({ token: w.contributorKey }), 403, 'forbidden');
      });
      it('403 forbidden with the session of an account in no publication', async () => {
        expectError(await refused({ token: w.contributor.token, withoutQuery: true }), 403, 'forbidden');
      });
      it('404 with the session of an account naming a publication it is not in', async (ctx) => {
        if (!route.query?.(w).publisher) ctx.skip();
        expectError(await refused({ token: w.contributor.token }), 404, 'not_found');
      });
    }

    if (route.auth === 'contributor') {
      it('403 publisher_key_scope with a publisher key (Bearer)', async () => {
        expectError(await refused({ token: w.pub.key }), 403, 'publisher_key_scope');
      });
      it('403 publisher_key_scope with a publisher key (X-API-Key)', async () => {
        expectError(await refused({ token: w.pub.key, asHeader: 'x-api-key' }), 403, 'publisher_key_scope');
      });
    }

    it('answers the right session', async () => {
      const token = route.endsSession ? await freshSession(w) : sessionFor(route, w);
      expectOk(await call(route, { token }), route);
    });
    if (takesKey(route)) {
      it('answers the right key as Authorization: Bearer', async () => {
        expectOk(await call(route, { token: keyFor(route, w), asHeader: 'bearer' }), route);
      });
      it('answers the right key as X-API-Key', async () => {
        expectOk(await call(route, { token: keyFor(route, w), asHeader: 'x-api-key' }), route);
      });
    }
    if (route.auth === 'signedIn') {
      it('answers a contributor key too', async () => {
        expectOk(await call(route, { token: w.contributorKey }), route);
      });
    }
  });
}

describe('every route is in the table', () => {
  it('names each route of the app, and nothing else', async () => {
    // A second instance over the same deps, only to read the OpenAPI collectors (the harness does not keep them).
    // It never listens and holds nothing of its own, so it is not closed: closing could close the shared deps.
    const { openapi, routes } = await buildApp(t.runtime.deps);
    const documented = [...openapi.v1.operations(), ...openapi.api.operations()];
    // Pages for people (cookie sessions, CSRF) have their own security tests in test/web/.
    const pages = new Set(routes.filter((r) => r.html).map((r) => `${r.method} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`));
    // find-my-way prints a wildcard route as a bare `*` without its prefix: those are named from the app's own list.
    const wildcards = routes.filter((r) => r.url.endsWith('*') && r.method !== 'OPTIONS').map((r) => `${r.method} ${toOpenApiPath(r.url)}`);
    const all = routesOf(t.app.printRoutes({ commonPrefix: false }))
      .flatMap((r) => (/^[A-Z]+ \/\*$/.test(r) ? wildcards.filter((w) => w.startsWith(`${r.split(' ')[0]!} `)) : [r]))
      .filter((r) => !pages.has(r));
    const table = ROUTES.map(routeName);

    const missing = all.filter((r) => !table.includes(r));
    expect(missing, 'routes of the app missing from test/api/route-table.ts (add them, with their auth kind)').toEqual([]);
    expect(table.filter((r) => !all.includes(r)), 'table rows the app does not have').toEqual([]);
    expect(new Set(table).size).toBe(table.length);
    // Hidden rows are exactly the routes without an OpenAPI entry.
    expect(ROUTES.filter((r) => !r.hidden).map(routeName).sort()).toEqual([...documented].sort());
  });

  it('the OpenAPI documents declare the credential each route needs', async () => {
    // The security the documents declare follows the route's guard (and /docs prints it): it must agree with the
    // table, or a reader is told a route needs no credential when it does.
    const { openapi } = await buildApp(t.runtime.deps);
    const declared = new Map<string, unknown>();
    for (const [collector, prefix] of [
      [openapi.v1, '/v1'],
      [openapi.api, '/api/v1'],
    ] as const) {
      const doc = collector.document('https://credence.test') as { paths: Record<string, Record<string, { security?: unknown }>> };
      for (const [path, item] of Object.entries(doc.paths)) {
        // A path item with its own `servers` lives outside the surface's prefix (record and proof addresses).
        const full = 'servers' in item ? path : `${prefix}${path}`;
        for (const [method, op] of Object.entries(item)) {
          if (method !== 'servers') declared.set(`${method.toUpperCase()} ${full}`, op.security);
        }
      }
    }
    const withKey = [{ bearer: [] }, { apiKeyHeader: [] }];
    const expected = { none: [{}], session: [{ bearer: [] }], admin: [{ bearer: [] }], publisher: withKey, contributor: withKey, signedIn: withKey };
    const disagree: string[] = [];
    // Without a `security` of its own an operation falls back to the document's, and there is none: it is public.
    // That is right for a public route and wrong for any other.
    for (const route of ROUTES.filter((r) => !r.hidden)) {
      const got = declared.get(routeName(route));
      if (route.auth === 'none' && got === undefined && declared.has(routeName(route))) continue;
      // A public route declares `security: []` (no guard) or an optional credential (`[{}, bearer, apiKeyHeader]`).
      if (route.auth === 'none' && [JSON.stringify([]), JSON.stringify([{}, ...withKey])].includes(JSON.stringify(got))) continue;
      if (JSON.stringify(got) !== JSON.stringify(expected[route.auth])) {
        disagree.push(`${routeName(route)} is "${route.auth}" here, the OpenAPI document declares security ${JSON.stringify(got)}`);
      }
    }
    expect(disagree).toEqual([]);
  });

  it('lists the public routes on purpose', () => {
    expect(PUBLIC_ROUTES.map(routeName).sort()).toEqual(
      [
        'POST /api/v1/auth/signup',
        'POST /api/v1/auth/login',
        'POST /api/v1/auth/confirm-email',
        'POST /api/v1/auth/password-reset',
        'POST /api/v1/auth/password-reset/complete',
        'POST /api/v1/auth/unsubscribe',
        'GET /api/v1/pages/lookup',
        'GET /api/v1/articles/{id}',
        'GET /api/v1/publishers',
        'GET /api/v1/publishers/{slug}',
        'GET /api/v1/publishers/{slug}/credits',
        'GET /api/v1/publishers/{slug}/records',
        'GET /api/v1/review-requests',
        'GET /api/v1/review-requests/{id}',
        'GET /api/v1/contributors',
        'GET /api/v1/contributors/{username}',
        'GET /api/v1/contributors/{username}/scores',
        'GET /records/{id}',
        'GET /proofs/{id}',
        'GET /v1/records/{id}',
        'GET /v1/proofs/{id}',
        'GET /v1/panels',
        'GET /v1/panels/{id}',
        'GET /v1/contributors/{id}',
        'GET /v1/contributors/{id}/scores',
        'GET /v1/pages/record',
        'GET /v1/search',
        'GET /api/v1/search',
        'GET /v1/changes',
        'GET /api/v1/changes',
        'GET /api/v1/embed/article/{id}',
        'GET /api/v1/embed/by-url',
        'GET /embed.js',
        'GET /v1/embed.js',
        'GET /v1/extension/buckets/{prefix}',
        'GET /v1/extension/hosts',
        'GET /v1/extension/buckets/{prefix}/proofs',
        // Reports come from anyone (DSA Art. 16); the counts are for everyone (Art. 15, 24).
        'POST /v1/reports',
        'GET /v1/transparency',
        'GET /embed.css',
        'GET /healthz',
        'GET /livez',
        'GET /readyz',
        'GET /assets/app.css',
        'GET /assets/dashboard.js',
        'GET /assets/log-verify.js',
        'GET /assets/me.js',
        'GET /assets/tabs.js',
        'GET /assets/docs.js',
        'GET /assets/credential-verify.js',
        // A verifier anywhere checks a credential with these: its status lists and its issuer's key.
        'GET /v1/credentials/status/{purpose}/{list}',
        'GET /.well-known/did.json',
        'GET /v1/log/checkpoint',
        'GET /v1/log/key',
        'GET /v1/log/proof/inclusion',
        'GET /v1/log/proof/consistency',
        'GET /v1/log/entries',
        'GET /v1/log/policy',
        'GET /v1/log/proof/bundle',
        'GET /v1/log/tile/{path}',
        'POST /v1/witness/add-checkpoint',
        'GET /v1/witness',
        'GET /docs',
        'GET /docs/',
        'GET /favicon.ico',
        'GET /v1/openapi.json',
        'GET /api/v1/openapi.json',
      ].sort(),
    );
  });
});

describe('authentication on every authenticated route', () => {
  for (const route of AUTH_ROUTES) securityCases(route);
});

describe('public routes', () => {
  const checked = PUBLIC_ROUTES.filter((r) => !r.hidden);
  const guarded = checked.filter((r) => !r.embed);
  it.each(checked.map((r) => [routeName(r), r] as const))('%s answers without a credential', async (_name, route) => {
    expectOk(await call(route, {}), route);
  });
  it.each(guarded.map((r) => [routeName(r), r] as const))('%s still refuses a revoked key with 401', async (_name, route) => {
    expectApiError(await call(route, { token: bad.revokedKey }), 401, 'key_revoked', surfaceOf(route));
  });
});

describe('tenants', () => {
  let b: TestPublisher;
  let bPage: { id: number; url: string };
  let editor: TestUser;

  beforeAll(async () => {
    b = await publisher(t);
    bPage = { id: 0, url: `https://${b.domain}/b/exclusive` };
    const reg = await b.api.post('/api/v1/pages', { url: bPage.url, title: 'B exclusive', topic: 'politics' });
    expect(reg.status, reg.text).toBe(201);
    bPage.id = reg.body.data.id;
    editor = await signup(t);
    await addMember(b.owner.client, b.slug, editor);
  });

  it("publisher A's key cannot register a page on B's verified domain (single object: 403 page_not_verified)", async () => {
    const res = await w.pub.api.post('/api/v1/pages', { url: `https://${b.domain}/a-was-here`, title: 'Mine now' });
    expectApiError(res, 403, 'page_not_verified');
    expect(res.body.error.message).toContain(b.domain);
    const look = await api().get(`/api/v1/pages/lookup?url=${encodeURIComponent(`https://${b.domain}/a-was-here`)}`);
    expect(look.body.data.registered).toBe(false);
  });

  it("publisher A's key: in a batch, only the item on B's domain fails with page_not_verified", async () => {
    const res = await w.pub.api.post('/api/v1/pages', [
      { url: `https://${w.pub.domain}/batch/${randomBytes(3).toString('hex')}` },
      { url: `https://www.${b.domain}/batch/a` },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.results[0].status).toBe('created');
    expect(res.body.data.results[1]).toMatchObject({ index: 1, status: 'failed', error: { code: 'page_not_verified' } });
    expect(res.body.data.summary.failed).toBe(1);
  });

  it("GET /api/v1/pages with A's key never lists B's pages, whatever ?publisher says", async () => {
    for (const path of ['/api/v1/pages?per_page=100', `/api/v1/pages?per_page=100&publisher=${b.slug}`]) {
      const res = await w.pub.api.get(path);
      expect(res.status, res.text).toBe(200);
      const urls = (res.body.data as { url: string; publisher: { slug: string } }[]).map((p) => p.url);
      expect(urls).toContain(w.page.url);
      expect(urls).not.toContain(bPage.url);
      expect(res.body.data.every((p: { publisher: { slug: string } }) => p.publisher.slug === w.pub.slug)).toBe(true);
    }
  });

  it("A's member session cannot act for B's publication through ?publisher (404)", async () => {
    expectApiError(await w.owner.client.get(`/api/v1/pages?publisher=${b.slug}`), 404, 'not_found');
    expectApiError(
      await w.owner.client.post(`/api/v1/pages?publisher=${b.slug}`, { url: `https://${b.domain}/via-session` }),
      404,
      'not_found',
    );
  });

  it("A's key and A's member session cannot attach a notice to B's page (404); B's record is unchanged", async () => {
    const notice = { type: 'retraction', reason: 'Not yours to retract' };
    expectApiError(await w.pub.api.post(`/api/v1/pages/${bPage.id}/notices`, notice), 404, 'not_found');
    expectApiError(await w.owner.client.post(`/api/v1/pages/${bPage.id}/notices?publisher=${b.slug}`, notice), 404, 'not_found');
    expectApiError(await w.owner.client.post(`/api/v1/pages/${bPage.id}/notices`, notice), 404, 'not_found');
    const look = await api().get(`/api/v1/pages/lookup?url=${encodeURIComponent(bPage.url)}`);
    expect(look.body.data).toMatchObject({ standing: 'current', notices: [] });
  });

  it("account A does not see B's API keys", async () => {
    const res = await w.owner.client.get('/api/v1/account/api-keys');
    expect(res.status, res.text).toBe(200);
    expect((res.body.data as { id: number }[]).map((k) => k.id)).not.toContain(b.keyId);
  });

  it("account A cannot revoke B's API key (404), and B's key still works", async () => {
    expectApiError(await w.owner.client.delete(`/api/v1/account/api-keys/${b.keyId}`), 404, 'not_found');
    expect((await b.api.get('/api/v1/whoami')).status).toBe(200);
    const mine = await b.owner.client.get('/api/v1/account/api-keys');
    expect(mine.body.data.find((k: { id: number }) => k.id === b.keyId).status).toBe('active');
  });

  it.each([
    ['GET', 'members'],
    ['POST', 'members'],
    ['GET', 'domains'],
    ['POST', 'domains'],
  ] as const)('a non-member gets 404 on %s the %s of a publication', async (method, what) => {
    const body = method === 'GET' ? undefined : what === 'members' ? { username: w.owner.username, role: 'owner' } : { domain: `hijack-${randomBytes(3).toString('hex')}.example` };
    const res = await w.owner.client.req(method, `/api/v1/account/publishers/${b.slug}/${what}`, { body });
    expectApiError(res, 404, 'not_found');
  });

  it("a non-member gets 404 verifying B's domain", async () => {
    expectApiError(await w.owner.client.post(`/api/v1/account/publishers/${b.slug}/domains/${b.domain}/verify`), 404, 'not_found');
  });

  it('a non-member and a member get the same 404 for a publication that does not exist', async () => {
    expectApiError(await w.owner.client.get('/api/v1/account/publishers/no-such-publication/members'), 404, 'not_found');
  });

  it('the non-member attempts changed nothing', async () => {
    const members = await b.owner.client.get(`/api/v1/account/publishers/${b.slug}/members`);
    expect(members.status, members.text).toBe(200);
    expect((members.body.data as { username: string }[]).map((m) => m.username).sort()).toEqual([b.owner.username, editor.username].sort());
    const domains = await b.owner.client.get(`/api/v1/account/publishers/${b.slug}/domains`);
    expect((domains.body.data as { domain: string }[]).map((d) => d.domain)).toEqual([b.domain]);
  });

  it('an editor reads the members but cannot add one (403 forbidden) or make itself owner', async () => {
    const list = await editor.client.get(`/api/v1/account/publishers/${b.slug}/members`);
    expect(list.status, list.text).toBe(200);
    expectApiError(
      await editor.client.post(`/api/v1/account/publishers/${b.slug}/members`, { username: w.contributor.username, role: 'editor' }),
      403,
      'forbidden',
    );
    expectApiError(await editor.client.post(`/api/v1/account/publishers/${b.slug}/members`, { username: editor.username, role: 'owner' }), 403, 'forbidden');
    const after = await b.owner.client.get(`/api/v1/account/publishers/${b.slug}/members`);
    expect(after.body.data.find((m: { username: string }) => m.username === editor.username).role).toBe('editor');
  });

  it("a page registered to B cannot be taken over by A, even once A holds a verified domain covering it", async () => {
    const host = `news.${b.domain}`;
    const url = `https://${host}/2026/scoop`;
    const first = await b.api.post('/api/v1/pages', { url, title: 'Scoop', topic: 'politics' });
    expect(first.status, first.text).toBe(201);
    // A proves control of the subdomain: its pages there are A's, but B's existing page stays B's.
    await verifyDomainByOperator(t.runtime.deps, w.pub.slug, host);

    expectApiError(await w.pub.api.post('/api/v1/pages', { url, title: 'Scoop (ours now)' }), 409, 'conflict');
    const batch = await w.pub.api.post('/api/v1/pages', [{ url: `${url}/` }, { url: `https://${host}/2026/new-for-a` }]);
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.data.results[0]).toMatchObject({ index: 0, status: 'failed', error: { code: 'conflict' } });
    expect(batch.body.data.results[1].status).toBe('created');

    const look = await api().get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
    expect(look.status, look.text).toBe(200);
    expect(look.body.data.publisher.slug).toBe(b.slug);
    expect(look.body.data.title).toBe('Scoop');
    const aPages = await w.pub.api.get('/api/v1/pages?per_page=100');
    expect((aPages.body.data as { url: string }[]).map((p) => p.url)).not.toContain(first.body.data.url);
  });

  it("whoami with A's key names A's owner and A's key, nothing of B", async () => {
    const res = await w.pub.api.get('/api/v1/whoami');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ authenticated: true, user_id: w.owner.id, key_id: w.pub.keyId, credential: 'publisher_key' });
    expect(res.body.data.publisher.slug).toBe(w.pub.slug);
  });
});

// Last: everything above went through the recorder.
describe('every response of this file', () => {
  it('carries X-Request-Id', () => {
    expect(exchanges.length).toBeGreaterThan(300);
    const without = exchanges.filter((e) => !e.requestId).map((e) => `${e.method} ${e.path} → ${e.status}`);
    expect(without).toEqual([]);
  });

  it('never shows a key or session secret except at creation, a password, a hash, or an email except to its own account', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const keyAt = new Map<string, number>();
    const sessionAt = new Map<string, { at: number; email: string }>();
    const emails = new Set<string>();
    const passwords = new Set<string>();
    exchanges.forEach((e, i) => {
      const req = safeJson(e.requestBody);
      const res = safeJson(e.text);
      if (e.method === 'POST' && e.path === '/api/v1/account/api-keys' && e.status === 201) keyAt.set(res.data.key, i);
      if (e.method === 'POST' && (e.path === '/api/v1/auth/signup' || e.path === '/api/v1/auth/login')) {
        if (typeof req?.password === 'string') passwords.add(req.password);
        if (typeof req?.email === 'string' && e.status < 300) emails.add(req.email.toLowerCase());
        // Sign-up starts no session; log-in does.
        if (e.status < 300 && typeof res?.data?.token === 'string') sessionAt.set(res.data.token, { at: i, email: String(req.email).toLowerCase() });
      }
      if (e.method === 'POST' && e.path === '/api/v1/account/password') {
        for (const f of ['current_password', 'new_password']) if (typeof req?.[f] === 'string' && req[f].length >= 10) passwords.add(req[f]);
      }
    });
    expect(keyAt.size).toBeGreaterThan(5);
    expect(emails.size).toBeGreaterThan(5);

    const sessionEmail = new Map([...sessionAt].map(([token, s]) => [token, s.email]));
    const leaks: string[] = [];
    exchanges.forEach((e, i) => {
      const where = `${e.method} ${e.path} → ${e.status}`;
      const text = e.text;
      const lower = text.toLowerCase();
      for (const word of ['key_hash', 'token_hash', 'password_hash', 'scrypt$']) if (lower.includes(word)) leaks.push(`${where}: "${word}"`);
      for (const [secret, at] of keyAt) {
        if (i !== at && text.includes(secret.slice('cred_live_'.length))) leaks.push(`${where}: the secret of key …${secret.slice(-4)}`);
        if (text.includes(sha(secret))) leaks.push(`${where}: the hash of key …${secret.slice(-4)}`);
      }
      for (const [token, s] of sessionAt) {
        if (i !== s.at && text.includes(token)) leaks.push(`${where}: a session token`);
        if (text.includes(sha(token))) leaks.push(`${where}: the hash of a session token`);
      }
      for (const p of passwords) if (text.includes(p)) leaks.push(`${where}: a password`);
      for (const email of emails) {
        if (!lower.includes(email)) continue;
        // SPEC §16: the account's own view (GET /account, and PATCH /account/profile which answers with it) is the
        // only place an email is shown, and only to a session of that account; and its export.
        const ownView =
          (e.method === 'GET' && (e.path === '/api/v1/account' || e.path === '/api/v1/account/export')) ||
          (e.method === 'PATCH' && e.path === '/api/v1/account/profile');
        if (!(ownView && e.status === 200 && e.credential && sessionEmail.get(e.credential) === email)) {
          leaks.push(`${where}: the email ${email}`);
        }
      }
    });
    expect(leaks).toEqual([]);
  });
});

function safeJson(text: string | undefined): any {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

// SPEC §5: a publisher key registers its pages, opens requests on them and decides work; a contributor key takes
// requests, submits and withdraws its owner's work; "nothing else". Mail settings are neither: a session's alone.
describe('a key reaches only what SPEC §5 gives its kind', () => {
  it('neither kind reads or changes the owner’s mail settings (403 session_required)', async () => {
    for (const key of [w.pub.api, new Client(w.t.baseUrl).as(w.contributorKey)]) {
      expectApiError(await key.get('/api/v1/account/notices'), 403, 'session_required');
      expectApiError(await key.patch('/api/v1/account/notices', { named_on_page: false }), 403, 'session_required');
    }
    // The owner's and the contributor's sessions still can.
    expect((await w.owner.client.get('/api/v1/account/notices')).status).toBe(200);
    expect((await w.contributor.client.patch('/api/v1/account/notices', { named_on_page: true })).status).toBe(200);
  });
});

// The documents are the one answer without the surface's envelope (docs/routes.md, "The surfaces").
describe('the OpenAPI documents', () => {
  it('answer the bare document, without success or data', async () => {
    for (const path of ['/v1/openapi.json', '/api/v1/openapi.json']) {
      const res = await new Client(w.t.baseUrl).get(path);
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(res.body).not.toHaveProperty('success');
      expect(res.body).not.toHaveProperty('data');
    }
  });
});
