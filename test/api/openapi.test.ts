// The OpenAPI documents describe every route, and /docs renders them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { toOpenApiPath } from '../../src/surfaces/docs/openapi.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('OpenAPI', () => {
  it('describes every route that is not deliberately hidden', async () => {
    const built = await buildApp(t.runtime.deps);
    await built.app.ready();
    const documented = new Set([...built.openapi.v1.operations(), ...built.openapi.api.operations()]);
    const visible = built.routes.filter((r) => !r.hidden).map((r) => `${r.method} ${toOpenApiPath(r.url)}`);
    expect(visible.length).toBeGreaterThan(10);
    expect(visible.filter((op) => !documented.has(op))).toEqual([]);
    // Hidden routes are only the documents themselves and operational endpoints.
    expect(built.routes.filter((r) => r.hidden && !r.html).map((r) => `${r.method} ${r.url}`).sort()).toEqual(
      [
        'GET /api/v1/openapi.json',
        'GET /docs',
        'GET /docs/',
        'GET /favicon.ico',
        'GET /healthz',
        'GET /livez',
        'GET /readyz',
        'GET /v1/openapi.json',
        'GET /assets/app.css',
        'GET /assets/dashboard.js',
        'GET /assets/log-verify.js',
        'GET /assets/docs.js',
        'GET /assets/tabs.js',
        'GET /assets/credential-verify.js',
        // The credentials' issuer: a DID document, published where did:web says, not an API operation.
        'GET /.well-known/did.json',
        'GET /assets/me.js',
        // Documented once under /v1 (GET /v1/records/:id, /v1/proofs/:id, /v1/embed.js), so a client based there reaches them.
        'GET /records/:id',
        'GET /proofs/:id',
        'GET /embed.js',
        // The attribution block's stylesheet: an asset the block links, like /assets/app.css.
        'GET /embed.css',
      ].sort(),
    );
    await built.app.close();
  });

  it('serves both documents as OpenAPI 3.1 with the paths of each surface', async () => {
    const anon = new Client(t.baseUrl);
    const v1 = await anon.get('/v1/openapi.json');
    const api = await anon.get('/api/v1/openapi.json');
    expect(v1.body.openapi).toBe('3.1.0');
    expect(api.body.openapi).toBe('3.1.0');
    expect(Object.keys(v1.body.paths)).toContain('/pages/record');
    expect(Object.keys(api.body.paths)).toEqual(expect.arrayContaining(['/pages/lookup', '/pages', '/articles/{id}', '/account/api-keys/{id}']));
    expect(api.body.servers[0].url).toBe('https://credence.test/api/v1');
    const lookup = api.body.paths['/pages/lookup'].get;
    expect(lookup.parameters).toContainEqual(expect.objectContaining({ name: 'url', in: 'query', required: true }));
    expect(api.body.paths['/account/api-keys'].post.security).toEqual([{ bearer: [] }]);
  });

  it('renders a readable reference at /docs', async () => {
    const res = await new Client(t.baseUrl).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('/pages/lookup');
    expect(res.text).toContain('/pages/record');
  });

  it('lists a 401 only under an operation that reads a credential, and says when one is optional', async () => {
    const text = (await new Client(t.baseUrl).get('/docs')).text;
    const ops = [...text.matchAll(/<section class="op"[\s\S]*?<\/section>/g)].map((m) => m[0]);
    const open = ops.filter((op) => op.includes('Auth: none'));
    for (const op of open) expect(op, op.slice(0, 200)).not.toMatch(/>401 response/);
    // Public reads take a key or session if sent, and refuse a bad one: they say so rather than "none".
    const optional = ops.filter((op) => op.includes('Auth: optional (key or session)'));
    expect(optional.length).toBeGreaterThan(10);
    expect(optional.every((op) => />401 response/.test(op))).toBe(true);
  });
});
