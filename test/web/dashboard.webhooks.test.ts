// Webhooks on the dashboard: register either format (the secret once), delivery health at a glance, the attempt
// log, redeliver, pause and re-enable, rotate, delete. A real receiver checks the signatures; the relay is driven
// with tick() so every delivery is attempted before the page is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { relayFor } from '../api/webhooks.fixtures.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { registerPage, type WebPublication, webPublication } from './dashboard.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let pub: WebPublication;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true, rateLimitAllowlist: ['127.0.0.1'] });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await webPublication(t);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

const secretOf = (text: string) => /whsec_[0-9a-f]{64}/.exec(text)?.[0];

describe('webhooks on the dashboard', () => {
  let hookId: number;
  let secret: string;

  it('registers an /api/v1 webhook with chosen events and shows its secret once', async () => {
    const empty = await pub.owner.b.get(`${pub.base}/webhooks`);
    expect(empty.text).toContain('No webhooks yet.');
    const bad = await pub.owner.b.post(`${pub.base}/webhooks`, { url: 'ftp://example.com/x', format: 'api_v1' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-url-error"');
    expect(bad.text).toContain('must use https');
    const wrongEvent = await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/api'), format: 'api_v1', events_api_v1: ['page.registered', 'request.taken'] });
    expect(wrongEvent.status).toBe(400);
    expect(wrongEvent.text).toContain('request.taken is not an event of api_v1 webhooks');

    const made = await pub.owner.b.postFollow(`${pub.base}/webhooks`, { url: rx.url('/api'), format: 'api_v1', events_api_v1: ['page.registered', 'contribution.accepted'], events_v1: ['request.taken'] });
    expect(made.status).toBe(200);
    secret = secretOf(made.text)!;
    expect(secret).toBeDefined();
    expect(made.text).toContain('shown only this once');
    rx.trust('/api', secret);
    const row = await t.runtime.deps.db.selectFrom('webhooks').select(['id', 'events', 'format']).where('url', '=', rx.url('/api')).executeTakeFirstOrThrow();
    hookId = row.id;
    expect(JSON.parse(row.events)).toEqual(['page.registered', 'contribution.accepted']);
    const list = await pub.owner.b.get(`${pub.base}/webhooks`);
    expect(list.text).not.toContain('whsec_');
    expect(list.text).toContain('no deliveries yet');
    expect(list.text).toContain(`href="${pub.base}/webhooks/${hookId}"`);
  });

  it('registers the publication’s one /v1 webhook, and refuses a second', async () => {
    const v1 = await pub.owner.b.postFollow(`${pub.base}/webhooks`, { url: rx.url('/v1'), format: 'v1' });
    expect(v1.status).toBe(200);
    rx.trust('/v1', secretOf(v1.text)!);
    const again = await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/v1-again'), format: 'v1' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('has a v1 webhook already');
    const odd = await pub.owner.b.post(`${pub.base}/webhooks`, { url: rx.url('/x'), format: 'smoke-signals' });
    expect(odd.status).toBe(400);
    expect(odd.text).toContain('must be one of: api_v1, v1');
  });

  it('shows delivery health and the attempt log, and redelivers', async () => {
    const page = await registerPage(t, pub, 'hooked/one');
    await relay.tick();
    const got = rx.at('/api');
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ event: 'page.registered', verified: true });
    const list = await pub.owner.b.get(`${pub.base}/webhooks`);
    expect(list.text).toContain('<span class="badge ok">healthy</span>');
    expect(list.text).toContain('<strong>100%</strong> delivered, 24 h');
    const detail = await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`);
    expect(detail.text).toContain('<code>page.registered</code>');
    expect(detail.text).toContain('<span class="badge ok">HTTP 200</span>');
    expect(detail.text).toContain('<pre>ok</pre>');

    // The receiver fails: the page shows it at a glance, with the answer.
    rx.answer('/api', { status: 500, body: 'database <down>' });
    await registerPage(t, pub, 'hooked/two');
    await relay.tick();
    const failing = await pub.owner.b.get(`${pub.base}/webhooks`);
    expect(failing.text).toContain('failing: 1 in a row');
    expect(failing.text).toContain('<strong>50%</strong> delivered, 24 h');
    const log = await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`);
    expect(log.text).toContain('<span class="badge bad">HTTP 500</span>');
    expect(log.text).toContain('<pre>database &lt;down&gt;</pre>');

    // Redelivering the first (already delivered) one sends it again now.
    rx.answer('/api', { status: 200, body: 'ok' });
    const delivery = await t.runtime.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', hookId)
      .where('status', '=', 'succeeded')
      .executeTakeFirstOrThrow();
    const redo = await pub.owner.b.post(`${pub.base}/webhooks/${hookId}/deliveries/${delivery.id}/redeliver`, {});
    expect(redo.location).toBe(`${pub.base}/webhooks/${hookId}?done=redelivered`);
    expect(rx.at('/api').filter((r) => r.json?.data?.page?.id === page.id)).toHaveLength(2);
    expect((await pub.owner.b.get(redo.location!)).text).toContain('redelivery');
  });

  it('pauses and re-enables, rotates the secret (shown once), and deletes', async () => {
    await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`);
    const pause = await pub.owner.b.post(`${pub.base}/webhooks/${hookId}/pause`, {});
    expect(pause.location).toBe(`${pub.base}/webhooks/${hookId}?done=paused`);
    const paused = await pub.owner.b.get(pause.location!);
    expect(paused.text).toContain('<span class="badge bad">paused</span>');
    expect(paused.text).toContain('>Re-enable</button>');
    const enable = await pub.owner.b.post(`${pub.base}/webhooks/${hookId}/enable`, {});
    expect((await pub.owner.b.get(enable.location!)).text).toContain('Re-enabled');

    const rotated = await pub.owner.b.postFollow(`${pub.base}/webhooks/${hookId}/rotate`, {});
    expect(rotated.status).toBe(200);
    const next = secretOf(rotated.text);
    expect(next).toBeDefined();
    expect(next).not.toBe(secret);
    expect(rotated.text).toContain('The previous secret keeps signing alongside it');
    expect((await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`)).text).not.toContain('whsec_');

    const del = await pub.owner.b.post(`${pub.base}/webhooks/${hookId}/delete`, {});
    expect(del.location).toBe(`${pub.base}/webhooks?done=deleted`);
    expect((await pub.owner.b.get(`${pub.base}/webhooks/${hookId}`)).status).toBe(404);
  });

  it('keeps another publication’s webhooks out of reach (404)', async () => {
    const other = await webPublication(t);
    await other.owner.b.get(`${other.base}/webhooks`);
    const made = await other.owner.b.post(`${other.base}/webhooks`, { url: rx.url('/other'), format: 'api_v1' });
    expect(made.status).toBe(303);
    const { id } = await t.runtime.deps.db.selectFrom('webhooks').select('id').where('url', '=', rx.url('/other')).executeTakeFirstOrThrow();
    expect((await pub.owner.b.get(`${pub.base}/webhooks/${id}`)).status).toBe(404);
    expect((await pub.owner.b.get(`${other.base}/webhooks/${id}`)).status).toBe(404);
    await pub.owner.b.get(`${pub.base}/webhooks`);
    for (const action of ['pause', 'rotate', 'delete']) {
      expect((await pub.owner.b.post(`${pub.base}/webhooks/${id}/${action}`, {})).status).toBe(404);
    }
    const row = await t.runtime.deps.db.selectFrom('webhooks').select(['enabled']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.enabled).toBe(1);
  });
});
