// Both OpenAPI documents, walked: every operation is called as its route table row says (a valid call,
// with real credentials), then as an integrator gets it wrong (no credential, a bad or unknown value, a body of the
// wrong kind, asking for another media type, revalidating), and every answer's status and media type must be one
// its operation lists. `default` does not count: it is there for what the service cannot foresee (a 503).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, randomIp, type Res } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { ROUTES, type RouteSpec, WORLD_APP_OPTIONS, type World, freshSession, keyFor, makeWorld, routeName, sessionFor, validCall } from './route-table.js';

let t: TestApp;
let w: World;
type Operation = { responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>; security?: unknown[] };
const operations: { name: string; op: Operation; route: RouteSpec | undefined }[] = [];

beforeAll(async () => {
  // Callers come from 10.x addresses (test/client.ts): exempt, so the walk is not cut short by its own keys' buckets
  // (a 429 is listed wherever a limit applies; test/api/limits.test.ts meets them).
  t = await startTestApp({ ...WORLD_APP_OPTIONS, rateLimitAllowlist: ['10.0.0.0/8'], apiKeysPerAccount: 100_000, requestsHeldPerAccount: 100_000, publicationsOwnedPerAccount: 100_000, claimLimits: { pendingPerPerson: 100_000, perPublicationPerDay: 1_000_000 } });
  w = await makeWorld(t);
  const anon = new Client(t.baseUrl);
  for (const doc of ['/v1/openapi.json', '/api/v1/openapi.json']) {
    const res = await anon.get(doc);
    expect(res.status).toBe(200);
    const base = new URL(res.body.servers[0].url as string).pathname;
    // Shared error answers are references into the document's components.
    const resolve = (r: Record<string, unknown>) =>
      typeof r.$ref === 'string' ? (r.$ref.split('/').slice(1).reduce<any>((o, k) => o[k], res.body) as Record<string, unknown>) : r;
    for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>)) {
      // An item with its own server (the root record and proof addresses) is still described under the document's.
      const full = `${base}${path}`;
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const name = `${method.toUpperCase()} ${full}`;
        const o = op as Operation;
        o.responses = Object.fromEntries(Object.entries(o.responses).map(([k, v]) => [k, resolve(v as Record<string, unknown>) as Operation['responses'][string]]));
        operations.push({ name, op: o, route: ROUTES.find((r) => routeName(r) === name) });
      }
    }
  }
}, 60_000);
afterAll(async () => t?.close());

/** The media type of an answer, without its parameters; null without a body. */
const mediaOf = (res: Res) => (res.status === 204 || res.status === 304 ? null : (res.headers.get('content-type') ?? '').split(';')[0]!.trim() || null);

/** What the operation does not list about this answer, or null when it lists it. */
function unlisted(op: Operation, res: Res, what: string): string | null {
  const listed = op.responses[String(res.status)] ?? op.responses[`${String(res.status)[0]}XX`];
  if (!listed) return `${what}: ${res.status} is not listed (${Object.keys(op.responses).join(', ')}): ${res.text.slice(0, 160)}`;
  const media = mediaOf(res);
  if (media === null) return listed.content && res.status !== 304 && res.status !== 204 ? `${what}: ${res.status} without a body, listed with one` : null;
  if (!listed.content || !(media in listed.content)) {
    return `${what}: ${res.status} as ${media} is not listed (${Object.keys(listed.content ?? {}).join(', ') || 'no body'})`;
  }
  if (res.headers.get('etag') && !listed.headers?.ETag) return `${what}: ${res.status} sends an ETag its operation does not list`;
  return null;
}

async function credentialFor(route: RouteSpec): Promise<string | null> {
  if (route.auth === 'none') return null;
  if (route.endsSession) return freshSession(w);
  return keyFor(route, w) ?? sessionFor(route, w);
}

describe('the documents, walked', () => {
  it('name an operation for every row of the route table, and a row for every operation', () => {
    expect(operations.length).toBeGreaterThan(60);
    expect(operations.filter((o) => !o.route).map((o) => o.name)).toEqual([]);
  });

  it('list every status and media type the service answers', async () => {
    const problems: string[] = [];
    for (const { name, op, route } of operations) {
      if (!route) continue;
      const token = await credentialFor(route);
      const client = new Client(t.baseUrl, randomIp(), token);
      const check = (res: Res, what: string) => {
        const p = unlisted(op, res, `${name} ${what}`);
        if (p) problems.push(p);
        return res;
      };
      const call = async (what: string, change: { headers?: Record<string, string>; token?: string | null; path?: (p: string) => string; body?: unknown; raw?: string } = {}) => {
        const { path, body } = await validCall(route, w);
        const target = change.path ? change.path(path) : path;
        const opts = { headers: change.headers, token: change.token === undefined ? token : change.token, ...(change.raw !== undefined ? { raw: change.raw } : { body: 'body' in change ? change.body : body }) };
        return check(await client.req(route.method, target, opts), what);
      };
      // The happy path, and revalidating it where it has a validator.
      const happy = await call('(valid)');
      const etag = happy.headers.get('etag');
      if (etag && route.method === 'GET') await call('(If-None-Match)', { headers: { 'if-none-match': etag } });
      // Another media type asked for: what comes back must be listed.
      if (route.method === 'GET') {
        await call('(Accept: application/ld+json)', { headers: { accept: 'application/ld+json' } });
        await call('(format=jsonld)', { path: (p) => `${p}${p.includes('?') ? '&' : '?'}format=jsonld` });
      }
      // Errors an integrator meets: no credential, a revoked-looking one, unknown ids, bad query values, bodies.
      if (route.auth !== 'none' && !route.embed) {
        await call('(no credential)', { token: null });
        await call('(unknown key)', { token: 'cred_live_0000000000000000000000000000000000' });
      }
      if (/\{/.test(route.path)) await call('(unknown id)', { path: (p) => p.replace(/\/[^/?]+(?=(\/[a-z-]+)*(\?|$))/, '/999999999') });
      if (route.query) await call('(bad query)', { path: (p) => `${p.split('?')[0]}?${new URLSearchParams(Object.fromEntries(Object.keys(route.query!(w)).map((k) => [k, '%%bad%%'])))}` });
      if (route.method === 'GET' && route.query?.(w).url) {
        const nobody = (p: string) => p.replace(/url=[^&]*/, `url=${encodeURIComponent('https://nobody.example/none')}`);
        await call('(unknown page)', { path: nobody });
        await call('(unknown page, format=jsonld)', { path: (p) => `${nobody(p)}&format=jsonld` });
      }
      // The same creation twice (a taken username or slug, a decided submission).
      if (route.method === 'POST' && route.body) {
        const made = await validCall(route, w);
        for (const what of ['(once)', '(again)']) check(await client.req(route.method, made.path, { body: made.body }), what);
      }
      if (route.body) {
        await call('(empty object)', { body: {} });
        await call('(not JSON)', { raw: '{"a":' });
      }
      // Any method that carries a body may be sent one of a type no route reads.
      if (route.method !== 'GET') await call('(text/plain)', { raw: 'hello', headers: { 'content-type': 'text/plain' } });
    }
    expect(problems, problems.join("\n")).toEqual([]);
  }, 120_000);
});
