// Notices on a page: a retraction shown by the lookup, the /v1 record, the embed (every style and
// language), JSON-LD, the record page, the change feed and both webhook surfaces; a reinstatement after it. The
// accepted work and every earlier notice stay on the record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { LANGS, wordsFor } from '../../src/surfaces/embed/i18n.js';
import { STYLES } from '../../src/surfaces/embed/renderer.js';
import { Client } from '../client.js';
import { confirmClaims, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { openBody } from '../transparency/commitments.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { FormClient } from '../web/browser-client.js';
import { registerHook, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let other: TestPublisher;
let anon: Client;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let author: TestUser;
let pageId: number;
let url: string;
let from: number;

const enc = encodeURIComponent;
const lookup = async () => (await anon.get(`/api/v1/pages/lookup?url=${enc(url)}`)).body.data;
const v1Record = async () => (await anon.get(`/v1/pages/record?url=${enc(url)}`)).body;
const embed = async (style: string, lang: string) => {
  const res = await anon.get(`/api/v1/embed/by-url?url=${enc(url)}&style=${style}&lang=${lang}`);
  expect(res.status, res.text).toBe(200);
  return res.body.html as string;
};
const text = (html: string) =>
  html
    .replace(/<link[^>]*>/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/^[\s⚠✓]+/, '');

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  other = await publisher(t);
  anon = new Client(t.baseUrl);
  author = await signup(t, { name: 'Ada Author' });
  url = `https://${pub.domain}/science/study`;
  const reg = await pub.api.post('/api/v1/pages', { url, title: 'The study', topic: 'science', authors: [author.username] });
  expect(reg.status, reg.text).toBe(201);
  pageId = reg.body.data.id;
  await confirmClaims(author);
  const api = await registerHook(pub.owner, { url: rx.url('/api'), events: ['page.notice'] });
  rx.trust('/api', api.secret);
  const v1 = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug, events: ['page.notice'] });
  rx.trust('/v1', v1.secret);
  from = (await anon.get('/api/v1/changes?limit=500')).body.meta.next_cursor;
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

describe('a retraction', () => {
  it('is attached by the publisher and answered with the standing it leaves', async () => {
    const res = await pub.api.post(`/api/v1/pages/${pageId}/notices`, {
      type: 'retraction',
      date: t.clock.now().toISOString().slice(0, 10),
      reason: 'The survey data could not be reproduced.',
      url: `https://${pub.domain}/notices/retraction-1`,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      page: { id: pageId, url },
      notice: { type: 'retraction', reason: 'The survey data could not be reproduced.', url: `https://${pub.domain}/notices/retraction-1` },
      standing: 'retracted',
      previous_standing: 'current',
    });
    expect(res.body.data.notice.log.index).toBeGreaterThanOrEqual(0);
  });

  it('shows on the lookup and the /v1 record, the work kept', async () => {
    const data = await lookup();
    expect(data.standing).toBe('retracted');
    expect(data.has_record).toBe(true);
    expect(data.notices).toHaveLength(1);
    expect(data.notices[0]).toMatchObject({ type: 'retraction', reason: 'The survey data could not be reproduced.' });
    expect(data.contributors.author[0].username).toBe(author.username);
    const v1 = await v1Record();
    expect(v1.standing).toBe('retracted');
    expect(v1.notices[0].type).toBe('retraction');
    expect(v1.contributions).toHaveLength(1);
  });

  it('leads the embed in every style and language', async () => {
    for (const style of STYLES) {
      for (const lang of LANGS) {
        const html = await embed(style, lang);
        expect(text(html).startsWith(wordsFor(lang).standings.retracted.label), `${style} ${lang}: ${html}`).toBe(true);
        expect(html).not.toContain(wordsFor(lang).verified);
      }
    }
    expect(await embed('full', 'en')).toContain('The survey data could not be reproduced.');
  });

  it('is in the JSON-LD and the record page', async () => {
    const ld = await anon.get(`/v1/pages/record?url=${enc(url)}&format=jsonld`);
    expect(ld.status).toBe(200);
    const doc = JSON.parse(ld.text);
    expect(doc.creativeWorkStatus).toBe('Retracted');
    expect(doc.comment[0]).toMatchObject({ '@type': 'Comment', name: 'Retraction', text: 'The survey data could not be reproduced.' });
    const page = await anon.get(`/records/${pageId}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Retracted.');
    expect(page.text).toContain('This page was retracted by its publisher.');
  });

  it('is a page.notice entry in the change feed, with nothing private', async () => {
    const entries = (await anon.get(`/api/v1/changes?after=${from}`)).body.data;
    const entry = entries.find((e: { kind: string }) => e.kind === 'page.notice');
    // The title and the reason are free text: commitments in the entry, opened beside it.
    expect(openBody(JSON.stringify({ ...entry, openings: undefined, links: undefined }), entry.openings)).toMatchObject({
      page: { title: 'The study' },
      notice: { reason: 'The survey data could not be reproduced.' },
    });
    expect(entry).toMatchObject({
      page: { id: pageId, url, title: { commitment: expect.any(String) } },
      publisher: { slug: pub.slug },
      notice: { type: 'retraction', reason: { commitment: expect.any(String) } },
      standing: 'retracted',
      previous_standing: 'current',
      links: { record: expect.stringContaining(`/records/${pageId}`) },
    });
    expect(JSON.stringify(entry)).not.toMatch(/@mail\.test/);
    const v1 = (await anon.get(`/v1/changes?after=${from}`)).body.data.find((e: { kind: string }) => e.kind === 'page.notice');
    expect(v1.standing).toBe('retracted');
  });

  it('reaches both webhook surfaces, signed', async () => {
    await relay.tick();
    const api = rx.at('/api').filter((r) => r.event === 'page.notice');
    const v1 = rx.at('/v1').filter((r) => r.event === 'page.notice');
    expect(api).toHaveLength(1);
    expect(v1).toHaveLength(1);
    expect([...api, ...v1].every((r) => r.verified)).toBe(true);
    expect(api[0]!.json).toMatchObject({ event: 'page.notice', data: { page: { id: pageId, url }, notice: { type: 'retraction' }, standing: 'retracted' } });
    expect(v1[0]!.json).toMatchObject({ event: 'page.notice', page: url, notice: { type: 'retraction' }, standing: 'retracted', record_url: expect.stringContaining(`/records/${pageId}`) });
  });
});

describe('a reinstatement after it', () => {
  it('brings the page back to good standing; every notice stays, newest first', async () => {
    t.clock.advanceDays(2);
    const res = await pub.owner.client.post(`/api/v1/pages/${pageId}/notices`, { type: 'reinstatement', reason: 'An independent re-analysis confirmed the results.' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ standing: 'current', previous_standing: 'retracted' });
    const data = await lookup();
    expect(data.standing).toBe('current');
    expect(data.notices.map((n: { type: string }) => n.type)).toEqual(['reinstatement', 'retraction']);
    const v1 = await v1Record();
    expect(v1.standing).toBe('current');
    expect(v1.notices).toHaveLength(2);
    const badge = await embed('badge', 'en');
    expect(badge).toContain(wordsFor('en').verified);
    const full = await embed('full', 'fr');
    expect(full).toContain(wordsFor('fr').notices.reinstatement);
    expect(full).toContain(wordsFor('fr').notices.retraction);
    expect(full).not.toContain('class="standing"');
    const ld = JSON.parse((await anon.get(`/v1/pages/record?url=${enc(url)}&format=jsonld`)).text);
    expect(ld.creativeWorkStatus).toBe('Published');
    await relay.tick();
    expect(rx.at('/api').filter((r) => r.event === 'page.notice').at(-1)!.json.data).toMatchObject({ standing: 'current', previous_standing: 'retracted' });
  });
});

describe('refusals', () => {
  it('names the field of a bad notice, in the /api/v1 envelope', async () => {
    const bad = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'erratum', reason: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'invalid_request' } });
    expect(JSON.stringify(bad.body.error.details)).toContain('type');
    const future = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'clarification', reason: 'x', date: '2999-01-01' });
    expect(future.status).toBe(400);
    expect(future.body.error.details).toEqual([{ field: 'date', message: 'must not be in the future' }]);
    const blank = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'clarification', reason: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details[0].field).toBe('reason');
    const noUrl = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'clarification', reason: 'x', url: 'ftp://x.example/n' });
    expect(noUrl.status).toBe(400);
  });

  it('refuses a reinstatement of a page in good standing (409), another publication’s page (404), a contributor (403)', async () => {
    const again = await pub.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'reinstatement', reason: 'Again' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const foreign = await other.api.post(`/api/v1/pages/${pageId}/notices`, { type: 'retraction', reason: 'Not ours' });
    expect(foreign.status).toBe(404);
    const key = await contributorKey(author);
    const contributor = await new Client(t.baseUrl).as(key).post(`/api/v1/pages/${pageId}/notices`, { type: 'retraction', reason: 'Mine' });
    expect(contributor.status).toBe(403);
    expect((await lookup()).notices).toHaveLength(2);
  });
});

describe('the dashboard', () => {
  it('lists the page’s notices and publishes a new one from its form; a bad one answers the form with the field’s error', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/login');
    expect((await b.post('/login?next=/dashboard', { email: pub.owner.email, password: pub.owner.password })).status).toBe(303);
    const page = await b.get(`/dashboard/${pub.slug}/pages/${pageId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Reinstatement');
    const bad = await b.post(`/dashboard/${pub.slug}/pages/${pageId}/notices`, { type: 'partial_retraction', date: '2999-01-01', reason: 'Figure 2', url: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/must not be in the future/i);
    await b.get(`/dashboard/${pub.slug}/pages/${pageId}`);
    // A notice is never edited or removed, so the form asks once more before it publishes.
    const review = await b.post(`/dashboard/${pub.slug}/pages/${pageId}/notices`, { type: 'partial_retraction', date: '', reason: 'Figure 2 is withdrawn.', url: '' });
    expect(review.status, review.text).toBe(200);
    expect(review.text).toContain('Publish this notice?');
    const ok = await b.post(`/dashboard/${pub.slug}/pages/${pageId}/notices`, { type: 'partial_retraction', date: '', reason: 'Figure 2 is withdrawn.', url: '', confirmed: 'yes' });
    expect(ok.status, ok.text).toBe(303);
    expect((await lookup()).standing).toBe('partially_retracted');
    const other404 = await b.post(`/dashboard/${other.slug}/pages/${pageId}/notices`, { type: 'clarification', date: '', reason: 'x', url: '' });
    expect([403, 404]).toContain(other404.status);
  });
});
