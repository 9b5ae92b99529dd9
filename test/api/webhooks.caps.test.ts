// Webhooks cannot make the service a reflector: at most WEBHOOKS_PER_ACCOUNT webhooks an account registered and
// WEBHOOKS_PER_PUBLICATION a publication has (409 naming the limit), one webhook per URL and format per owner
// (409 naming `url`), through arrays and parallel calls; and at most WEBHOOK_HOST_DELIVERIES_PER_MINUTE deliveries
// to one destination in a clock minute, counted in the database so two relays share it. What the ceiling holds back
// waits for the next minute, in order, unattempted: never failed, never lost.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addMember, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { webPublication } from '../web/dashboard.fixtures.js';
import { signedInClient } from '../web/pages.fixtures.js';
import { registerHook, registerPage, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true, webhooksPerAccount: 4, webhooksPerPublication: 6, webhookHostDeliveriesPerMinute: 5 });
  rx = await WebhookReceiver.start();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});
// Each test's calls come from few accounts: let their rate-limit buckets refill, and start each in a new minute.
beforeEach(() => t.clock.advance(120_000));

const hooks = '/api/v1/account/webhooks';

describe('a cap on webhooks per account and per publication', () => {
  it('an array of identical URLs registers one; each other item fails 409 naming url', async () => {
    const pub = await publisher(t);
    const res = await pub.owner.client.post(hooks, Array.from({ length: 6 }, () => ({ url: rx.url('/same') })));
    expect(res.status, res.text).toBe(200);
    const results = res.body.data.results as { status: string; error?: { code: string; details: { field: string }[] } }[];
    expect(results.map((r) => r.status)).toEqual(['created', 'failed', 'failed', 'failed', 'failed', 'failed']);
    for (const r of results.slice(1)) expect(r.error).toMatchObject({ code: 'conflict', details: [{ field: 'url' }] });
    // Twice, as the flood did: nothing more.
    const again = await pub.owner.client.post(hooks, { url: rx.url('/same') });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', details: [{ field: 'url' }] });
    expect((await pub.owner.client.get(hooks)).body.meta.total).toBe(1);
  });

  it('the same URL in another spelling is the same URL; another format, or one’s own webhook, is another', async () => {
    const pub = await publisher(t);
    const first = await registerHook(pub.owner, { url: `${rx.url('/pipe|bar')}?q={a}|b^c` });
    // Stored and answered as an RFC 3986 URI.
    expect(first.body.url).toBe(`${rx.url('/pipe%7Cbar')}?q=%7Ba%7D%7Cb%5Ec`);
    const spelled = await pub.owner.client.post(hooks, { url: `${rx.url('/pipe%7Cbar')}?q=%7Ba%7D%7Cb%5Ec#frag` });
    expect(spelled.status, spelled.text).toBe(409);
    await registerHook(pub.owner, { url: first.body.url, format: 'v1', publisher: pub.slug });
    await registerHook(pub.owner, { url: first.body.url, format: 'contributor' });
  });

  it('an account past its cap is refused 409 naming the limit, in an array and in parallel', async () => {
    const pub = await publisher(t);
    const res = await pub.owner.client.post(hooks, Array.from({ length: 6 }, (_, i) => ({ url: rx.url(`/a${i}`) })));
    const results = res.body.data.results as { status: string; error?: { code: string; details: { field: string }[] } }[];
    expect(results.filter((r) => r.status === 'created')).toHaveLength(4);
    for (const r of results.slice(4)) expect(r.error).toMatchObject({ code: 'conflict', details: [{ field: 'limit' }] });

    const other = await publisher(t);
    const all = await Promise.all(Array.from({ length: 8 }, (_, i) => other.owner.client.post(hooks, { url: rx.url(`/p${i}`) })));
    expect(all.filter((r) => r.status === 201)).toHaveLength(4);
    const refused = all.filter((r) => r.status === 409);
    expect(refused).toHaveLength(4);
    for (const r of refused) expect(r.body.error.details).toEqual([{ field: 'limit', message: expect.stringContaining('WEBHOOKS_PER_ACCOUNT') }]);
  });

  it('identical URLs in parallel register once', async () => {
    const pub = await publisher(t);
    const all = await Promise.all(Array.from({ length: 6 }, () => pub.owner.client.post(hooks, { url: rx.url('/race') })));
    expect(all.filter((r) => r.status === 201)).toHaveLength(1);
    expect(all.filter((r) => r.status === 409)).toHaveLength(5);
    // Two members of one publication: it is the publication's webhook, whoever registered it.
    const editor = await signup(t);
    await addMember(pub.owner.client, pub.slug, editor);
    const dup = await editor.client.post(hooks, { url: rx.url('/race'), publisher: pub.slug });
    expect(dup.status, dup.text).toBe(409);
    expect(dup.body.error.details).toEqual([{ field: 'url', message: 'is registered already (format api_v1)' }]);
  });

  it('a publication past its cap is refused, whichever member registers, also in parallel', async () => {
    const pub = await publisher(t);
    const members = [pub.owner, await signup(t), await signup(t)];
    for (const m of members.slice(1)) await addMember(pub.owner.client, pub.slug, m);
    const all = await Promise.all(
      members.flatMap((m, j) => Array.from({ length: 3 }, (_, i) => m.client.post(hooks, { url: rx.url(`/m${j}-${i}`), publisher: pub.slug }))),
    );
    expect(all.filter((r) => r.status === 201)).toHaveLength(6);
    const refused = all.filter((r) => r.status === 409);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.body.error.details).toEqual([{ field: 'limit', message: expect.stringContaining('WEBHOOKS_PER_PUBLICATION') }]);
  });

  it('changing a URL to one the owner has is 409 naming url', async () => {
    const pub = await publisher(t);
    await registerHook(pub.owner, { url: rx.url('/one') });
    const two = await registerHook(pub.owner, { url: rx.url('/two') });
    const res = await pub.owner.client.patch(`${hooks}/${two.id}`, { url: rx.url('/one') });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.details).toEqual([{ field: 'url', message: 'is registered already (format api_v1)' }]);
    // Its own URL again is no change.
    expect((await pub.owner.client.patch(`${hooks}/${two.id}`, { url: rx.url('/two') })).status).toBe(200);
  });

  it('the dashboard says a duplicate and the cap next to the URL, with 409', async () => {
    const pub = await webPublication(t);
    await pub.owner.b.get(`${pub.base}/webhooks`);
    expect((await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/dash'), format: 'api_v1' })).status).toBe(303);
    await pub.owner.b.get(`${pub.base}/webhooks`);
    const dup = await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/dash'), format: 'api_v1' });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('registered already');
    for (let i = 0; i < 3; i++) {
      await pub.owner.b.get(`${pub.base}/webhooks`);
      expect((await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url(`/dash${i}`), format: 'api_v1' })).status).toBe(303);
    }
    await pub.owner.b.get(`${pub.base}/webhooks`);
    const capped = await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/dash-more'), format: 'api_v1' });
    expect(capped.status).toBe(409);
    expect(capped.text).toContain('at most 4 webhooks');
  });

  it('/me/names says a duplicate next to the URL, with 409', async () => {
    const { b } = await signedInClient(t);
    await b.get('/me/names');
    expect((await b.post('/me/webhooks', { url: rx.url('/own') })).status).toBe(303);
    await b.get('/me/names');
    const refused = await b.post('/me/webhooks', { url: rx.url('/own') });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('registered already');
  });
});

describe('a ceiling on deliveries per destination and minute', () => {
  let pub: TestPublisher;

  /** Deliveries the receiver got on a path, as event ids in arrival order. */
  const seen = (path: string) => rx.at(path).map((r) => Number(r.delivery));

  it('sends at most the ceiling to one host in a minute, across endpoints; the rest wait, in order, unattempted', async () => {
    pub = await publisher(t);
    const a = await registerHook(pub.owner, { url: rx.url('/ceil-a'), events: ['page.registered'] });
    const b = await registerHook(pub.owner, { url: rx.url('/ceil-b'), events: ['page.registered'] });
    for (let i = 0; i < 4; i++) await registerPage(pub, `ceil/${i}`);
    // Two relays, as two instances: the count is the database's, so together they send no more than one would.
    const [r1, r2] = [relayFor(t), relayFor(t)];
    await Promise.all([r1.tick(), r2.tick()]);
    expect(seen('/ceil-a').length + seen('/ceil-b').length).toBe(5);

    // Nothing held back was attempted: no failure, no attempt in the log, still pending.
    for (const h of [a, b]) {
      const log = await pub.owner.client.get(`${hooks}/${h.id}/deliveries`);
      expect(log.body.data.every((x: { success: boolean }) => x.success)).toBe(true);
      const health = (await pub.owner.client.get(`${hooks}/${h.id}`)).body.data;
      expect(health.consecutive_failures).toBe(0);
    }
    const pending = (await Promise.all([a, b].map(async (h) => (await pub.owner.client.get(`${hooks}/${h.id}`)).body.data.pending as number))).reduce((x, y) => x + y);
    expect(pending).toBe(3);

    // Within the same minute, another pass (or a new event pulling the queue forward) sends nothing more.
    await registerPage(pub, 'ceil/4');
    await r1.tick();
    expect(seen('/ceil-a').length + seen('/ceil-b').length).toBe(5);

    // The next minute: the rest go, each endpoint's in event order.
    t.clock.advance(60_000);
    await Promise.all([r1.tick(), r2.tick()]);
    expect(seen('/ceil-a').length + seen('/ceil-b').length).toBe(10);
    for (const path of ['/ceil-a', '/ceil-b']) {
      const ids = seen(path);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(ids).toHaveLength(5);
    }
    await Promise.all([r1.stop(), r2.stop()]);
  });

  it('a redelivery by hand counts too: past the ceiling it is 429 with Retry-After', async () => {
    const pub2 = await publisher(t);
    const h = await registerHook(pub2.owner, { url: rx.url('/ceil-manual'), events: ['page.registered'] });
    await registerPage(pub2, 'manual/0');
    const relay = relayFor(t);
    await relay.tick();
    const attempt = (await pub2.owner.client.get(`${hooks}/${h.id}/deliveries`)).body.data[0];
    const redo = () => pub2.owner.client.post(`${hooks}/${h.id}/deliveries/${attempt.delivery_id}/redeliver`);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await redo()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const refused = await redo();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error.code).toBe('rate_limited');
    await relay.stop();
  });
});
