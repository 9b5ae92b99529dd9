// The documents' links (create, then read) name operations that exist, with parameters those operations take; the
// root addresses are reachable by a client based at the surface; the script answers name their media type.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { type TestApp, startTestApp } from '../harness.js';

type Node = Record<string, any>;
let t: TestApp;
const docs: Record<string, Node> = {};
beforeAll(async () => {
  t = await startTestApp();
  const anon = new Client(t.baseUrl);
  for (const url of ['/v1/openapi.json', '/api/v1/openapi.json']) docs[url] = (await anon.get(url)).body as Node;
});
afterAll(async () => t?.close());

/** A registered page with one accepted contribution (an author the publisher names). */
async function makePublisherWithPage(app: TestApp) {
  const pub = await publisher(app);
  const author = await signup(app);
  const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/story`, title: 'The Story', authors: [author.username] });
  await confirmClaims(author);
  expect(reg.status, reg.text).toBe(201);
  const record = await new Client(app.baseUrl).get(`/api/v1/articles/${reg.body.data.id}`);
  const proofUrl = record.body.data.contributors.author[0].proof_url as string;
  return { pageId: reg.body.data.id as number, contributionId: Number(proofUrl.split('/').pop()) };
}

const operations = (doc: Node) =>
  new Map(Object.values(doc.paths as Node).flatMap((item: Node) => Object.entries(item).filter(([m]) => m !== 'servers' && m !== 'parameters').map(([, op]) => [op.operationId as string, op as Node])));

describe.each(['/v1/openapi.json', '/api/v1/openapi.json'])('%s links', (url) => {
  it('name operations of the document, with parameters they take', () => {
    const doc = docs[url]!;
    const ops = operations(doc);
    const bad: string[] = [];
    let count = 0;
    for (const op of ops.values()) {
      for (const [status, res] of Object.entries(op.responses as Node)) {
        for (const [name, l] of Object.entries(((res as Node).links ?? {}) as Node)) {
          count++;
          const target = ops.get(l.operationId);
          if (!target) bad.push(`${op.operationId} ${status} ${name}: no operation ${l.operationId}`);
          const taken = new Set(((target?.parameters ?? []) as Node[]).map((p) => p.name));
          for (const p of Object.keys(l.parameters ?? {})) if (!taken.has(p)) bad.push(`${op.operationId} ${status} ${name}: ${l.operationId} takes no ${p}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(count).toBeGreaterThan(0);
  });
});

describe('the create-then-read flows', () => {
  it('are linked', () => {
    const api = docs['/api/v1/openapi.json']!.paths as Node;
    expect(api['/pages'].post.responses['201'].links.record).toEqual(expect.objectContaining({ operationId: 'getArticlesById', parameters: { id: '$response.body#/data/id' } }));
    expect(api['/pages'].post.responses['201'].links.lookup.operationId).toBe('getPagesLookup');
    expect(api['/requests'].post.responses['201'].links.request.operationId).toBe('getReviewRequestsById');
    expect(api['/submissions'].post.responses['201'].links.withdraw.operationId).toBe('postSubmissionsByIdWithdraw');
    expect(api['/submissions'].post.responses['201'].links.submission.operationId).toBe('getSubmissionsById');
    expect(api['/account/webhooks'].post.responses['201'].links.webhook.operationId).toBe('getAccountWebhooksById');
    expect(api['/account/api-keys'].post.responses['201'].links.keys.operationId).toBe('getAccountApiKeys');
    const v1 = docs['/v1/openapi.json']!.paths as Node;
    expect(v1['/requests'].post.responses['201'].links.requests.operationId).toBe('getRequests');
  });
});

describe('the root addresses', () => {
  it('are documented under the surface, where a client based at {site}/v1 reaches them', async () => {
    const v1 = docs['/v1/openapi.json']!;
    for (const path of ['/records/{id}', '/proofs/{id}', '/embed.js']) {
      expect(v1.paths[path], path).toBeDefined();
      expect(v1.paths[path].servers, path).toBeUndefined();
    }
    expect(v1.paths['/proofs/{id}'].get.parameters[0].schema.pattern).toBe('^(ctb_)?[1-9][0-9]{0,9}$');
    // Every path of the document answers at the document's server + the path.
    const w = await makePublisherWithPage(t);
    const anon = new Client(t.baseUrl);
    const base = new URL(v1.servers[0].url).pathname;
    const record = await anon.get(`${base}/records/${w.pageId}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ id: w.pageId, has_record: true });
    const proof = await anon.get(`${base}/proofs/ctb_${w.contributionId}`);
    expect(proof.status).toBe(200);
    expect(proof.body.id).toBe(`ctb_${w.contributionId}`);
    // The same operation at its root address, by the bare number too.
    expect((await anon.get(`/proofs/${w.contributionId}`)).body.id).toBe(`ctb_${w.contributionId}`);
    const script = await anon.get(`${base}/embed.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(script.text).toBe((await anon.get('/embed.js')).text);
  });

  it('document the scripts with the media type they are served as', async () => {
    const api = docs['/api/v1/openapi.json']!.paths as Node;
    for (const path of ['/embed/article/{id}', '/embed/by-url']) {
      const content = api[path].get.responses['200'].content;
      expect(Object.keys(content).sort(), path).toEqual(['application/javascript', 'application/json', 'text/html']);
    }
    expect(Object.keys(docs['/v1/openapi.json']!.paths['/embed.js'].get.responses['200'].content)).toEqual(['application/javascript']);
    const w = await makePublisherWithPage(t);
    const js = await new Client(t.baseUrl).get(`/api/v1/embed/article/${w.pageId}?format=js`);
    expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
  });
});

describe.each(['/v1/openapi.json', '/api/v1/openapi.json'])('%s links resolve', (url) => {
  /** The schemas a JSON pointer reaches in `schema`, one per branch of each union on the way; null where it stops. */
  function reach(doc: Node, schema: Node | undefined, parts: string[]): (Node | null)[] {
    if (!schema) return [null];
    if (schema.$ref) return reach(doc, (schema.$ref as string).split('/').slice(1).reduce((o: Node, k: string) => o[k], doc), parts);
    if (schema.anyOf) return (schema.anyOf as Node[]).flatMap((s) => reach(doc, s, parts));
    // Every member of an allOf holds: the pointer is there when one of them has it.
    if (schema.allOf) {
      const found = (schema.allOf as Node[]).flatMap((s) => reach(doc, s, parts)).filter((s) => s !== null);
      return found.length > 0 ? found : [null];
    }
    if (parts.length === 0) return [schema];
    const [head, ...rest] = parts;
    if (/^\d+$/.test(head!) && schema.items) return reach(doc, schema.items as Node, rest);
    return reach(doc, (schema.properties as Node | undefined)?.[head!], rest);
  }

  it('in every shape the answer can take (a batch answer included)', () => {
    const doc = docs[url]!;
    const bad: string[] = [];
    for (const op of operations(doc).values()) {
      for (const [status, res] of Object.entries(op.responses as Node)) {
        const schema = (res as Node).content?.['application/json']?.schema as Node | undefined;
        for (const [name, l] of Object.entries(((res as Node).links ?? {}) as Node)) {
          for (const expr of Object.values((l.parameters ?? {}) as Record<string, string>)) {
            const m = /^\$response\.body#\/(.*)$/.exec(expr);
            if (!m) continue;
            if (reach(doc, schema, m[1]!.split('/')).some((s) => s === null)) bad.push(`${op.operationId} ${status} ${name}: ${expr} is not in every shape`);
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });
});
