// Erasure finds what names a person by reference, never by matching text. People whose names and usernames are
// common words, one letter, parts of other publications' URLs and titles, or parts of other people's names erase
// themselves: every other publication's stored events, webhook deliveries (replays included), their recorded
// answers and the mail written to others stay byte for byte as they were. Then a person who did work erases
// themselves: only the slots that named them change. Runs on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { correction, registerHook, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let ledger: TestPublisher;
let bea: TestUser;
let rx: WebhookReceiver;
let relay: WebhookRelay;
const TITLE = 'The battery recycling plant coming to Westbrook';

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  ledger = await publisher(t, { domain: 'northwindhealth.example' });
  const api = await registerHook(ledger.owner, { url: rx.url('/ledger') });
  const v1 = await registerHook(ledger.owner, { url: rx.url('/ledger-v1'), format: 'v1', publisher: ledger.slug });
  rx.trust('/ledger', api.secret);
  rx.trust('/ledger-v1', v1.secret);
  rx.answer('/ledger', { status: 200, body: 'ok: Westbrook Measles https' });
  bea = await signup(t, { name: 'Bea Westbrook', username: 'bea-westbrook' });
  const key = await contributorKey(bea);
  const url = `https://${ledger.domain}/measles/westbrook-plant`;
  const page = await ledger.api.post('/api/v1/pages', { url, title: TITLE, topic: 'Measles' });
  expect(page.status, page.text).toBe(201);
  const open = await ledger.api.post('/api/v1/requests', { url, request_type: 'correction', topic: 'Measles', title: 'Check Westbrook' });
  expect(open.status, open.text).toBe(201);
  expect((await bea.client.post(`/api/v1/review-requests/${open.body.data.id}/take`)).status).toBe(200);
  const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'correction', ...correction(), request_id: open.body.data.id });
  expect(sub.status, sub.text).toBe(201);
  const d = await ledger.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'Thanks, Westbrook' });
  expect(d.status, d.text).toBe(200);
  await relay.tick();
  const replay = await ledger.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { since: new Date(t.clock.now().getTime() - 86_400_000).toISOString() });
  expect(replay.status, replay.text).toBeLessThan(300);
  await relay.tick();
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

/** Everything stored that a substring redaction once rewrote. */
async function stored() {
  const db = t.runtime.deps.db;
  return {
    events: await db.selectFrom('events').select(['id', 'payload']).orderBy('id').execute(),
    deliveries: await db.selectFrom('webhook_deliveries').select(['id', 'body']).orderBy('id').execute(),
    attempts: await db.selectFrom('webhook_attempts').select(['id', 'response_body', 'error']).orderBy('id').execute(),
    mail: await db.selectFrom('mail_outbox').select(['id', 'facts']).where('account_id', '=', ledger.owner.id).orderBy('id').execute(),
  };
}

async function erase(user: TestUser) {
  const res = await user.client.req('DELETE', '/api/v1/account', { body: { password: user.password } });
  expect(res.status, res.text).toBe(200);
}

describe('erasure by reference', () => {
  it('has events, deliveries, a replay, recorded answers and mail that name Bea and hold the others’ words', async () => {
    const s = await stored();
    expect(s.events.some((e) => e.payload.includes('bea-westbrook') && e.payload.includes(TITLE))).toBe(true);
    expect(s.deliveries.length).toBeGreaterThan(s.events.length);
    expect(s.attempts.some((a) => a.response_body?.includes('Westbrook'))).toBe(true);
    expect(s.mail.some((m) => m.facts.includes('bea-westbrook'))).toBe(true);
  });

  it('leaves every other person’s and publication’s payloads byte for byte when people with colliding words leave', async () => {
    const before = await stored();
    const colliding = [
      { name: 'Westbrook', username: 'westbrook' },
      { name: 'Measles', username: 'measles' },
      { name: 'A', username: 'northwindhealth' },
      { name: 'Bea', username: 'https' },
      { name: 'Thanks', username: 'plant' },
      { name: 'The', username: 'coming' },
    ];
    for (const who of colliding) {
      const user = await signup(t, who);
      expect((await user.client.patch('/api/v1/account/profile', { summary: 'https' })).status).toBe(200);
      await erase(user);
    }
    await relay.tick();
    expect(await stored()).toEqual(before);
  });

  it('takes Bea out of exactly the slots that named her, and nothing else', async () => {
    const before = await stored();
    await erase(bea);
    const after = await stored();
    const changed = after.events.filter((e, i) => e.payload !== before.events[i]!.payload);
    expect(changed.length).toBeGreaterThan(0);
    for (const e of [...after.events, ...after.deliveries.map((d) => ({ payload: d.body }))]) {
      expect(e.payload).not.toContain('bea-westbrook');
      expect(e.payload).not.toContain('"Bea Westbrook"');
    }
    // Her name is gone from her slots; the title, the topic, the URL and the publisher's note are not hers.
    const accepted = after.events.find((e) => e.payload.includes('"contribution"'))!;
    const facts = JSON.parse(accepted.payload);
    expect(facts.contributor).toEqual({ username: 'former-contributor', name: 'A former contributor' });
    expect(facts.page.title).toBe(TITLE);
    expect(facts.page.url).toContain('northwindhealth.example/measles/westbrook-plant');
    // Each changed row differs from its old self only where Bea was named.
    for (const e of changed) {
      const old = before.events.find((b) => b.id === e.id)!.payload;
      expect(e.payload).toBe(old.replaceAll('"bea-westbrook"', '"former-contributor"').replaceAll('"Bea Westbrook"', '"A former contributor"'));
    }
    for (const d of after.deliveries) {
      const old = before.deliveries.find((b) => b.id === d.id)!.body;
      expect(d.body).toBe(old.replaceAll('"bea-westbrook"', '"former-contributor"').replaceAll('"Bea Westbrook"', '"A former contributor"'));
    }
    // The mail that told the owner who took the request names the former contributor now.
    expect(after.mail.map((m) => m.facts).join('')).not.toContain('bea-westbrook');
  });
});
