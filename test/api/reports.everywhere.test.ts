// Everywhere within a second (DSA notice and action; docs/trust-and-safety.md): every public answer that showed a
// sentence is read (and so cached) before an operator restricts it, then read again right after the decision, with no
// wait: the record page and its JSON, JSON-LD, the embed in each style and language (and as a script), the proof
// page and its annotation, the profile, the feed and its replay (the stream from the start), search, the extension's
// bucket and proofs, the log's entries, the affected person's export, the stored webhook deliveries and a replay of
// them. None may hold the sentence. No absolute time is asserted: the reads simply follow the decision at once, so
// any cached answer the decision failed to drop would still be there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { BUCKET_HEX } from '../../src/domain/pages/key-hash.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { STYLES } from '../../src/surfaces/embed/renderer.js';
import { LANGS } from '../../src/surfaces/embed/i18n.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { type Hook, registerHook, relayFor } from './webhooks.fixtures.js';

const SENTENCE = 'The councillor Odile Ferrand forged the tender documents';
const WORD = 'Ferrand';
let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let pub: TestPublisher;
let writer: TestUser;
let hook: Hook;
let pageId: number;
let pageUrl: string;
let contributionId: number;
let prefix: string;
let opsId: number;
let reportId: number;
const anon = () => new Client(t.baseUrl);

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  writer = await signup(t, { name: 'Willa Writer' });
  hook = await registerHook(pub.owner, { url: rx.url('/api'), publisher: pub.slug });
  rx.trust('/api', hook.secret);
  pageUrl = `https://${pub.domain}/tender`;
  const page = await pub.api.post('/api/v1/pages', { url: pageUrl, title: 'The tender', topic: 'politics' });
  pageId = page.body.data.id;
  const sub = await new Client(t.baseUrl).as(await contributorKey(writer)).post('/api/v1/submissions', { url: pageUrl, role: 'fact_check', summary: SENTENCE, evidence: { reason: 'the minutes', sources: ['https://archive.example/tender'] } });
  expect(sub.status, sub.text).toBe(201);
  expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
  const db = t.runtime.deps.db;
  contributionId = (await db.selectFrom('contributions').select('id').where('page_id', '=', pageId).executeTakeFirstOrThrow()).id;
  prefix = (await db.selectFrom('pages').select('embed_key_hash').where('id', '=', pageId).executeTakeFirstOrThrow()).embed_key_hash!.slice(0, BUCKET_HEX);
  await relay.tick();
  await integrate(t.runtime.deps);
  const made = await createAdmin(t.runtime.deps, { email: 'ops@everywhere.test', password: 'a very long password', username: 'everywhere-ops', name: 'Ops' });
  opsId = made.user_id;
  reportId = (await moderation.submitReport(t.runtime.deps, { item: { kind: 'contribution', id: contributionId, field: 'summary' }, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'It accuses a named councillor of forgery.', good_faith: true, locale: 'en' }, null)).id;
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

/** The live feed from its start (`Last-Event-ID: 0`), read until it has sent the last entry. */
async function streamFromStart(path: string): Promise<string> {
  const last = (await anon().get(`${path}?after=0&limit=500`)).body.data.at(-1).seq as number;
  const ctl = new AbortController();
  const res = await fetch(t.baseUrl + path, { headers: { accept: 'text/event-stream', 'last-event-id': '0' }, signal: ctl.signal });
  const reader = res.body!.getReader();
  let text = '';
  // Bounded by bytes and reads, never by a clock: the stream sends what it holds at once.
  for (let i = 0; i < 200 && !text.includes(`id: ${last}\n`); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  ctl.abort();
  return text;
}

async function readEverything(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const get = async (name: string, path: string, headers: Record<string, string> = {}, as: Client = anon()) => {
    const res = await as.get(path, { headers });
    expect(res.status, `${name}: ${res.text.slice(0, 200)}`).toBe(200);
    out.set(name, res.text);
  };
  const enc = encodeURIComponent(pageUrl);
  await get('record page', `/records/${pageId}`, { accept: 'text/html' });
  await get('record JSON', `/v1/pages/record?url=${enc}`);
  await get('record JSON-LD', `/v1/pages/record?url=${enc}`, { accept: 'application/ld+json' });
  await get('lookup', `/api/v1/pages/lookup?url=${enc}`);
  await get('proof page', `/proofs/${contributionId}`, { accept: 'text/html' });
  await get('proof annotation', `/proofs/${contributionId}`, { accept: 'application/ld+json' });
  await get('profile', `/contributors/${writer.username}`, { accept: 'text/html' });
  await get('profile JSON', `/v1/contributors/${writer.username}`);
  for (const style of STYLES) {
    for (const lang of LANGS) await get(`embed ${style} ${lang}`, `/api/v1/embed/article/${pageId}?style=${style}&lang=${lang}`);
    await get(`embed ${style} script`, `/api/v1/embed/by-url?url=${enc}&style=${style}&format=js`);
  }
  await get('feed', '/v1/changes?after=0&limit=500');
  await get('feed (api)', '/api/v1/changes?after=0&limit=500');
  out.set('feed replay', await streamFromStart('/v1/changes'));
  await get('search', `/v1/search?q=${WORD}`);
  await get('search (api)', `/api/v1/search?q=${WORD}`);
  await get('search page', `/search?q=${WORD}`, { accept: 'text/html' });
  await get('extension bucket', `/v1/extension/buckets/${prefix}`);
  await get('extension proofs', `/v1/extension/buckets/${prefix}/proofs`);
  await get('log entries', '/v1/log/entries?start=0&limit=1000');
  await get('export of the person affected', '/api/v1/account/export', {}, writer.client);
  await get('webhook deliveries', `/api/v1/account/webhooks/${hook.id}/deliveries?per_page=100`, {}, pub.owner.client);
  return out;
}

describe('a restriction reaches every surface at once', () => {
  it('shows the sentence before, on every surface that shows the summary', async () => {
    const before = await readEverything();
    // The embeds and the bucket name the work, not its summary: they are read to be sure of it, after as before.
    for (const name of ['record page', 'record JSON-LD', 'proof page', 'proof annotation', 'profile', 'feed', 'feed replay', 'log entries', 'export of the person affected']) {
      expect(before.get(name), name).toContain(SENTENCE);
    }
    // Search indexes pages, people, publishers and panels, not a contribution's summary: read after as before all the same.
    expect(rx.at('/api').some((r) => r.raw.toString('utf8').includes(SENTENCE))).toBe(true);
  });

  it('holds it nowhere right after the decision: pages, embeds, JSON-LD, feed and replay, search, bucket, export, deliveries', async () => {
    await moderation.decideReport(t.runtime.deps, opsId, reportId, { type: 'restrict_field', ground: 'illegal', legal_reference: 'Loi du 29 juillet 1881, art. 29', facts: 'The summary accuses a named person of forgery without a source.' });
    const after = await readEverything();
    for (const [name, text] of after) expect(text, name).not.toContain(SENTENCE);
    expect(after.get('record page')).toContain('Removed after a report');
    expect(after.get('proof annotation')).toContain('Removed after a report');
    // What a redelivery or replay would send: the stored bodies.
    const stored = await t.runtime.deps.db.selectFrom('webhook_deliveries').select('body').execute();
    expect(stored.some((d) => d.body.includes('Removed after a report'))).toBe(true);
    for (const d of stored) expect(d.body).not.toContain(SENTENCE);
  });

  it('replays the webhook deliveries without it', async () => {
    const since = new Date(Date.parse(t.clock.now().toISOString()) - 86_400_000).toISOString();
    const asked = rx.at('/api').length;
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${hook.id}/replay`, { since });
    expect(res.status, res.text).toBe(202);
    await relay.tick();
    const replayed = rx.at('/api').slice(asked);
    expect(replayed.length).toBeGreaterThan(0);
    for (const r of replayed) expect(r.raw.toString('utf8')).not.toContain(SENTENCE);
  });
});
