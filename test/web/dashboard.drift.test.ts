// The dashboard and the proof page after a page's text changed: the page view says which accepted work
// was done on an older version, a one-click button asks for a re-review, and the register form can record the
// page's current version by fetching it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { registerPage, submitCorrection, webPublication, type WebPublication, webUser } from './dashboard.fixtures.js';

let t: TestApp;
let pub: WebPublication;
let site: http.Server;
let page: { id: number; url: string };
let contributionId: number;

beforeAll(async () => {
  t = await startTestApp();
  pub = await webPublication(t);
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Rates fell to 79% last year.</p>'));
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  t.setPageBase(`http://127.0.0.1:${(site.address() as AddressInfo).port}`);
  page = await registerPage(t, pub);
  const corrector = await webUser(t, 'Grace Hopper');
  const submissionId = await submitCorrection(corrector, page.url);
  const decided = await pub.owner.api.post('/api/v1/submissions/decide', { submission_id: submissionId, decision: 'accept' });
  expect(decided.status, decided.text).toBe(200);
  contributionId = decided.body.data.contribution_id;
});
afterAll(async () => {
  site?.close();
  await t?.close();
});

describe('a page whose text changed after accepted work', () => {
  it('the register form records the current version by fetching the page', async () => {
    await pub.owner.b.get(`${pub.base}/pages`);
    const res = await pub.owner.b.post(`${pub.base}/pages`, { url: page.url, title: `Story`, topic: 'health', fetch: 'true' });
    expect(res.status, res.text).toBe(303);
    const row = await t.runtime.deps.db.selectFrom('pages').select(['content_hash']).where('id', '=', page.id).executeTakeFirstOrThrow();
    expect(row.content_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is shown on the dashboard with a one-click re-review request, and on the proof page', async () => {
    t.clock.advanceDays(2);
    const changed = await pub.owner.api.post(`/api/v1/pages?publisher=${pub.slug}`, { url: page.url, text: 'Rates fell last year.' });
    expect(changed.status, changed.text).toBe(200);
    const view = await pub.owner.b.get(`${pub.base}/pages/${page.id}`);
    expect(view.text).toContain('The page’s text changed after 1 piece of accepted work below.');
    expect(view.text).toMatch(/Page changed <time datetime="2026-11-23T[0-9:.]+Z">23 Nov 2026<\/time>/);
    expect(view.text).toContain('Corrected text missing');
    expect(view.text).toContain('Request a re-review');
    const before = await t.runtime.deps.db.selectFrom('requests').selectAll().where('page_id', '=', page.id).execute();
    const click = await pub.owner.b.post(`${pub.base}/requests`, {
      article_ref_id: String(page.id),
      request_type: 'correction',
      title: 'Fresh look after the page changed: Correction by Grace Hopper',
      brief: 'Check it against the page as it is now.',
    });
    expect(click.status, click.text).toBe(303);
    const after = await t.runtime.deps.db.selectFrom('requests').selectAll().where('page_id', '=', page.id).execute();
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)).toMatchObject({ kind: 'correction', status: 'open' });
    const proof = await pub.owner.b.get(`/proofs/${contributionId}`, { accept: 'text/html' });
    expect(proof.text).toContain('The page has changed since this correction');
    expect(proof.text).toContain('The corrected text no longer appears on the page.');
  });
});
