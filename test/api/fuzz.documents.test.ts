// Both OpenAPI documents, fuzzed from their own schemas: every operation is called with path parameters, query
// strings and bodies that fast-check builds from what the document says it takes (valid values, boundaries, wrong
// types, missing and unknown fields, unicode, huge strings within the body limit), with each kind of credential and
// without. Every answer must be one the document lists: never a 5xx, a status the operation lists (`default` does
// not count), the media type listed for that status, a JSON body that validates against its schema, errors in the
// surface's envelope naming the field at fault, and nothing private (a stack trace, an email, a secret).
//
// Each operation's first case is its route-table row's valid call, on a world with work in it (makeWorld, withWork),
// and the last test fails naming every operation that never answered 2xx, or only with empty lists, and the fixture
// it needs: the success paths are fuzzed too, not only the refusals.
//
// Bounded: a fixed seed and FUZZ_RUNS cases per operation (default 12, about ten seconds per database). Run longer,
// or with another seed, locally: `FUZZ_RUNS=500 FUZZ_SEED=7 npx vitest run test/api/fuzz.documents.test.ts`.
import fs from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type Res } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { ROUTES, type RouteSpec, WORLD_APP_OPTIONS, type World, keyFor, makeWorld, routeName, sessionFor, withWork } from './route-table.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

type Schema = Record<string, any>;
interface Media {
  schema?: Schema;
}
interface Answer {
  content?: Record<string, Media>;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  name: string;
  /** The document it is in: its $refs resolve there. */
  doc: 'v1' | 'api';
  route: RouteSpec;
  parameters: Parameter[];
  /** The request body's media type and schema. */
  body: { media: string; schema: Schema } | null;
  responses: Record<string, Answer & { pointer: string }>;
}

let t: TestApp;
let w: World;
const ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateFormats: true }));
const operations: Operation[] = [];
/** Operations the documents list that have no row in route-table.ts. */
const unrowed: string[] = [];
/** Compiled response schemas, by their place in the document. */
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  // Callers come from 10.x addresses (test/client.ts): exempt from the rate limits, so the budget goes to the
  // schemas (limits.test.ts meets the 429s). One account makes many keys, webhooks, publications and takes here:
  // WORLD_APP_OPTIONS raises every cap on what one account, publication or person holds, a new one included.
  t = await startTestApp({ ...WORLD_APP_OPTIONS, rateLimitAllowlist: ['10.0.0.0/8'] });
  w = await makeWorld(t);
  await withWork(w);
  const anon = new Client(t.baseUrl);
  for (const [doc, url] of [
    ['v1', '/v1/openapi.json'],
    ['api', '/api/v1/openapi.json'],
  ] as const) {
    const res = await anon.get(url);
    expect(res.status).toBe(200);
    ajv.addSchema(res.body, doc);
    const base = new URL(res.body.servers[0].url as string).pathname;
    for (const [path, item] of Object.entries(res.body.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const name = `${method.toUpperCase()} ${base}${path}`;
        const route = ROUTES.find((r) => routeName(r) === name);
        // Named by its own test below, so that the others are still fuzzed.
        if (!route) {
          unrowed.push(name);
          continue;
        }
        const responses: Operation['responses'] = {};
        for (const [status, answer] of Object.entries(op.responses as Record<string, any>)) {
          const pointer = typeof answer.$ref === 'string' ? answer.$ref.slice(1) : `/paths/${esc(path)}/${method}/responses/${status}`;
          const resolved = typeof answer.$ref === 'string' ? at(res.body, pointer) : answer;
          responses[status] = { ...resolved, pointer };
        }
        const content = op.requestBody?.content as Record<string, Media> | undefined;
        const [media, bodyMedia] = content ? Object.entries(content)[0]! : [null, null];
        operations.push({
          name,
          doc,
          route: route!,
          parameters: ((op.parameters ?? []) as Parameter[]).map((p) => ({ ...p, schema: deref(res.body, p.schema) })),
          body: media ? { media, schema: deref(res.body, bodyMedia!.schema ?? {}) } : null,
          responses,
        });
      }
    }
  }
}, 120_000);
afterAll(async () => t?.close());

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const at = (doc: unknown, pointer: string): any =>
  pointer
    .split('/')
    .slice(1)
    .reduce<any>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
/** The schema with its `$ref`s inlined (the documents' refs point into their components, never in a cycle). */
function deref(doc: unknown, schema: unknown): any {
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return deref(doc, at(doc, s.$ref.slice(1)));
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, deref(doc, v)]));
}

// ---------------------------------------------------------------------------------------------------------------
// Arbitraries from schemas.

/** Strings people and attackers type: unicode in every plane, controls, markup, whitespace alone. */
const HOSTILE = [
  '',
  ' ',
  '\t \n',
  'a\u0000b',
  '\ud800 lone surrogate',
  'emoji 🙂 ü ﷽ \u202e rtl',
  '🙂'.repeat(60),
  'e\u0301'.repeat(30),
  '<script>alert(1)</script>',
  "'; drop table accounts; --",
  '../../etc/passwd',
  '%00%ff',
  '\u001b[31mred',
  'null',
  '0',
  '-1',
  'true',
  '{}',
  '[]',
];
const wrongType = fc.constantFrom<unknown>(12345, 1.5, -1, 0, 1e308, true, false, null, [], ['x'], {}, { a: 'b' }, 'text', '');

function stringArb(s: Schema): fc.Arbitrary<string> {
  const max = typeof s.maxLength === 'number' ? s.maxLength : 200;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const options: fc.Arbitrary<string>[] = [fc.string({ minLength: min, maxLength: Math.min(max, 40), unit: 'grapheme' }), fc.constantFrom(...HOSTILE)];
  // Boundaries: exactly the limits, one past them, counted in characters.
  options.push(fc.constantFrom('x'.repeat(Math.min(max, 100_000)), 'x'.repeat(Math.min(max + 1, 100_001)), 'x'.repeat(Math.max(min - 1, 0))));
  if (typeof s.pattern === 'string') {
    try {
      options.push(fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= max && x.length >= min));
    } catch {
      // A pattern JavaScript cannot read generates nothing of its own.
    }
  }
  if (s.format === 'uri') options.push(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constantFrom('javascript:alert(1)', 'ftp://x', 'http://[::1', 'https://'));
  if (s.format === 'email') options.push(fc.emailAddress());
  if (s.format === 'date-time') options.push(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString()));
  if (s.format === 'date') options.push(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString().slice(0, 10)));
  return fc.oneof(...options);
}

function numberArb(s: Schema): fc.Arbitrary<number> {
  const integer = s.type === 'integer';
  const min = typeof s.minimum === 'number' ? s.minimum : -1e9;
  const max = typeof s.maximum === 'number' ? s.maximum : 1e9;
  const edges = [min, max, min - 1, max + 1, 0, -1].filter((n) => Number.isSafeInteger(n) || !integer);
  return fc.oneof(integer ? fc.integer({ min: Math.max(min, -2e9), max: Math.min(max, 2e9) }) : fc.double({ min, max, noNaN: true }), fc.constantFrom(...edges));
}

/** Values for a schema: mostly what it allows, with its edges and just past them. */
function arbOf(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 4) return fc.jsonValue({ maxDepth: 2 });
  if (Array.isArray(s.enum)) return fc.oneof(fc.constantFrom(...s.enum), fc.constant('not-in-the-enum'));
  if ('const' in s) return fc.constant(s.const);
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((u) => arbOf(u, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringArb(s);
    case 'integer':
    case 'number':
      return numberArb(s);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const maxItems = typeof s.maxItems === 'number' ? s.maxItems : 5;
      return fc.array(arbOf(s.items, depth + 1), { maxLength: Math.min(maxItems + 1, 6) });
    }
    case 'object':
    default: {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      return fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbOf(v, depth + 1)])),
        { requiredKeys: (s.required ?? []).filter((k: string) => k in props) },
      );
    }
  }
}

/** The object form of a body schema (a batch body is one object or an array of them). */
const objectForm = (s: Schema): Schema | null =>
  s.type === 'object' ? s : (((s.anyOf ?? s.oneOf ?? []) as Schema[]).find((x) => x.type === 'object') ?? null);

type Credential = 'right' | 'session' | 'publisherKey' | 'contributorKey' | 'admin' | 'none' | 'garbage' | 'xApiKey';
type BodyCase =
  | { kind: 'valid' }
  | { kind: 'field'; field: string; value: unknown; why: 'schema' | 'wrong type' | 'hostile' | 'huge' }
  | { kind: 'missing'; field: string }
  | { kind: 'unknown field' }
  | { kind: 'generated'; value: unknown }
  | { kind: 'raw'; raw: string; type?: string };
interface Case {
  credential: Credential;
  params: Record<string, { value: string; raw?: boolean } | null>;
  query: Record<string, { value: string; why: string } | null | undefined>;
  body: BodyCase;
  fresh: boolean;
}

const PATH_ODD = ['%00', '%FF', '%F0%9F%99%82', '..%2F..%2Fetc', '%20', 'x'.repeat(501), '0', '-1', '2147483648', '1.5', 'abc'];
/** Ids far from anything the world made, so a fuzzed DELETE never revokes the world's own keys or webhooks. */
const farInteger = fc.oneof(fc.integer({ min: 1_000_000, max: 2_147_483_647 }), fc.constantFrom(0, -1, 2_147_483_647, 2_147_483_648));

function caseArb(op: Operation): fc.Arbitrary<Case> {
  const credential = fc.constantFrom<Credential>('right', 'right', 'right', 'session', 'publisherKey', 'contributorKey', 'admin', 'none', 'garbage', 'xApiKey');
  const params = fc.record(
    Object.fromEntries(
      op.parameters
        .filter((p) => p.in === 'path')
        .map((p) => {
          const generated = p.schema.type === 'integer' ? farInteger.map(String) : (arbOf(p.schema) as fc.Arbitrary<unknown>).map((v) => String(v));
          return [
            p.name,
            fc.oneof(
              { arbitrary: fc.constant(null), weight: 4 },
              { arbitrary: generated.map((value) => ({ value })), weight: 2 },
              { arbitrary: fc.constantFrom(...PATH_ODD).map((value) => ({ value, raw: true })), weight: 1 },
            ),
          ];
        }),
    ),
  ) as fc.Arbitrary<Case['params']>;
  const query = fc.record(
    Object.fromEntries(
      op.parameters
        .filter((p) => p.in === 'query')
        .map((p) => [
          p.name,
          fc.oneof(
            { arbitrary: fc.constant(null), weight: 3 },
            { arbitrary: fc.constant(undefined), weight: 1 },
            { arbitrary: arbOf(p.schema).map((v) => ({ value: typeof v === 'string' ? v : JSON.stringify(v), why: 'schema' })), weight: 2 },
            { arbitrary: wrongType.map((v) => ({ value: typeof v === 'string' ? v : JSON.stringify(v), why: 'wrong type' })), weight: 1 },
          ),
        ]),
    ),
  ) as fc.Arbitrary<Case['query']>;
  return fc.record({ credential, params, query, body: bodyArb(op), fresh: fc.boolean() });
}

function bodyArb(op: Operation): fc.Arbitrary<BodyCase> {
  if (!op.body) return fc.constant({ kind: 'valid' } as BodyCase);
  if (op.body.media !== 'application/json') {
    // A text protocol (C2SP tlog-witness): lines, noise, JSON where text is expected.
    return fc.oneof(
      fc.constant({ kind: 'valid' } as BodyCase),
      fc
        .tuple(fc.nat(), fc.array(fc.base64String({ minLength: 44, maxLength: 44 }), { maxLength: 3 }), fc.string({ unit: 'grapheme', maxLength: 200 }))
        .map(([size, proof, rest]) => ({ kind: 'raw', raw: `old ${size}\n${proof.join('\n')}\n\n${rest}`, type: 'text/plain' }) as BodyCase),
      fc.string({ unit: 'binary', maxLength: 300 }).map((raw) => ({ kind: 'raw', raw, type: 'text/plain' }) as BodyCase),
      fc.jsonValue({ maxDepth: 2 }).map((v) => ({ kind: 'raw', raw: JSON.stringify(v), type: 'application/json' }) as BodyCase),
    );
  }
  const object = objectForm(op.body.schema);
  const fields = Object.keys(object?.properties ?? {});
  const required = (object?.required ?? []) as string[];
  // Sign-in and sign-up take 16 KB in all (http/bodies.ts); the rest 5 MB: a huge string that still fits.
  const huge = 'y'.repeat(op.route.path.includes('/auth/') ? 12_000 : 300_000);
  const options: fc.Arbitrary<BodyCase>[] = [
    fc.constant({ kind: 'valid' } as BodyCase),
    fc.constant({ kind: 'unknown field' } as BodyCase),
    arbOf(op.body.schema).map((value) => ({ kind: 'generated', value }) as BodyCase),
    fc.constantFrom('{"a":', '"text"', '42', 'null', '[]', '[[]]', '\uFEFF{}', '{"a":1}{"b":2}').map((raw) => ({ kind: 'raw', raw }) as BodyCase),
    fc.constantFrom('text/plain', 'application/x-www-form-urlencoded').map((type) => ({ kind: 'raw', raw: '{}', type }) as BodyCase),
  ];
  if (fields.length > 0) {
    const field = fc.constantFrom(...fields);
    options.push(
      field.chain((f) => arbOf(object!.properties[f]).map((value) => ({ kind: 'field', field: f, value, why: 'schema' }) as BodyCase)),
      fc.tuple(field, wrongType).map(([f, value]) => ({ kind: 'field', field: f, value, why: 'wrong type' }) as BodyCase),
      fc.tuple(field, fc.constantFrom(...HOSTILE)).map(([f, value]) => ({ kind: 'field', field: f, value, why: 'hostile' }) as BodyCase),
      field.map((f) => ({ kind: 'field', field: f, value: huge, why: 'huge' }) as BodyCase),
    );
  }
  if (required.length > 0) options.push(fc.constantFrom(...required).map((f) => ({ kind: 'missing', field: f }) as BodyCase));
  return fc.oneof(...options);
}

// ---------------------------------------------------------------------------------------------------------------
// Sending a case.

/** A session for a route that ends the one it is called with (logout, erasure): replaced once a call ends it. */
const doomed = new Map<string, string>();
async function doomedSession(op: Operation): Promise<string> {
  let token = doomed.get(op.name);
  if (!token) doomed.set(op.name, (token = (await signup(t)).token));
  return token;
}

async function credentialOf(op: Operation, c: Credential): Promise<{ token: string | null; asHeader?: 'x-api-key' }> {
  const route = op.route;
  // Whatever session reaches a route that ends sessions is one of its own, never the world's.
  const session = route.endsSession ? await doomedSession(op) : sessionFor(route, w);
  switch (c) {
    case 'right':
      return { token: route.endsSession ? session : route.auth === 'none' ? null : (keyFor(route, w) ?? session) };
    case 'session':
      return { token: session };
    case 'publisherKey':
      return { token: w.pub.key };
    case 'contributorKey':
      return { token: w.contributorKey };
    case 'admin':
      return { token: route.endsSession ? session : w.admin.token };
    case 'none':
      return { token: null };
    case 'garbage':
      return { token: `cred_live_${'0'.repeat(40)}` };
    case 'xApiKey':
      return { token: keyFor(route, w) ?? w.contributorKey, asHeader: 'x-api-key' };
  }
}

function request(op: Operation, c: Case, valid: { params: Record<string, string>; query: Record<string, string>; body: Record<string, unknown> | undefined; text?: string }) {
  let path = op.route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const chosen = c.params[name];
    if (!chosen) return name === 'path' ? valid.params[name]! : encodeURIComponent(valid.params[name]!);
    return chosen.raw ? chosen.value : encodeURIComponent(chosen.value.replace(/\p{Cs}/gu, '\uFFFD'));
  });
  const q = new URLSearchParams(valid.query);
  for (const [name, chosen] of Object.entries(c.query)) {
    if (chosen === undefined) q.delete(name);
    else if (chosen !== null) q.set(name, chosen.value);
  }
  if ([...q.keys()].length > 0) path += `?${q.toString()}`;
  let body: unknown;
  let raw: string | undefined;
  let type: string | undefined;
  switch (c.body.kind) {
    case 'valid':
      body = op.route.textBody ? undefined : valid.body;
      if (op.route.textBody) raw = valid.text ?? 'old 0\n\nnot a checkpoint\n';
      break;
    case 'field':
      body = { ...valid.body, [c.body.field]: c.body.value };
      break;
    case 'missing': {
      const { [c.body.field]: _gone, ...rest } = valid.body ?? {};
      body = rest;
      break;
    }
    case 'unknown field':
      body = { ...valid.body, zzz_unknown: 1 };
      break;
    case 'generated':
      body = c.body.value;
      break;
    case 'raw':
      raw = c.body.raw;
      type = c.body.type;
  }
  // A body on a route that takes none is sent only as the fuzzer's raw probes.
  if (!op.body && c.body.kind !== 'raw') body = undefined;
  return { path, body, raw, type };
}

// ---------------------------------------------------------------------------------------------------------------
// Judging an answer.

const mediaOf = (res: Res) => (res.status === 204 || res.status === 304 || res.text === '' ? null : (res.headers.get('content-type') ?? '').split(';')[0]!.trim() || null);
const STACK = /\n\s+at [^\n]+:\d+:\d+|node_modules\/|\/src\/[\w/.-]+\.ts\b|\bTypeError\b|\bReferenceError\b|SqliteError|error: relation /;
const EMAIL = /[A-Za-z0-9._%+-]+@(?:mail|ops)\.test\b/;

function secretsOf(): string[] {
  return [w.pub.key, w.contributorKey, w.owner.token, w.contributor.token, w.admin.token, w.founder.token, w.teammate.token, 'correct horse battery', 'scrypt$'];
}

function validatorFor(op: Operation, status: string, media: string): ValidateFunction | null {
  const answer = op.responses[status]!;
  const schema = answer.content?.[media]?.schema;
  if (!schema || !/json/.test(media)) return null;
  const key = `${op.doc}#${answer.pointer}/content/${esc(media)}/schema`;
  let v = validators.get(key);
  if (!v) validators.set(key, (v = ajv.compile({ $ref: key })));
  return v;
}

/** What is wrong with the answer, or null. */
function judge(op: Operation, c: Case, res: Res): string | null {
  const wrong: string[] = [];
  const status = String(res.status);
  if (res.status >= 500) wrong.push('a server error');
  const listedAs = op.responses[status] ? status : op.responses[`${status[0]}XX`] ? `${status[0]}XX` : null;
  if (!listedAs) return [...wrong, `${status} is not listed (${Object.keys(op.responses).join(', ')})`].join('; ');
  const listed = op.responses[listedAs]!;
  const media = mediaOf(res);
  if (media !== null && !(listed.content && media in listed.content)) wrong.push(`${status} as ${media} is not listed (${Object.keys(listed.content ?? {}).join(', ') || 'no body'})`);
  if (media === null && listed.content && res.status !== 204 && res.status !== 304) wrong.push(`${status} without a body, listed with one`);
  if (media !== null && listed.content?.[media]) {
    const validate = validatorFor(op, listedAs, media);
    if (validate && res.body === undefined) wrong.push(`${status} ${media} is not JSON`);
    else if (validate && !validate(res.body)) wrong.push(`${status} does not match its schema: ${ajv.errorsText(validate.errors)}`);
  }
  if (res.status >= 400 && media === 'application/json' && res.body?.error) {
    // The field at fault is named: a wrong type or a missing field of the body, a query value of the wrong type.
    const e = res.body.error as { code: string; details?: { field: string }[]; message: string };
    const fields = (e.details ?? []).map((d) => d.field);
    const names = (f: string) => fields.some((x) => x === f || x.startsWith(`${f}.`) || x.startsWith(`${f}[`)) || e.message.includes(f);
    const onlyTheBody = Object.values(c.params).every((p) => p === null) && Object.values(c.query).every((q) => q === null);
    if (onlyTheBody && res.status === 400 && e.code === 'invalid_request' && (c.body.kind === 'missing' || (c.body.kind === 'field' && c.body.why === 'wrong type'))) {
      if (!names(c.body.field) && !fields.some((f) => f === '' || f === 'body')) wrong.push(`the error does not name ${c.body.field} (${fields.join(', ') || e.message})`);
    }
  }
  if (STACK.test(res.text)) wrong.push('a stack trace or source path');
  const isPublic = op.route.auth === 'none' || res.status >= 400;
  if (isPublic && EMAIL.test(res.text)) wrong.push('an email address');
  if (isPublic && secretsOf().some((s) => res.text.includes(s))) wrong.push('a secret');
  return wrong.length > 0 ? wrong.join('; ') : null;
}

const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

function describeCase(c: Case, sent: { path: string; body: unknown; raw?: string; type?: string }): string {
  const body = sent.raw !== undefined ? `raw ${JSON.stringify(short(sent.raw, 80))}${sent.type ? ` as ${sent.type}` : ''}` : sent.body === undefined ? 'no body' : short(JSON.stringify(sent.body), 160);
  return `as ${c.credential}, ${short(sent.path, 160)}, ${body}`;
}

// ---------------------------------------------------------------------------------------------------------------

/** Operation names, from the committed documents, so each is its own test (the served ones are checked equal). */
const committed = (name: string) => JSON.parse(fs.readFileSync(new URL(`../../clients/typescript/openapi/${name}.json`, import.meta.url), 'utf8'));
const NAMES = (
  [
    ['/v1', committed('v1')],
    ['/api/v1', committed('api')],
  ] as const
).flatMap(([base, doc]) =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => `${m.toUpperCase()} ${base}${path}`),
  ),
);

describe('the documents, fuzzed from their schemas', () => {
  it('cover every operation the service serves', () => {
    expect([...operations.map((o) => o.name), ...unrowed].sort()).toEqual([...NAMES].sort());
    expect(operations.length).toBeGreaterThan(100);
  });

  it.each(NAMES)('%s answers only what its document lists', async (name) => {
    const op = operations.find((o) => o.name === name);
    if (!op) {
      expect.fail(
        unrowed.includes(name)
          ? `${name} has no row in test/api/route-table.ts: add one (auth, ok, and params/query/body that make a valid call, making what it names); the fuzzer starts from that call and fuzzes around it`
          : `${name} is in the committed document but not served: run npm run -s client:generate`,
      );
    }
    const problems = new Map<string, string>();
    const seen: Reached = { statuses: new Map(), valid: null, full: false };
    reached.set(name, seen);
    let valid = await freshValid(op);
    // The first case is the row's valid call as its right caller: the fixtures' way to the success path, so an
    // operation's 2xx does not hang on the seed's luck (it takes one of the RUNS cases, not one more).
    const example = validCase(op);
    await fc.assert(
      fc.asyncProperty(caseArb(op), async (c) => {
        // Now and then a new valid call: a route that acts once on what it names (take, accept, revoke) has it again.
        if (c.fresh && (op.route.method !== 'GET' || op.route.params)) valid = await freshValid(op);
        const sent = request(op, c, valid);
        const cred = await credentialOf(op, c.credential);
        t.clock.advance(6_000);
        const headers: Record<string, string> = {};
        if (sent.type) headers['content-type'] = sent.type;
        else if (op.route.textBody && sent.raw !== undefined) headers['content-type'] = 'text/plain';
        const res = await new Client(t.baseUrl).req(op.route.method, sent.path, { body: sent.body, raw: sent.raw, token: cred.token, asHeader: cred.asHeader, headers });
        if (op.route.endsSession && res.status < 300) doomed.delete(op.name);
        seen.statuses.set(res.status, (seen.statuses.get(res.status) ?? 0) + 1);
        if (is2xx(res.status) && !listsNothing(res.body)) seen.full = true;
        if (c === example) seen.valid = { status: res.status, text: res.text, credential: c.credential };
        const problem = judge(op, c, res);
        // One example of each kind of problem: the first case that showed it.
        if (problem && !problems.has(problem)) problems.set(problem, `${describeCase(c, sent)} → ${res.status} ${short(res.text)}`);
        return true;
      }),
      { seed: SEED ^ hash(name), numRuns: RUNS, endOnFailure: true, examples: [[example]] },
    );
    const report = [...problems].map(([p, example]) => `${p}\n    e.g. ${example}`);
    expect(report, `${name} (seed ${SEED}):\n${report.join('\n')}`).toEqual([]);
  }, 120_000);

  // Last, over every operation the cases above reached: each answered 2xx at least once, or is listed in NO_SUCCESS
  // with its reason. An operation run alone (`-t`) is judged alone; one not run is not judged.
  it('reaches every operation’s success path', () => {
    const missed = NAMES.filter((name) => reached.has(name) && !(name in NO_SUCCESS) && ![...reached.get(name)!.statuses.keys()].some(is2xx));
    const report = missed.map((name) => `${name}: ${whatItNeeds(reached.get(name)!)}`);
    // A list that is always empty checks no item against its schema: the world needs something for it to list.
    const empty = NAMES.filter((name) => reached.has(name) && !missed.includes(name) && !(name in NO_SUCCESS) && !reached.get(name)!.full);
    for (const name of empty) {
      report.push(`${name}: answered 2xx only with empty lists. Needs: something for it to list, made by withWork or makeWorld in test/api/route-table.ts (as the contributor's pending submission is), or \`params\`/\`query\` in its row that name what has some`);
    }
    expect(report, `operations that never reached their success path (seed ${SEED}):\n${report.join('\n')}`).toEqual([]);
    // The list stays true: an operation listed there that answers 2xx is taken off it.
    const succeeding = Object.keys(NO_SUCCESS).filter((name) => [...(reached.get(name)?.statuses.keys() ?? [])].some(is2xx));
    expect(succeeding, 'listed in NO_SUCCESS, yet answered 2xx').toEqual([]);
  });
});

/** What an operation's cases answered: each status and how often, and what its valid call (the first case) got. */
interface Reached {
  statuses: Map<number, number>;
  valid: { status: number; text: string; credential: Credential } | null;
  /** A 2xx answered with something in it (listsNothing), so the schemas of its items were checked too. */
  full: boolean;
}
const reached = new Map<string, Reached>();
const is2xx = (status: number) => status >= 200 && status < 300;

/** A JSON answer that lists nothing: every array at its top (inside `data` on /api/v1) is empty, and it has one. */
function listsNothing(body: unknown): boolean {
  const top = body && typeof body === 'object' && 'success' in body && 'data' in body ? (body as { data: unknown }).data : body;
  if (Array.isArray(top)) return top.length === 0;
  if (!top || typeof top !== 'object') return false;
  const arrays = Object.values(top).filter((v) => Array.isArray(v));
  return arrays.length > 0 && arrays.every((a) => a.length === 0);
}

/**
 * Operations that by their contract cannot answer 2xx in a test (or answer 2xx only with empty lists), each with its
 * reason; none today. Everything else must: a new operation gets there through its row in route-table.ts (a valid
 * call, with what it names made by `params`/`body`) and, for a list, something in the world to list.
 */
const NO_SUCCESS: Record<string, string> = {};

/** The row's valid call: every parameter and the query as the row makes them, its body, its right credential. */
function validCase(op: Operation): Case {
  return {
    credential: 'right',
    params: Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, null])),
    query: Object.fromEntries(op.parameters.filter((p) => p.in === 'query').map((p) => [p.name, null])),
    body: { kind: 'valid' },
    fresh: false,
  };
}

/** Why an operation's valid call did not succeed, read from its answer, and the fixture that would make it. */
function whatItNeeds(r: Reached): string {
  const seen = [...r.statuses].map(([status, n]) => `${status}×${n}`).join(', ');
  const row = `its row in test/api/route-table.ts`;
  if (!r.valid) return `answered ${seen}; its valid call was never sent (its test stopped before it: see its own failure)`;
  const { status, text, credential } = r.valid;
  let code = '';
  try {
    const e = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    if (e) code = ` ${e.code ?? ''}: ${short(e.message ?? '', 120)}`;
  } catch {
    code = ` ${short(text.trim(), 120)}`;
  }
  const needs =
    status === 401
      ? `the row's credential does not sign in: its \`auth\` (and \`as\`) in ${row}`
      : status === 403
        ? `a caller allowed to act on what the call names: the row's \`as\` or \`auth\`, or \`params\` that make the object the caller's own (${row})`
        : status === 404 || status === 410
          ? `what the path names must exist: \`params\` in ${row} should make it (as newDelivery makes a webhook with a queued delivery), or a fixture in makeWorld`
          : status === 409 || status === 422
            ? `what the call acts on is in the wrong state or was used up by an earlier case: \`params\`/\`body\` in ${row} should make a fresh one per call (\`fresh\` cases call them again)`
            : status === 429 || status === 503
              ? `a cap or rate limit stops it: raise the cap in this file's startTestApp options, as apiKeysPerAccount is`
              : status >= 400
                ? `the row's valid call is refused: its \`body\` and \`query\` in ${row} must be ones the operation takes`
                : `its valid call answered ${status}; list the 2xx it answers in the document, or fix \`ok\` in ${row}`;
  return `answered ${seen}; its valid call (as ${credential}) answered ${status}${code}. Needs: ${needs}, or an entry in NO_SUCCESS saying why it cannot succeed in a test`;
}

async function freshValid(op: Operation) {
  const route = op.route;
  const params = route.params ? await route.params(w) : {};
  const body = route.body ? await route.body(w) : undefined;
  return { params, query: route.query?.(w) ?? {}, body, text: route.text ? await route.text(w) : undefined };
}

/** A stable number per operation, so each has its own sequence under one seed. */
function hash(s: string): number {
  let h = 0;
  for (const ch of s) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}
