// Webhook replay: the owner asks for every event since a time, or after a change-log cursor, to be
// delivered again to one endpoint; the relay sends each again, signed as usual, with the same delivery id and a
// replay header, and nothing the endpoint was never owed; within the documented retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { type Hook, registerHook, registerPage, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
let other: TestPublisher;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let api: Hook;
let v1: Hook;
let middle: string;
let cursor: number;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await publisher(t);
  other = await publisher(t);
  api = await registerHook(pub.owner, { url: rx.url('/api'), events: ['page.registered'] });
  rx.trust('/api', api.secret);
  v1 = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug });
  rx.trust('/v1', v1.secret);
  await registerPage(pub, 'one');
  t.clock.advanceDays(1);
  middle = t.clock.now().toISOString();
  cursor = (await new Client(t.baseUrl).get('/api/v1/changes?limit=500')).body.meta.next_cursor;
  const two = await registerPage(pub, 'two');
  await registerPage(other, 'theirs');
  // Something a /v1 endpoint receives: work proposed on the page.
  const fixer = await signup(t);
  const sub = await new Client(t.baseUrl).as(await contributorKey(fixer)).post('/api/v1/submissions', { url: two.url, role: 'review', summary: 'Read it', evidence: { reason: 'Checked', sources: [] } });
  expect(sub.status, sub.text).toBe(201);
  await relay.tick();
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

const replays = (path: string) => rx.at(path).filter((r) => r.headers['x-service-replay'] === 'true' || r.headers['service-replay'] === 'true');

describe('replay', () => {
  it('delivers every event since a time again, signed, with the same delivery id, marked as a replay', async () => {
    const first = rx.at('/api').filter((r) => r.event === 'page.registered');
    expect(first).toHaveLength(2);
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { since: middle });
    expect(res.status, res.text).toBe(202);
    expect(res.body.data).toMatchObject({ webhook_id: api.id, since: middle, status: 'queued', events: null });
    await relay.tick();
    const again = replays('/api');
    expect(again).toHaveLength(1);
    expect(again[0]!.verified).toBe(true);
    expect(again[0]!.json.data.page.url).toContain('/two');
    // The same delivery id as the first time: a receiver that kept it can drop it.
    const original = first.find((r) => r.json.data.page.url.includes('/two'))!;
    expect(again[0]!.headers['x-service-delivery']).toBe(original.headers['x-service-delivery']);
    const done = await pub.owner.client.get(`/api/v1/account/webhooks/${api.id}/replays/${res.body.data.id}`);
    expect(done.body.data).toMatchObject({ status: 'done', events: 1 });
  });

  it('delivers again from a change-log cursor, on /v1 endpoints too, never another publication’s events', async () => {
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${v1.id}/replay`, { after: cursor });
    expect(res.status, res.text).toBe(202);
    await relay.tick();
    const again = replays('/v1');
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((r) => r.verified)).toBe(true);
    expect(again.every((r) => !JSON.stringify(r.json).includes(other.domain))).toBe(true);
    expect(again.map((r) => r.json.event)).toEqual(['contribution.submitted']);
    expect(again[0]!.headers['service-delivery']).toMatch(/^evt_\d+$/);
  });

  it('refuses what it cannot do, naming the field; another account’s webhook is 404', async () => {
    const both = await pub.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { since: middle, after: 1 });
    expect(both.status).toBe(400);
    const neither = await pub.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, {});
    expect(neither.status).toBe(400);
    const old = await pub.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { since: '2020-01-01T00:00:00Z' });
    expect(old.status).toBe(400);
    expect(old.body.error.details).toEqual([{ field: 'since', message: 'must be within the last 30 days' }]);
    const unknown = await pub.owner.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { after: 999999 });
    expect(unknown.body.error.details[0].field).toBe('after');
    const stranger = await signup(t);
    expect((await stranger.client.post(`/api/v1/account/webhooks/${api.id}/replay`, { since: middle })).status).toBe(404);
  });
});
