// "Log entry" links open pages people can read, never raw hash JSON: a notice on the record links to the entry's own
// page (/log/{index}: what changed, its bytes behind a disclosure, checked in the browser), and a contribution's entry
// is on its proof page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { confirmClaims, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
let pageId: number;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  const pub = await publisher(t);
  const author = await signup(t);
  const reg = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/story`, title: 'A story', authors: [author.username] });
  expect(reg.status, reg.text).toBe(201);
  pageId = reg.body.data.id;
  await confirmClaims(author);
  const notice = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'clarification', date: '2026-11-20', reason: 'A figure was unclear.' });
  expect(notice.status, notice.text).toBe(201);
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

describe('log entry links', () => {
  it('link a notice on the record to the entry’s page, which shows its bytes and checks it', async () => {
    const b = new FormClient(t.baseUrl);
    const record = await b.get(`/records/${pageId}`);
    expect(record.status).toBe(200);
    expect(record.text).not.toContain('/v1/log/proof/inclusion?index=');
    const href = /<a href="(\/log\/\d+)">Log entry \d+<\/a>/.exec(record.text)?.[1];
    expect(href).toBeDefined();
    const entry = await b.get(href!);
    expect(entry.status).toBe(200);
    expect(entry.text).toContain('<header class="site">');
    expect(entry.text).toMatch(/<details><summary>The entry’s bytes, as the log holds them<\/summary>/);
    expect(entry.text).toMatch(/<pre class="entry" data-log-entry data-log-openings="[^"]*">\{/);
    expect(entry.text).toContain('<script src="/assets/log-verify.js" defer></script>');
    expect(entry.text).not.toContain('data-log-contribution');
  });

  it('answer an entry that does not exist with a 404 page', async () => {
    const res = await new FormClient(t.baseUrl).get('/log/999999');
    expect(res.status).toBe(404);
    expect(res.text).toContain('<h1>Not found</h1>');
  });
});
