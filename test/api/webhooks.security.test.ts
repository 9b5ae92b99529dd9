// Every webhook route is session only (SPEC §5, §16): no credential is 401, any API key 403 session_required, an
// ended or expired session 401; and another account's webhook, or its deliveries, are 404 and stay untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { getHook, registerHook, registerPage, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let mine: TestPublisher;
let theirs: TestPublisher;
let hookId: number;
let deliveryId: number;
let theirHookId: number;
let theirDeliveryId: number;
const bad = { expiredSession: '', endedSession: '', publisherKey: '', contributorKey: '' };

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  // A session that outlives its 30 days.
  const stale = await signup(t);
  bad.expiredSession = stale.token;
  t.clock.advanceDays(31);

  mine = await publisher(t);
  theirs = await publisher(t);
  bad.publisherKey = mine.key;
  bad.contributorKey = await contributorKey(mine.owner);
  const ended = await new Client(t.baseUrl).post('/api/v1/auth/login', { email: mine.owner.email, password: mine.owner.password });
  bad.endedSession = ended.body.data.token;
  expect((await new Client(t.baseUrl).as(bad.endedSession).post('/api/v1/auth/logout')).status).toBe(200);

  hookId = (await registerHook(mine.owner, { url: rx.url('/mine') })).id;
  theirHookId = (await registerHook(theirs.owner, { url: rx.url('/theirs') })).id;
  await registerPage(mine);
  await registerPage(theirs);
  const relay = relayFor(t);
  await relay.tick();
  const db = t.runtime.deps.db;
  deliveryId = (await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hookId).executeTakeFirstOrThrow()).id;
  theirDeliveryId = (await db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', theirHookId).executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (ids: { hook: number; delivery: number }) => string;
  body?: Record<string, unknown>;
}

const ROUTES: Route[] = [
  { method: 'GET', path: () => '/api/v1/account/webhooks' },
  { method: 'POST', path: () => '/api/v1/account/webhooks', body: { url: 'https://hooks.example.com/x' } },
  { method: 'GET', path: (i) => `/api/v1/account/webhooks/${i.hook}` },
  { method: 'PATCH', path: (i) => `/api/v1/account/webhooks/${i.hook}`, body: { rotate_secret: true } },
  { method: 'DELETE', path: (i) => `/api/v1/account/webhooks/${i.hook}` },
  { method: 'GET', path: (i) => `/api/v1/account/webhooks/${i.hook}/deliveries` },
  { method: 'POST', path: (i) => `/api/v1/account/webhooks/${i.hook}/deliveries/${i.delivery}/redeliver` },
];

const call = (route: Route, token: string | null, ids = { hook: hookId, delivery: deliveryId }, asHeader?: 'x-api-key') =>
  new Client(t.baseUrl).req(route.method, route.path(ids), { token, ...(route.body ? { body: route.body } : {}), ...(asHeader ? { asHeader } : {}) });

describe.each(ROUTES.map((r) => ({ ...r, name: `${r.method} ${r.path({ hook: 1, delivery: 2 })}` })))('$name', (route) => {
  it('without a credential: 401', async () => {
    const res = await call(route, null);
    expect(res.status, res.text).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });

  it('with a publisher key (either header): 403 session_required', async () => {
    for (const asHeader of [undefined, 'x-api-key'] as const) {
      const res = await call(route, bad.publisherKey, undefined, asHeader);
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('session_required');
    }
  });

  it('with a contributor key: 403 session_required', async () => {
    const res = await call(route, bad.contributorKey);
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe('session_required');
  });

  it('with an expired or ended session: 401', async () => {
    for (const token of [bad.expiredSession, bad.endedSession, 'cred_sess_not-a-session']) {
      const res = await call(route, token);
      expect(res.status, res.text).toBe(401);
    }
  });
});

describe('another account’s webhook', () => {
  const idRoutes = ROUTES.filter((r) => r.path({ hook: 7, delivery: 8 }).includes('/7'));

  it.each(idRoutes.map((r) => [`${r.method} ${r.path({ hook: 1, delivery: 2 })}`, r] as const))('%s: 404, and nothing changes', async (_n, route) => {
    const before = await getHook(theirs.owner, theirHookId);
    const sent = rx.at('/theirs').length;
    const res = await call(route, mine.owner.token, { hook: theirHookId, delivery: theirDeliveryId });
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.text).not.toContain('whsec_');
    expect(await getHook(theirs.owner, theirHookId)).toEqual(before);
    expect(rx.at('/theirs')).toHaveLength(sent);
  });

  it('their delivery through my webhook is 404 too (a delivery belongs to its webhook)', async () => {
    const res = await mine.owner.client.post(`/api/v1/account/webhooks/${hookId}/deliveries/${theirDeliveryId}/redeliver`);
    expect(res.status, res.text).toBe(404);
    expect(rx.at('/theirs')).toHaveLength(1);
  });

  it('the listing shows only the caller’s own webhooks', async () => {
    const res = await mine.owner.client.get('/api/v1/account/webhooks');
    expect(res.body.data.map((w: { id: number }) => w.id)).toEqual([hookId]);
  });

  it('a teammate cannot read or change the owner’s webhook (webhooks belong to the account that made them)', async () => {
    const mate: TestUser = await signup(t);
    await addMember(mine.owner.client, mine.slug, mate);
    expect((await mate.client.get(`/api/v1/account/webhooks/${hookId}`)).status).toBe(404);
    expect((await mate.client.patch(`/api/v1/account/webhooks/${hookId}`, { enabled: false })).status).toBe(404);
  });
});
