// Panels that reopen themselves: a statement cites pages; an accepted correction, a retraction or an
// expression of concern on one, or its text changing after the statement was issued, flags the current version for
// review at once (the reason and the link) on /v1/panels/{id}, the panel page and the feed, with `panel.updated` to
// the /v1 webhooks of the topic's publishers; the next version clears it; a passed revisit date flags it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatement, issueFromFile, issueVersion } from '../../src/domain/panels/panel.service.js';
import { flagDueRevisits } from '../../src/domain/panels/review-flags.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { panelEvents, statementBody, versionBody } from './panels.fixtures.js';
import { registerHook, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
let rx: WebhookReceiver;
let relay: WebhookRelay;
const url = (path: string) => `https://${pub.domain}/${path}`;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  for (const p of ['study', 'trial', 'review']) {
    expect((await pub.api.post('/api/v1/pages', { url: url(p), title: p, topic: 'health', text: `The ${p} found 12 cases.` })).status).toBe(201);
  }
  const hook = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug, events: ['panel.updated'] });
  rx.trust('/v1', hook.secret);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

const read = async (id: string) => (await anon.get(`/v1/panels/${id}`)).body;

describe('a statement citing pages', () => {
  let body: Record<string, any>;

  it('keeps its sources, by URL, and needs no review when issued', async () => {
    body = statementBody({ sources: [url('study'), `${url('trial')}/`, 'https://elsewhere.example/paper'] });
    await createStatement(t.runtime.deps, body as never);
    const s = await read(body.id);
    expect(s.sources).toEqual([url('study'), `${url('trial')}/`, 'https://elsewhere.example/paper']);
    expect(s.review).toEqual({ needed: false, flags: [] });
  });

  it('is flagged at once when a cited page’s correction is accepted, with the proof as the link', async () => {
    const fixer = await signup(t);
    const sub = await new Client(t.baseUrl).as(await contributorKey(fixer)).post('/api/v1/submissions', {
      url: url('study'),
      role: 'correction',
      summary: 'Fix the count',
      evidence: { before: '12 cases', after: '21 cases', reason: 'The table', sources: [] },
    });
    expect(sub.status, sub.text).toBe(201);
    const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
    const proof = decided.body.data.contribution_id;
    const s = await read(body.id);
    expect(s.review.needed).toBe(true);
    expect(s.review.flags).toEqual([{ reason: 'source_corrected', source: url('study'), link: `https://credence.test/proofs/${proof}`, flagged_at: t.clock.now().toISOString() }]);
    const page = await anon.get(`/panels/${body.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Flagged for review.');
    expect(page.text).toContain('A source it relies on was corrected');
    const feed = (await anon.get('/v1/changes?limit=500')).body.data.filter((e: { kind: string }) => e.kind === 'panel.flagged');
    expect(feed.at(-1)).toMatchObject({ panel: { id: body.id, version: 1, topic: 'health' }, flag: { reason: 'source_corrected', source: url('study') }, links: { panel: expect.stringContaining(`/v1/panels/${body.id}`) } });
    await relay.tick();
    const sent = rx.at('/v1').filter((r) => r.event === 'panel.updated');
    expect(sent.at(-1)!.verified).toBe(true);
    expect(sent.at(-1)!.json).toMatchObject({ panel: { id: body.id, version: 1 }, changes: { review: { from: null, to: { reason: 'source_corrected', source: url('study') } } } });
  });

  it('is flagged by a retraction or an expression of concern, and by a text change after it was issued', async () => {
    const trial = (await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url('trial'))}`)).body.data.id;
    expect((await pub.api.post(`/api/v1/pages/${trial}/notices`, { type: 'expression_of_concern', reason: 'Data under investigation' })).status).toBe(201);
    t.clock.advanceDays(1);
    expect((await pub.api.post('/api/v1/pages', { url: url('trial'), title: 'trial', topic: 'health', text: 'The trial found 30 cases.' })).body.data.status).toBe('updated');
    // A page the statement does not cite changes nothing.
    expect((await pub.api.post('/api/v1/pages', { url: url('review'), title: 'review', topic: 'health', text: 'Changed.' })).body.data.status).toBe('updated');
    const s = await read(body.id);
    expect(s.review.flags.map((f: { reason: string; source: string }) => `${f.reason} ${f.source}`)).toEqual([
      `source_corrected ${url('study')}`,
      `source_concern ${url('trial')}/`,
      `source_changed ${url('trial')}/`,
    ]);
    expect(s.review.flags[1].link).toBe(`https://credence.test/records/${trial}`);
  });

  it('is cleared by the next version; the flags stay on the version they were raised on', async () => {
    t.clock.advanceDays(1);
    await issueVersion(t.runtime.deps, body.id, versionBody(body, { answer: `${body.answer} Reviewed after a correction.`, sources: [url('study')] }) as never);
    const s = await read(body.id);
    expect(s.version).toBe(2);
    expect(s.review).toEqual({ needed: false, flags: [] });
    const v1 = (await anon.get(`/v1/panels/${body.id}?version=1`)).body;
    expect(v1.review.needed).toBe(false);
    expect(v1.review.flags).toHaveLength(3);
    // A text change now concerns version 2 (issued on the current text), but only after it was issued.
    t.clock.advanceDays(1);
    await pub.api.post('/api/v1/pages', { url: url('study'), title: 'study', topic: 'health', text: 'The study found 21 cases, revised.' });
    expect((await read(body.id)).review.flags.map((f: { reason: string }) => f.reason)).toEqual(['source_changed']);
  });

  it('is flagged when its revisit date passes', async () => {
    const due = statementBody({ revisit_by: '2026-12-01' });
    await createStatement(t.runtime.deps, due as never);
    expect((await read(due.id)).review.needed).toBe(false);
    t.clock.advanceDays(20);
    const flagged = { needed: true, flags: [{ reason: 'revisit_due', source: null, link: null, flagged_at: '2026-12-01T00:00:00.000Z' }] };
    // Shown from the date at once; then the service's clock stores it and tells subscribers and the feed, once.
    expect((await read(due.id)).review).toEqual(flagged);
    const told = await flagDueRevisits(t.runtime.deps);
    expect(told).toBeGreaterThanOrEqual(1);
    expect(await flagDueRevisits(t.runtime.deps)).toBe(0);
    expect((await read(due.id)).review).toEqual(flagged);
    const feed = (await anon.get('/v1/changes?limit=500')).body.data.filter((e: { kind: string; panel?: { id: string } }) => e.kind === 'panel.flagged' && e.panel?.id === due.id);
    expect(feed).toHaveLength(1);
    expect(feed[0].flag).toMatchObject({ reason: 'revisit_due', source: null, link: `/panels/${due.id}` });
    await relay.tick();
    const sent = rx.at('/v1').filter((r) => r.event === 'panel.updated' && r.json.panel.id === due.id && r.json.changes.review);
    expect(sent).toHaveLength(1);
  });

  it('refuses a source that is not an http(s) URL, naming it', async () => {
    await expect(createStatement(t.runtime.deps, statementBody({ sources: ['https://ok.example/a', 'ftp://x.example/b'] }) as never)).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'sources.1' }],
    });
  });
});

describe('a version that changes only the pages it cites', () => {
  it('is a new version whose panel.updated lists sources, from and to, and whose page shows them', async () => {
    const body = statementBody({ sources: [url('study')] });
    await createStatement(t.runtime.deps, body as never);
    t.clock.advanceDays(1);
    await issueVersion(t.runtime.deps, body.id, versionBody(body, { sources: [url('study'), url('review')] }) as never);
    expect((await read(body.id)).sources).toEqual([url('study'), url('review')]);
    const events = await panelEvents(t, body.id);
    expect(events[0]!.payload.changes.sources).toEqual({ from: null, to: [url('study')] });
    expect(events[1]!.payload).toMatchObject({ version: 2, previous_version: 1, changes: { sources: { from: [url('study')], to: [url('study'), url('review')] } } });
    expect(Object.keys(events[1]!.payload.changes)).toEqual(['sources']);
    const page = await anon.req('GET', `/panels/${body.id}`, { headers: { accept: 'text/html' } });
    expect(page.text).toMatch(/<dt>Sources<\/dt><dd><ins>https:\/\/[^<]+\/review<\/ins>/);
  });

  it('from a file (panels:issue): the same sources change nothing, other sources issue the next version', async () => {
    const body = statementBody({ sources: [url('study')] });
    await createStatement(t.runtime.deps, body as never);
    const again = await issueFromFile(t.runtime.deps, body as never);
    expect(again.action).toBe('unchanged');
    const moved = await issueFromFile(t.runtime.deps, { ...body, sources: [url('trial')] } as never);
    expect(moved).toMatchObject({ action: 'issued', statement: { version: 2, sources: [url('trial')] } });
    await expect(issueFromFile(t.runtime.deps, { ...body, sources: ['ftp://x.example/a'] } as never)).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'sources.0' }],
    });
  });
});
