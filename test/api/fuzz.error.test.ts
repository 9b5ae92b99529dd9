// Bad input on every route of route-table.ts, on both surfaces, plus unknown paths: nothing may answer 5xx or take the
// process down. Every error is a 4xx in its surface's envelope (/v1: `{error}`, /api/v1: `{success: false, error}`),
// with `error.details` naming the field when a field is wrong. Each test sends many probes and lists every one that
// misbehaved, so one run shows the whole picture.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type ReqOptions, type Res } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { ROUTES, type RouteSpec, WORLD_APP_OPTIONS, type World, fillPath, keyFor, makeWorld, routeName, sessionFor, unique, validCall } from './route-table.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  // One account makes a key and takes a request per probe: the per-account caps are tested in their own files.
  t = await startTestApp({ ...WORLD_APP_OPTIONS, apiKeysPerAccount: 100_000, requestsHeldPerAccount: 100_000, publicationsOwnedPerAccount: 100_000, claimLimits: { pendingPerPerson: 100_000, perPublicationPerDay: 1_000_000 } });
  w = await makeWorld(t);
});
afterAll(async () => t?.close());

const CODES = [
  'invalid_request',
  'invalid_url',
  'missing_parameter',
  'unauthorized',
  'key_revoked',
  'key_expired',
  'forbidden',
  'page_not_verified',
  'session_required',
  'publisher_key_scope',
  'not_found',
  'already_decided',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'https_required',
  'internal_error',
];

interface Expectation {
  status?: number | number[];
  code?: string | string[];
  /** `error.details` must name this field (or a part of it: `topics.0`). */
  field?: string;
  /** A message fragment, e.g. the batch limit. */
  message?: string;
}

const isApi = (path: string) => path === '/api/v1' || path.startsWith('/api/v1/') || path.startsWith('/api/v1?');

/** What is wrong with an answer, or null. */
function judge(path: string, res: Res, exp: Expectation): string | null {
  const wrong: string[] = [];
  if (res.status >= 500) wrong.push('a server error');
  if (!res.headers.get('x-request-id')) wrong.push('no X-Request-Id');
  const statuses = exp.status === undefined ? null : ([] as number[]).concat(exp.status);
  if (statuses && !statuses.includes(res.status)) wrong.push(`expected ${statuses.join(' or ')}`);
  if (res.status >= 400) wrong.push(...envelopeProblems(path, res, exp));
  return wrong.length > 0 ? wrong.join('; ') : null;
}

function envelopeProblems(path: string, res: Res, exp: Expectation): string[] {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) return ['an error that is not JSON'];
  const body = res.body as Record<string, any> | undefined;
  if (!body || typeof body !== 'object') return ['an error without a JSON body'];
  const keys = Object.keys(body).sort().join(',');
  if (isApi(path) ? keys !== 'error,success' || body.success !== false : keys !== 'error') {
    return [`not the ${isApi(path) ? '/api/v1 {success:false,error}' : '/v1 {error}'} envelope`];
  }
  const e = body.error as Record<string, unknown>;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || e.message.length === 0) return ['error.code/message missing'];
  const wrong: string[] = [];
  if (!CODES.includes(e.code)) wrong.push(`unknown code ${e.code}`);
  if (Object.keys(e).some((k) => !['code', 'message', 'details'].includes(k))) wrong.push('extra keys in error');
  if (e.details !== undefined) {
    if (!Array.isArray(e.details) || e.details.some((d) => typeof d?.field !== 'string' || typeof d?.message !== 'string')) {
      wrong.push('details are not [{field, message}]');
    }
  }
  if (exp.code !== undefined && !([] as string[]).concat(exp.code).includes(e.code)) wrong.push(`expected code ${exp.code}`);
  if (exp.field !== undefined) {
    const fields = Array.isArray(e.details) ? (e.details as { field: string }[]).map((d) => d.field) : [];
    if (!fields.some((f) => f === exp.field || f.startsWith(`${exp.field}.`))) wrong.push(`details do not name ${exp.field} (${fields.join(', ') || 'no details'})`);
  }
  if (exp.message !== undefined && !String(e.message).includes(exp.message)) wrong.push(`message does not say "${exp.message}"`);
  return wrong;
}

const short = (s: string) => (s.length > 120 ? `${s.slice(0, 100)}…(${s.length} chars)` : s);

/** A probe session for one test: every answer is judged, every misbehaviour is listed at the end. */
function probes() {
  const problems: string[] = [];
  let count = 0;
  async function send(method: string, path: string, opts: ReqOptions & { label?: string } = {}, exp: Expectation = {}): Promise<Res> {
    // Buckets refill on the test clock; moving it keeps the probes clear of the limits (limits.test.ts tests them).
    t.clock.advance(6_000);
    count++;
    const res = await new Client(t.baseUrl).req(method, path, opts);
    if (res.status < 300 && path.startsWith('/api/v1/auth/logout')) doomedSession = null;
    const problem = judge(path.split('?')[0]!, res, exp);
    if (problem) problems.push(`${method} ${short(path)}${opts.label ? ` [${opts.label}]` : ''} → ${res.status} ${short(res.text)}: ${problem}`);
    return res;
  }
  return {
    send,
    done(min = 1) {
      expect(count).toBeGreaterThanOrEqual(min);
      expect(problems).toEqual([]);
    },
  };
}

/** A session for the logout route, replaced once a probe actually ends it. */
let doomedSession: string | null = null;

/** The credential a route is called with: the right kind, so the probes reach validation. */
async function tokenFor(route: RouteSpec): Promise<string | null> {
  if (route.endsSession) return (doomedSession ??= (await signup(t)).token);
  if (route.auth === 'none') return null;
  return keyFor(route, w) ?? sessionFor(route, w);
}

const withBody = ROUTES.filter((r) => r.body);
// Routes that take a body (a CORS preflight does not).
// (Not the C2SP witness API: its body is text by its spec, and its answers are the spec's plain-text ones.)
const writes = ROUTES.filter((r) => r.method !== 'GET' && r.method !== 'OPTIONS' && !r.textBody);
const withParams = ROUTES.filter((r) => r.params);
const each = (list: RouteSpec[]) => list.map((r) => [routeName(r), r] as const);

const jsonKind = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/** Values of the wrong JSON type for a field whose valid value is `valid`. */
function wrongTypes(valid: unknown): unknown[] {
  switch (jsonKind(valid)) {
    case 'string':
      return [12345, 1.5, true, null, [], ['x'], {}, { a: 'b' }];
    case 'number':
      return ['30', 1.5, -1, 1e308, true, null, [], {}];
    case 'array':
      return ['health', 12, null, {}, [12], [null], [['x']], [{}]];
    default:
      return ['x', 1, null, []];
  }
}

/** Fields that accept a value `wrongTypes` offers (`publisher: null` asks for a contributor key). */
const ACCEPTED: Record<string, Record<string, unknown[]>> = {
  'POST /api/v1/account/api-keys': { publisher: [null] },
};

describe('the body of every write', () => {
  it.each(each(writes))('%s: malformed JSON is a 400', async (_n, route) => {
    const p = probes();
    const { path } = await validCall(route, w);
    for (const raw of ['{"a":', '{', '{"a":1,}', "{'a':1}", '\u0000', 'nul', '{"a":1}{"b":2}', '\uFEFF{"a":']) {
      await p.send(route.method, path, { raw, token: await tokenFor(route), label: JSON.stringify(raw) }, { status: 400, code: 'invalid_request' });
    }
    p.done();
  });

  it.each(each(withBody))('%s: a JSON string, number, boolean, null or array where an object is expected is a 400', async (_n, route) => {
    const p = probes();
    const { path } = await validCall(route, w);
    const batch = route.batch === true;
    for (const raw of ['"text"', '42', '-0.5', 'true', 'null', '[]', '[1,2]', '[[]]', '["a"]']) {
      const isNonEmptyArray = raw.startsWith('[') && raw !== '[]';
      // A batch route takes an array: a list of bad items is answered item by item (200, every item failed).
      const exp: Expectation = batch && isNonEmptyArray ? { status: 200 } : { status: 400, code: 'invalid_request' };
      const res = await p.send(route.method, path, { raw, token: await tokenFor(route), label: raw }, exp);
      if (batch && isNonEmptyArray && res.status === 200) {
        expect(res.body.data.results.every((r: { status: string; error?: { code: string } }) => r.status === 'failed' && r.error?.code === 'invalid_request')).toBe(true);
      }
    }
    p.done();
  });

  it.each(each(withBody))('%s: a wrong type in each field is a 400 naming the field', async (_n, route) => {
    const p = probes();
    const { path, body } = await validCall(route, w);
    for (const [field, valid] of Object.entries(body!)) {
      for (const value of wrongTypes(valid)) {
        const accepted = (ACCEPTED[routeName(route)]?.[field] ?? []).some((a) => JSON.stringify(a) === JSON.stringify(value));
        const fresh = (await validCall(route, w)).body!;
        await p.send(
          route.method,
          path,
          { body: { ...fresh, [field]: value }, token: await tokenFor(route), label: `${field}=${short(JSON.stringify(value))}` },
          accepted ? { status: route.ok } : { status: 400, code: 'invalid_request', field },
        );
      }
    }
    p.done();
  });

  it.each(each(withBody))('%s: a 100 KB string in each string field is a 400 naming the field', async (_n, route) => {
    const p = probes();
    const { path, body } = await validCall(route, w);
    // Sign-in and sign-up take 16 KB in all (http/bodies.ts): a string over every field's limit that fits.
    const huge = 'x'.repeat(path.includes('/auth/') ? 10_000 : 100_000);
    // A body of switches alone (the notice settings) has no string to stretch.
    if (!Object.values(body!).some((v) => typeof v === 'string' || Array.isArray(v))) return;
    for (const [field, valid] of Object.entries(body!)) {
      const value = typeof valid === 'string' ? huge : Array.isArray(valid) ? [huge] : null;
      if (value === null) continue;
      const fresh = (await validCall(route, w)).body!;
      await p.send(route.method, path, { body: { ...fresh, [field]: value }, token: await tokenFor(route), label: `${field}: 100 KB` }, { status: 400, field });
    }
    p.done();
  });

  it.each(each(withBody))('%s: deeply nested values are a 400, not a crash', async (_n, route) => {
    const p = probes();
    const { path, body } = await validCall(route, w);
    const depth = path.includes('/auth/') ? 2_000 : 10_000;
    const nestedObject = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const nestedArray = '['.repeat(depth) + ']'.repeat(depth);
    for (const field of Object.keys(body!)) {
      for (const [kind, nested] of [
        ['object', nestedObject],
        ['array', nestedArray],
      ] as const) {
        const fresh = JSON.stringify({ ...(await validCall(route, w)).body!, [field]: '__NESTED__' }).replace('"__NESTED__"', nested);
        await p.send(route.method, path, { raw: fresh, token: await tokenFor(route), label: `${field}: ${kind} ${depth} deep` }, { status: 400, field });
      }
    }
    await p.send(route.method, path, { raw: nestedObject, token: await tokenFor(route), label: 'whole body nested' }, { status: [200, 400] });
    p.done();
  });

  it.each(each(withBody))('%s: unknown fields and unicode, NUL and control characters in strings are handled', async (_n, route) => {
    const p = probes();
    const { path, body } = await validCall(route, w);
    await p.send(route.method, path, { body: { ...body, zzz_unknown: 1 }, token: await tokenFor(route), label: 'unknown field' });
    const nasty = ['a\u0000b', '\u0000', '\ud800 lone surrogate', 'emoji 🙂 ü ﷽ \u202e rtl', '\u0007\u001b[31mred', 'tab\tnew\nline', '<script>alert(1)</script>', "'; drop table accounts; --", '%00%ff'];
    for (const [field, valid] of Object.entries(body!)) {
      for (const s of nasty) {
        // Unique where the route needs unique values (usernames, slugs, emails): the strings go in the middle.
        const fresh = (await validCall(route, w)).body!;
        const value = typeof valid === 'string' ? mix(valid, s) : Array.isArray(valid) ? [mix(String(valid[0]), s)] : null;
        if (value === null) continue;
        await p.send(route.method, path, { body: { ...fresh, [field]: value }, token: await tokenFor(route), label: `${field}=${JSON.stringify(value)}` });
      }
    }
    p.done();
  });

  it.each(each(writes))('%s: a body over 5 MB is a 413 payload_too_large', async (_n, route) => {
    const p = probes();
    const { path } = await validCall(route, w);
    const raw = JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024 + 10) });
    await p.send(route.method, path, { raw, token: await tokenFor(route), label: '5 MB + 10' }, { status: 413, code: 'payload_too_large' });
    p.done();
  });

  it.each(each(writes))('%s: a body that is not application/json is a 415', async (_n, route) => {
    const p = probes();
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      // Fresh each time: a route without a body may act on the call (take a request, end a session).
      const { path, body } = await validCall(route, w);
      // A route that takes no body may ignore one; a route that takes JSON must say the media type is wrong, not
      // that a JSON object "must be object".
      const exp: Expectation = route.body ? { status: 415, code: 'invalid_request' } : { status: [...route.ok, 415] };
      await p.send(route.method, path, { raw: JSON.stringify(body ?? {}), headers: { 'content-type': type }, token: await tokenFor(route), label: type }, exp);
    }
    p.done();
  });
});

describe('patterns', () => {
  // Ajv checks every keyword (allErrors), so a pattern runs even on a string far over its maxLength: each pattern must
  // answer in linear time on the worst input the route's body can carry (sign-up takes 16 KB).
  it.each([
    ['POST', '/api/v1/auth/signup', 'email', () => `a@${'.'.repeat(15_000)}@`],
    ['POST', '/api/v1/auth/signup', 'email', () => `${'a'.repeat(64)}@${'a.'.repeat(7_000)}`],
    ['POST', '/api/v1/auth/signup', 'username', () => `${'a-'.repeat(7_000)}!`],
    ['POST', '/api/v1/account/publishers', 'slug', () => `${'a-'.repeat(20_000)}!`],
  ] as const)('%s %s: a hostile %s is refused quickly', async (method, path, field, value) => {
    const route = ROUTES.find((r) => r.method === method && r.path === path)!;
    const p = probes();
    const started = performance.now();
    await p.send(method, path, { body: { ...(await route.body!(w)), [field]: value() }, token: await tokenFor(route) }, { status: 400, field });
    const ms = performance.now() - started;
    p.done();
    expect(ms, `answered in ${Math.round(ms)} ms`).toBeLessThan(500);
  });
});

/** The valid value with `s` spliced into it, so unique values (usernames, emails) stay unique. */
function mix(valid: string, s: string): string {
  const at = valid.indexOf('@');
  return at > 0 ? `${valid.slice(0, at)}${s}${valid.slice(at)}` : `${valid}${s}`;
}

const BAD_URLS = [
  'javascript:alert(1)',
  'JAVASCRIPT:alert(document.cookie)',
  'data:text/html,<script>alert(1)</script>',
  'http://[::1',
  'ftp://x',
  'file:///etc/passwd',
  'mailto:a@b.example',
  'http://',
  'https://',
  '//example.com/a',
  'example.com/a',
  '',
  ' ',
  'http://exa mple.com/',
  'http://a\u0000b.example/',
  `https://example.com/${'a'.repeat(3_000)}`,
  'http://%zz/',
];

describe('URLs', () => {
  it('POST /api/v1/pages: every malformed URL is a 400 invalid_url naming url', async () => {
    const p = probes();
    for (const url of BAD_URLS) {
      await p.send('POST', '/api/v1/pages', { body: { url }, token: w.pub.key, label: JSON.stringify(short(url)) }, url === '' ? { status: 400, field: 'url' } : { status: 400, code: 'invalid_url', field: 'url' });
    }
    p.done();
  });

  it('POST /api/v1/pages: in a batch, each malformed URL fails on its own with invalid_url', async () => {
    const p = probes();
    const items = BAD_URLS.filter((u) => u !== '').map((url) => ({ url }));
    const res = await p.send('POST', '/api/v1/pages', { body: [...items, { url: `https://${w.pub.domain}/ok/${unique()}` }], token: w.pub.key }, { status: 200 });
    p.done();
    const results = res.body.data.results as { index: number; status: string; error?: { code: string } }[];
    expect(results.slice(0, -1).filter((r) => r.status !== 'failed' || r.error?.code !== 'invalid_url')).toEqual([]);
    expect(results.at(-1)!.status).toBe('created');
    expect(res.body.data.summary).toEqual({ created: 1, updated: 0, skipped: 0, failed: items.length });
  });

  it.each([
    ['/api/v1/pages/lookup'],
    ['/v1/pages/record'],
  ])('GET %s?url=: every malformed URL is a 400 invalid_url', async (base) => {
    const p = probes();
    for (const url of BAD_URLS.filter((u) => u.trim() !== '')) {
      await p.send('GET', `${base}?url=${encodeURIComponent(url)}`, { label: short(url) }, { status: 400, code: 'invalid_url', field: 'url' });
    }
    await p.send('GET', base, {}, { status: 400, code: 'missing_parameter', field: 'url' });
    for (const qs of ['url=', 'url=%', 'url=%zz', 'url=%E0%A4%A', 'url=%00', '%=%', 'url&url', 'url[]=x&url[]=y', 'url=http%3A%2F%2F%5B%3A%3A1']) {
      await p.send('GET', `${base}?${qs}`, { label: qs }, { status: [400, 404] });
    }
    p.done();
  });

  it('POST domains: malformed domains are a 400 naming domain', async () => {
    const p = probes();
    for (const domain of ['localhost', '127.0.0.1', '[::1]', 'http://x.example/', 'x.example/path', 'a..b', '-', '.', 'x'.repeat(253), 'ex ample.com', 'a\u0000b.example', 'javascript:alert(1)']) {
      await p.send('POST', `/api/v1/account/publishers/${w.pub.slug}/domains`, { body: { domain }, token: w.owner.token, label: JSON.stringify(short(domain)) }, { status: 400, field: 'domain' });
    }
    p.done();
  });
});

describe('batches', () => {
  it('POST /api/v1/pages with 501 items is a 400 for the whole call, naming the limit; nothing is registered', async () => {
    const p = probes();
    const items = Array.from({ length: 501 }, (_, i) => ({ url: `https://${w.pub.domain}/too-many/${i}` }));
    await p.send('POST', '/api/v1/pages', { body: items, token: w.pub.key }, { status: 400, code: 'invalid_request', message: '500' });
    const look = await p.send('GET', `/api/v1/pages/lookup?url=${encodeURIComponent(items[0]!.url)}`);
    p.done();
    expect(look.body.data.registered).toBe(false);
  });

  it('POST /api/v1/pages with 500 items is answered item by item', async () => {
    const p = probes();
    const items = Array.from({ length: 500 }, (_, i) => (i === 0 ? { url: `https://${w.pub.domain}/at-limit/${unique()}` } : { url: `ftp://x/${i}` }));
    const res = await p.send('POST', '/api/v1/pages', { body: items, token: w.pub.key }, { status: 200 });
    p.done();
    expect(res.body.data.summary).toEqual({ created: 1, updated: 0, skipped: 0, failed: 499 });
  });

  it('POST /api/v1/pages with a 10,000-item array of junk is still one 400', async () => {
    const p = probes();
    await p.send('POST', '/api/v1/pages', { raw: JSON.stringify(Array(10_000).fill(null)), token: w.pub.key }, { status: 400, message: '500' });
    p.done();
  });
});

describe('path parameters and query strings', () => {
  it.each(each(withParams))('%s: odd path parameters are a clean 4xx', async (_n, route) => {
    const p = probes();
    const valid = await (route.params ?? (() => ({})))(w);
    const odd = ['a%00b', '%00', '%F0%9F%99%82', '%C3%BC', '%FF', '%E0%A4%A', '%', '..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'x'.repeat(600), '%20', "'%3B%20drop%20table%20pages", '%3Cscript%3E'];
    for (const name of Object.keys(valid)) {
      for (const value of odd) {
        // Spliced in raw: these are the bytes an attacker sends, not what encodeURIComponent would make of them.
        const path = fillPath(route.path, { ...valid, [name]: '__ODD__' }).replace('__ODD__', value);
        // A CORS preflight answers any path it matches: it reads nothing. A `..` segment is resolved by the client
        // (WHATWG URL) before it is sent, so under a root-level route (`/records/..`) the probe reaches the home page.
        const home = route.method === 'GET' && new URL(path, 'http://x').pathname === '/';
        const exp = { status: [400, 404, 414, ...(route.method === 'OPTIONS' ? route.ok : []), ...(home ? [200] : [])] };
        await p.send(route.method, path, { body: route.body ? await route.body(w) : undefined, token: await tokenFor(route), label: `${name}=${short(value)}` }, exp);
      }
    }
    p.done();
  });

  it.each([
    ['GET', '/api/v1/articles/{id}'],
    ['DELETE', '/api/v1/account/api-keys/{id}'],
  ] as const)('%s %s: a non-integer or out-of-range id is a 400 naming id', async (method, template) => {
    const p = probes();
    const token = template.includes('account') ? w.owner.token : null;
    for (const id of ['abc', '99999999999999999999', '2147483648', '-1', '0', '1.5', 'NaN', 'Infinity', '1%00', '%20']) {
      await p.send(method, template.replace('{id}', id), { token, label: id }, { status: 400, code: 'invalid_request', field: 'id' });
    }
    for (const id of ['2147483647', '424242']) {
      await p.send(method, template.replace('{id}', id), { token, label: id }, { status: 404, code: 'not_found' });
    }
    p.done();
  });

  it.each(each(ROUTES.filter((r) => r.method === 'GET')))('%s: garbage in the query string is a clean answer', async (_n, route) => {
    const p = probes();
    const { path } = await validCall(route, w);
    const base = path.split('?')[0]!;
    const keep = new URLSearchParams(route.query?.(w) ?? {});
    for (const junk of ['%', '%%%', '%zz=%zz', 'a=%E0%A4%A', '=', '&&&', 'a[b]=1', '__proto__[x]=1', 'constructor.prototype.x=1', 'x=' + 'y'.repeat(10_000)]) {
      const qs = [keep.toString(), junk].filter(Boolean).join('&');
      await p.send('GET', `${base}?${qs}`, { token: await tokenFor(route), label: short(junk) }, { status: [...new Set([200, 400, 404, ...route.ok])] });
    }
    if (route.path === '/api/v1/pages' || route.path === '/api/v1/publishers') {
      for (const [name, value] of [
        ['page', 'abc'],
        ['page', '0'],
        ['page', '-1'],
        ['page', '1.5'],
        ['page', '99999999999999999999'],
        ['per_page', 'abc'],
        ['per_page', '0'],
        ['per_page', '-5'],
      ]) {
        const q = new URLSearchParams(keep);
        q.set(name!, value!);
        await p.send('GET', `${base}?${q.toString()}`, { token: await tokenFor(route), label: `${name}=${value}` }, { status: 400, field: name });
      }
      // Values above 100 are capped, not refused (SPEC §8).
      const capped = await p.send('GET', `${base}?${new URLSearchParams({ ...Object.fromEntries(keep), per_page: '100000' })}`, { token: await tokenFor(route) }, { status: 200 });
      expect(capped.body.meta.per_page).toBe(100);
    }
    p.done();
  });
});

describe('unknown paths and methods', () => {
  it('answer 404 in the envelope of the surface they fall in', async () => {
    const p = probes();
    const paths = [
      '/nope',
      '/v1',
      '/v1/',
      '/v1/nope',
      '/v1/pages/record/extra',
      '/api',
      '/api/v1',
      '/api/v1/',
      '/api/v1/nope',
      '/api/v2/pages',
      '/api/v1/articles',
      '/api/v1/articles/1/extra',
      '/api/v1/%00',
      '/api/v1/%FF',
      '/v1/%E0%A4%A',
      '/%',
      '/api/v1/..%2F..%2Fetc%2Fpasswd',
      '/v1/pages/..%2f..%2f..%2fetc%2fpasswd',
      '/.env',
      '/.git/config',
      '/wp-admin/',
      `/api/v1/${'x'.repeat(5_000)}`,
      '/docs/extra',
      '/healthz/extra',
    ];
    for (const path of paths) {
      await p.send('GET', path, {}, { status: [400, 404] });
      await p.send('POST', path, { raw: '{"a":', label: 'malformed JSON' }, { status: [400, 404] });
    }
    p.done();
  });

  it('a method a route does not have is a 4xx, never a 5xx', async () => {
    const p = probes();
    for (const route of ROUTES) {
      const { path } = await validCall(route, w);
      for (const method of ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].filter((m) => !ROUTES.some((r) => r.path === route.path && r.method === m))) {
        await p.send(method, path, { body: method === 'GET' ? undefined : {}, token: await tokenFor(route), label: `${method} on ${route.path}` }, { status: [400, 404, 405] });
      }
    }
    p.done();
  });

  it('/docs and /healthz shrug off garbage', async () => {
    const p = probes();
    for (const qs of ['', '?%', '?a=%E0%A4%A', `?x=${'y'.repeat(10_000)}`]) {
      await p.send('GET', `/docs${qs}`, {}, { status: 200 });
      await p.send('GET', `/healthz${qs}`, {}, { status: 200 });
    }
    await p.send('GET', '/docs', { headers: { authorization: 'Bearer garbage' } }, { status: 200 });
    await p.send('GET', '/healthz', { headers: { 'x-api-key': 'garbage', 'x-request-id': '\u00ff'.repeat(10) } }, { status: 200 });
    p.done();
  });

  it('hostile headers are a clean answer', async () => {
    const p = probes();
    const headers: Record<string, string>[] = [
      { 'x-request-id': 'x'.repeat(5_000) },
      { 'x-request-id': '../../etc/passwd' },
      { 'x-forwarded-for': 'not-an-ip, also not' },
      { 'x-forwarded-proto': 'gopher' },
      { authorization: `Bearer ${'a'.repeat(8_000)}` },
      { 'x-api-key': 'cred_live_' + 'g'.repeat(64) },
      { 'content-type': 'application/json; charset=latin1' },
      { accept: 'text/html' },
    ];
    for (const h of headers) {
      await p.send('GET', '/api/v1/whoami', { headers: h, label: short(JSON.stringify(h)) }, { status: [200, 400, 401] });
      await p.send('GET', `/v1/pages/record?url=${encodeURIComponent(w.page.url)}`, { headers: h, label: short(JSON.stringify(h)) }, { status: [200, 400, 401] });
    }
    p.done();
  });
});

describe('afterwards', () => {
  it('a body sent in chunks past 5 MB is cut off with 413', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${t.baseUrl}/api/v1/pages`);
      const req = http.request(
        { method: 'POST', host: url.hostname, port: url.port, path: url.pathname, headers: { 'content-type': 'application/json', authorization: `Bearer ${w.pub.key}`, 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      req.write('{"url":"');
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
        req.end('"}');
      };
      pump();
    });
    expect(status, body).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
  });

  it('the process still answers /healthz, and a valid call still works', async () => {
    const health = await new Client(t.baseUrl).get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true });
    const who = await new Client(t.baseUrl).get('/api/v1/whoami', { token: w.pub.key });
    expect(who.status, who.text).toBe(200);
    const account = await new Client(t.baseUrl).get('/api/v1/account', { token: w.owner.token });
    expect(account.status, account.text).toBe(200);
  });
});
