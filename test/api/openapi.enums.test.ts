// Both OpenAPI documents say which values a field can hold: every field whose values come from a fixed list (a
// status, a level, a kind, a credential, an event name, …) is an enum (or a const), never a plain string, and every
// URL field says `format: uri`. The walk covers parameters, bodies, answers and webhook payloads, so a new route
// that forgets the shared enum (src/surfaces/vocabulary.ts) fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { type TestApp, startTestApp } from '../harness.js';

let t: TestApp;
const docs: Record<string, Doc> = {};
beforeAll(async () => {
  t = await startTestApp();
  const anon = new Client(t.baseUrl);
  for (const url of ['/v1/openapi.json', '/api/v1/openapi.json']) docs[url] = (await anon.get(url)).body as Doc;
});
afterAll(async () => t?.close());

type Doc = Record<string, unknown>;
type Node = Record<string, unknown>;

/** Field names whose values always come from a fixed list. */
const FIXED = new Set([
  'status',
  'level',
  'kind',
  'credential',
  'role',
  'decision',
  'type',
  'request_type',
  'method',
  'event',
  'events',
  'disabled_reason',
  'delivery_status',
  'format',
  'style',
  'code',
  'certainty',
  'algorithm',
]);
/** Free text by design: a panellist’s role (`chair`, `methodologist`, …; the seed gives examples, not a list), and a signed credential. */
const FREE = [
  /\/panel\/items\/role$/,
  // A contribution's verifiable credential in its VC-JWT form: a signed string, not a kind of caller's credential.
  /\/credential\/get\/responses\/200\/content\/application\/json\/schema\/data\/credential\/anyOf\/1$/,
];
/** Fields that only exist beside a fixed list (a verdict's name and label). */
const FIXED_BY_PATH = [/\/verdict\/(name|label)$/];
const URL_FIELD = /(^|_)url$|^(record|proof|profile|panel|publisher)$/;

interface Field {
  path: string;
  name: string;
  schema: Node;
}

/** Every schema in the document that stands for one named field (a property, a parameter, an array's items). */
function fields(doc: Doc): Field[] {
  const out: Field[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, path: string, name: string | null) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`, name));
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const n = node as Node;
    if (name && (n.type === 'string' || (Array.isArray(n.type) && n.type.includes('string')))) out.push({ path, name, schema: n });
    for (const [k, v] of Object.entries(n)) {
      if (k === 'properties' && v && typeof v === 'object') {
        for (const [pk, pv] of Object.entries(v)) walk(pv, `${path}/${pk}`, pk);
      } else if (k === 'parameters' && Array.isArray(v)) {
        for (const p of v as Node[]) walk(p.schema, `${path}/${String(p.in)}:${String(p.name)}`, String(p.name));
      } else if (k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'additionalProperties' || k === 'patternProperties') {
        walk(v, `${path}/${k}`, name);
      } else if (/^\d+$/.test(k) || k.startsWith('^')) {
        walk(v, `${path}/${k}`, name);
      } else {
        walk(v, `${path}/${k}`, null);
      }
    }
  };
  walk(doc, '', null);
  return out;
}

const plain = (s: Node) => !('enum' in s) && !('const' in s);

describe.each(['/v1/openapi.json', '/api/v1/openapi.json'])('%s', (url) => {
  it('has no fixed-list field as a plain string', () => {
    const found = fields(docs[url]!);
    expect(found.length).toBeGreaterThan(100);
    const loose = found
      .filter((f) => (FIXED.has(f.name) || FIXED_BY_PATH.some((r) => r.test(f.path))) && !FREE.some((r) => r.test(f.path)))
      .filter((f) => plain(f.schema) && !f.path.includes('/components/headers/'))
      .map((f) => f.path);
    expect(loose).toEqual([]);
  });

  it('gives every URL field `format: uri`', () => {
    const loose = fields(docs[url]!)
      .filter((f) => URL_FIELD.test(f.name) && f.schema.format !== 'uri' && plain(f.schema))
      // `publisher` is a slug where it is not a link.
      .filter((f) => !(f.name === 'publisher' && !f.path.includes('/links/')))
      .map((f) => f.path);
    expect(loose).toEqual([]);
  });

  it('spells the shared lists the same way everywhere', () => {
    const byName = new Map<string, Set<string>>();
    for (const f of fields(docs[url]!)) {
      if (!Array.isArray(f.schema.enum) || !['level', 'credential', 'disabled_reason'].includes(f.name)) continue;
      (byName.get(f.name) ?? byName.set(f.name, new Set()).get(f.name)!).add(JSON.stringify(f.schema.enum));
    }
    for (const [, forms] of byName) expect(forms.size).toBe(1);
  });
});

describe('the values', () => {
  it('come from the domain’s lists', () => {
    const api = docs['/api/v1/openapi.json']!;
    const paths = api.paths as Record<string, Record<string, Node>>;
    const schemaOf = (path: string, method = 'get', status = '200') =>
      ((((paths[path]![method]!.responses as Node)[status] as Node).content as Node)['application/json'] as Node).schema as Node;
    const whoami = ((schemaOf('/whoami').properties as Node).data as Node).properties as Record<string, Node>;
    expect(whoami.credential!.enum).toEqual(['publisher_key', 'contributor_key', 'session']);
    const key = (((schemaOf('/account/api-keys').properties as Node).data as Node).items as Node).properties as Record<string, Node>;
    expect(key.status!.enum).toEqual(['active', 'revoked', 'expired']);
    expect(key.kind!.enum).toEqual(['publisher', 'contributor']);
    const contributor = (((schemaOf('/contributors').properties as Node).data as Node).items as Node).properties as Record<string, Node>;
    expect(contributor.level!.enum).toEqual(['newcomer', 'contributor', 'trusted', 'expert']);
    expect(contributor.profile_url).toMatchObject({ type: 'string', format: 'uri' });
    const lookup = ((schemaOf('/pages/lookup').properties as Node).data as Node).properties as Record<string, Node>;
    expect(lookup.url).toMatchObject({ format: 'uri', maxLength: 2048 });
  });
});
