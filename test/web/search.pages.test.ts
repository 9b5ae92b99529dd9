// The search page over the full-text index: "measles" finds the pages and the panel statement with it in their
// titles, each linked to its page here and marked with its kind; filters by kind; nothing private.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, statementBody } from '../api/panels.fixtures.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
let pageId: number;
let panelId: string;
let username: string;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  const pub = await publisher(t);
  const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/health/outbreak-north`, title: 'Measles outbreak in the north' });
  expect(reg.status, reg.text).toBe(201);
  pageId = reg.body.data.id;
  expect((await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/weather`, title: 'The weather' })).status).toBe(201);
  const admin = await makeAdmin(t);
  const body = statementBody({ question: 'Does an early measles vaccine dose protect infants?' });
  expect((await admin.client.post('/api/v1/admin/panels', body)).status).toBe(201);
  panelId = body.id;
  username = (await signup(t, { name: 'Mira Measlesworth', email: 'private-inbox-measles@mail.test' })).username;
});
afterAll(async () => t?.close());

describe('/search', () => {
  it('finds pages and panel statements by a word of their titles, and people by name, each linked and labelled', async () => {
    const res = await new FormClient(t.baseUrl).get('/search?q=measles');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<p class="muted" role="status">3 results.</p>');
    expect(res.text).toContain(`href="/records/${pageId}"`);
    expect(res.text).toContain('Measles outbreak in the north');
    expect(res.text).toContain(`href="/panels/${panelId}"`);
    expect(res.text).toContain(`href="/contributors/${username}"`);
    expect(res.text).not.toContain('The weather');
    expect(res.text).not.toContain('private-inbox');
    for (const kind of ['Page', 'Expert panel', 'Contributor']) expect(res.text).toContain(`<span class="badge">${kind}</span>`);
    expect(res.text).toContain('<meta name="robots" content="noindex">');
  });

  it('narrows to one kind with the filters', async () => {
    const res = await new FormClient(t.baseUrl).get('/search?q=measles&type=panel');
    expect(res.text).toContain('1 result among panels.');
    expect(res.text).toContain(`href="/panels/${panelId}"`);
    expect(res.text).not.toContain(`href="/records/${pageId}"`);
    expect(res.text).toMatch(/<a href="\/search\?q=measles&amp;type=panel" aria-current="page">Panels/);
  });

  it('says nothing matched, and suggests what to try', async () => {
    const res = await new FormClient(t.baseUrl).get('/search?q=zzzznothing');
    expect(res.text).toContain('Nothing matched.');
    expect(res.text).toContain('Try fewer words, or the start of a word.');
  });
});
