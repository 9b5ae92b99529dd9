// Work anchored to a version of the page, and drift: registration takes the page's text, its hash, or
// fetches it; a changed text flags exactly the reviews, fact checks and corrections done on an older version, on
// both record surfaces, with `page.changed` delivered, signed, to both webhook surfaces.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHashOf, normaliseText, textOfHtml } from '../../src/domain/pages/page-text.js';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { confirmClaims, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { registerHook, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let site: http.Server;
let served = '';
const users: Record<string, TestUser> = {};

const V1 = 'Measles cases rise. There were 102 cases in three states this spring.';
const V2 = 'Measles cases rise.  There were 120 cases in three states this spring.';
const V4 = 'Measles cases rise. Officials now count more than a hundred cases.';

async function accept(user: TestUser, url: string, item: Record<string, unknown>): Promise<number> {
  const sub = await new Client(t.baseUrl).as(await contributorKey(user)).post('/api/v1/submissions', { url, ...item });
  expect(sub.status, sub.text).toBe(201);
  const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept' });
  expect(decided.status, decided.text).toBe(200);
  return decided.body.data.contribution_id as number;
}

const evidence = { reason: 'Checked', sources: [] };
const v1Record = async (url: string) => (await anon.get(`/v1/pages/record?url=${encodeURIComponent(url)}`)).body;
const lookup = async (url: string) => (await anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`)).body.data;
const byId = (record: { contributions: any[] }, id: number) => record.contributions.find((c: { id: string }) => c.id === `ctb_${id}`);

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
  for (const name of ['author', 'reviewer', 'corrector', 'editor', 'checker']) users[name] = await signup(t, { name: `The ${name}` });
  site = http.createServer((req, res) => {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(served);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.setPageBase(`http://127.0.0.1:${(site.address() as AddressInfo).port}`);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  site?.close();
  await t?.close();
});

describe('the version of a text', () => {
  it('is the sha256 of its normalised text: white space folded, Unicode NFC, case kept', () => {
    expect(normaliseText('  A\u00a0 b\n\tc\u200b ')).toBe('A b c');
    expect(contentHashOf('Cafe\u0301  au lait')).toBe(contentHashOf('Café au lait'));
    expect(contentHashOf('Hello')).not.toBe(contentHashOf('hello'));
    expect(contentHashOf('x')).toMatch(/^[0-9a-f]{64}$/);
    expect(normaliseText(textOfHtml('<html><head><title>T</title></head><body><script>var x=1</script><p>Caf&eacute; &amp; <b>tea</b>&#33;</p></body></html>'))).toBe(
      'Caf&eacute; & tea !',
    );
  });
});

describe('registration with a version', () => {
  it('takes text or a hash, single or batch, on /api/v1; refuses both at once and a malformed hash', async () => {
    const one = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/a`, title: 'A', text: 'Some text' });
    expect(one.status, one.text).toBe(201);
    const batch = await pub.api.post('/api/v1/pages', [
      { url: `https://${pub.domain}/b`, content_hash: contentHashOf('B text') },
      { url: `https://${pub.domain}/c`, text: 'x', content_hash: contentHashOf('x') },
      { url: `https://${pub.domain}/d`, content_hash: 'not-a-hash' },
      { url: `https://${pub.domain}/a`, title: 'A', text: ' Some   text ' },
      { url: `https://${pub.domain}/a`, title: 'A', text: 'Other text' },
    ]);
    expect(batch.status, batch.text).toBe(200);
    const r = batch.body.data.results;
    expect(r[0].status).toBe('created');
    expect(r[1]).toMatchObject({ status: 'failed', error: { code: 'invalid_request', details: [{ field: 'content_hash' }] } });
    expect(r[2]).toMatchObject({ status: 'failed', error: { details: [{ field: 'content_hash' }] } });
    expect(r[3].status).toBe('skipped');
    expect(r[4].status).toBe('updated');
    // Only the hash is kept: the text is nowhere in the database.
    const pages = await t.runtime.deps.db.selectFrom('pages').selectAll().execute();
    expect(JSON.stringify(pages)).not.toContain('Other text');
    expect(pages.find((p) => p.url.endsWith('/a'))!.content_hash).toBe(contentHashOf('Other text'));
  });

  it('fetches the publisher’s own page with fetch: true, through the safe fetcher; a failed fetch fails the item', async () => {
    served = '<html><body><h1>Fetched</h1><p>Hello   world</p></body></html>';
    const res = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/fetched`, title: 'F', fetch: true });
    expect(res.status, res.text).toBe(201);
    const page = await t.runtime.deps.db.selectFrom('pages').select('content_hash').where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(page.content_hash).toBe(contentHashOf('Fetched Hello world'));
    const missing = await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/missing`, fetch: true });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ field: 'fetch', message: expect.stringContaining('404') }]);
    // Off the verified domains nothing is fetched: the item fails first.
    const off = await pub.api.post('/api/v1/pages', { url: 'https://elsewhere.example/x', fetch: true });
    expect(off.status).toBe(403);
  });
});

describe('a changed text', () => {
  const url = () => `https://${pub.domain}/health/measles`;
  const ids: Record<string, number> = {};

  it('flags exactly the work done on the older version, with when', async () => {
    expect((await pub.api.post('/api/v1/pages', { url: url(), title: 'Measles', text: V1, authors: [users.author!.username] })).status).toBe(201);
    await confirmClaims(users.author!);
    ids.review = await accept(users.reviewer!, url(), { role: 'review', summary: 'Numbers hold', evidence });
    ids.correction = await accept(users.corrector!, url(), {
      role: 'correction',
      summary: 'Fix the count',
      evidence: { before: '102 cases', after: '120 cases', reason: 'The table', sources: [] },
    });
    ids.edit = await accept(users.editor!, url(), { role: 'edit', summary: 'Lede', evidence });
    const hook = await registerHook(pub.owner, { url: rx.url('/api'), events: ['page.changed'] });
    rx.trust('/api', hook.secret);
    const v1hook = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug, events: ['page.changed'] });
    rx.trust('/v1', v1hook.secret);

    // The same text again (white space aside) is no change.
    t.clock.advanceDays(1);
    const same = await pub.api.post('/api/v1/pages', { url: url(), title: 'Measles', text: `  ${V1}\n` });
    expect(same.body.data.status).toBe('skipped');
    let record = await v1Record(url());
    expect(record.contributions.every((c: { page_changed_since: string | null }) => c.page_changed_since === null)).toBe(true);

    // The publisher applies the correction: a new version.
    t.clock.advanceDays(1);
    const changedAt = t.clock.now().toISOString();
    expect((await pub.api.post('/api/v1/pages', { url: url(), title: 'Measles', text: V2 })).body.data.status).toBe('updated');
    record = await v1Record(url());
    expect(byId(record, ids.review!)).toMatchObject({ page_changed_since: changedAt, correction_missing: null });
    expect(byId(record, ids.correction!)).toMatchObject({ page_changed_since: changedAt, correction_missing: false });
    // Authorship and edits are not reviews of a version.
    expect(byId(record, ids.edit!).page_changed_since).toBeNull();
    expect(record.contributions.find((c: { role: string }) => c.role === 'author').page_changed_since).toBeNull();
    expect(record.content_changed_at).toBe(changedAt);

    // Work accepted on the new version is current.
    ids.check = await accept(users.checker!, url(), { role: 'fact_check', summary: 'Dates right', evidence });
    record = await v1Record(url());
    expect(byId(record, ids.check!).page_changed_since).toBeNull();

    // A later change by hash only: the new work is flagged now, the old keeps its first date; corrections unknown.
    t.clock.advanceDays(1);
    const later = t.clock.now().toISOString();
    await pub.api.post('/api/v1/pages', { url: url(), content_hash: contentHashOf('a third version') });
    record = await v1Record(url());
    expect(byId(record, ids.check!).page_changed_since).toBe(later);
    expect(byId(record, ids.review!).page_changed_since).toBe(changedAt);
    expect(byId(record, ids.correction!).correction_missing).toBeNull();

    // The text loses the corrected words: the correction is flagged.
    t.clock.advanceDays(1);
    await pub.api.post('/api/v1/pages', { url: url(), text: V4 });
    record = await v1Record(url());
    expect(byId(record, ids.correction!)).toMatchObject({ page_changed_since: changedAt, correction_missing: true });

    // The /api/v1 record says the same per contributor entry (its proof is that contribution).
    const data = await lookup(url());
    expect(data.content_changed_at).toBe(t.clock.now().toISOString());
    expect(data.contributors.correction[0]).toMatchObject({ page_changed_since: changedAt, correction_missing: true });
    expect(data.contributors.review[0]).toMatchObject({ page_changed_since: changedAt, correction_missing: null });
    expect(data.contributors.fact_check[0]).toMatchObject({ page_changed_since: later });
    expect(data.contributors.edit[0].page_changed_since).toBeNull();
  });

  it('sends page.changed to both webhook surfaces, signed like every event', async () => {
    await relay.tick();
    const api = rx.at('/api').filter((r) => r.event === 'page.changed');
    const v1 = rx.at('/v1').filter((r) => r.event === 'page.changed');
    expect(api).toHaveLength(3);
    expect(v1).toHaveLength(3);
    expect([...api, ...v1].every((r) => r.verified)).toBe(true);
    const last = api.at(-1)!.json;
    expect(last).toMatchObject({
      event: 'page.changed',
      data: {
        page: { url: url(), record_url: expect.stringContaining('/records/') },
        changed_at: t.clock.now().toISOString(),
        work: expect.arrayContaining([
          expect.objectContaining({ id: ids.correction, role: 'correction', correction_missing: true, proof_url: expect.stringContaining(`/proofs/${ids.correction}`) }),
        ]),
      },
    });
    expect(last.data.work.map((w: { id: number }) => w.id).sort()).toEqual([ids.review, ids.correction, ids.check].sort());
    expect(v1.at(-1)!.json).toMatchObject({ event: 'page.changed', page: url(), changed_at: t.clock.now().toISOString() });
    expect(v1.at(-1)!.json.contributions.map((c: { id: string }) => c.id).sort()).toEqual([ids.review, ids.correction, ids.check].map((i) => `ctb_${i}`).sort());
  });
});
