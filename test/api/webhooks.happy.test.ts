// Account webhooks from registration to delivery (SPEC §10): both formats, every one of the eight events with
// its payload and headers, signatures checked by an independent receiver, health, the attempt log, redelivery,
// secret rotation, event selection and deletion.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import type { TestPublisher, TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import {
  accept,
  correction,
  getHook,
  type Hook,
  openAndTake,
  panelOnTopic,
  newPublisher,
  registerHook,
  registerPage,
  relayFor,
  specialist,
  submit,
} from './webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;
let pub: TestPublisher;
let api: Hook;
let v1: Hook;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
  pub = await newPublisher(t);
});
afterAll(async () => {
  await relay?.stop();
  await rx?.close();
  await t?.close();
});

const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

describe('registration', () => {
  it('registers an api_v1 webhook for the caller’s only publication; the secret is shown once', async () => {
    api = await registerHook(pub.owner, { url: rx.url('/api'), events: ['page.registered', 'submission.received', 'contribution.accepted'] });
    rx.trust('/api', api.secret);
    expect(api.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(api.body).toMatchObject({
      url: rx.url('/api'),
      format: 'api_v1',
      publisher: { slug: pub.slug },
      events: ['page.registered', 'submission.received', 'contribution.accepted'],
      status: 'enabled',
      consecutive_failures: 0,
      last_attempt_at: null,
      last_success_at: null,
      last_failure_at: null,
      last_status_code: null,
      success_rate_24h: null,
      pending: 0,
      previous_secret_expires_at: null,
    });
    const list = await pub.owner.client.get('/api/v1/account/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ total: 1, page: 1, per_page: 20 });
    expect(list.body.data[0]).toMatchObject({ id: api.id, status: 'enabled' });
    expect(list.text).not.toContain(api.secret);
    expect(list.text).not.toContain('whsec_');
    expect((await pub.owner.client.get(`/api/v1/account/webhooks/${api.id}`)).text).not.toContain('whsec_');
  });

  it('registers the publisher’s one v1 endpoint with every /v1 event by default', async () => {
    v1 = await registerHook(pub.owner, { url: rx.url('/v1'), format: 'v1', publisher: pub.slug });
    rx.trust('/v1', v1.secret);
    expect(v1.body).toMatchObject({
      format: 'v1',
      events: ['contribution.submitted', 'contribution.accepted', 'contribution.withdrawn', 'request.taken', 'panel.updated', 'page.changed', 'page.notice'],
    });
  });
});

describe('the eight events, delivered', () => {
  let page: { id: number; url: string };
  let ada: Awaited<ReturnType<typeof specialist>>;
  let requestId: number;
  let submissionId: number;
  let contributionId: number;

  it('page.registered reaches the api_v1 endpoint only, signed over the raw body', async () => {
    page = await registerPage(pub, 'health/measles', 'health');
    const r = await relay.tick();
    expect(r).toMatchObject({ fannedOut: 1, attempts: 1 });
    expect(rx.at('/v1')).toHaveLength(0);
    const [got] = rx.at('/api');
    expect(got).toBeDefined();
    expect(got!.verified).toBe(true);
    expect(got!.method).toBe('POST');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.event).toBe('page.registered');
    expect(got!.timestamp).toBe(nowSeconds());
    expect(got!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got!.delivery).toBe(String(got!.json.id));
    expect(got!.json).toEqual({
      id: expect.any(Number),
      event: 'page.registered',
      created: '2026-11-21T10:00:00.000Z',
      data: {
        page: { id: page.id, url: page.url, title: 'Story health/measles', record_url: `https://credence.test/records/${page.id}` },
        registration: { topic: 'health', registered_at: '2026-11-21T10:00:00.000Z' },
      },
    });
  });

  it('request.taken reaches the v1 endpoint', async () => {
    ada = await specialist(t);
    requestId = await openAndTake(pub, ada, page.url);
    await relay.tick();
    const got = rx.at('/v1');
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.headers['service-signature']).toMatch(/^t=\d+,sha256=[0-9a-f]{64}$/);
    expect(got[0]!.event).toBe('request.taken');
    expect(got[0]!.delivery).toMatch(/^evt_\d+$/);
    expect(got[0]!.json).toEqual({
      event: 'request.taken',
      created: '2026-11-21T10:00:00.000Z',
      page: page.url,
      request: { id: `req_${requestId}`, type: 'correction', status: 'taken', taken_by: ada.username },
    });
  });

  it('a submission fires contribution.submitted (v1) and submission.received (api_v1, with its evidence)', async () => {
    const before = rx.requests.length;
    submissionId = await submit(ada, correction({ request_id: requestId }));
    await relay.tick();
    const fresh = rx.requests.slice(before);
    expect(fresh.map((r) => `${r.path} ${r.event}`).sort()).toEqual(['/api submission.received', '/v1 contribution.submitted']);
    expect(fresh.every((r) => r.verified)).toBe(true);
    expect(fresh.find((r) => r.path === '/v1')!.json).toEqual({
      event: 'contribution.submitted',
      created: '2026-11-21T10:00:00.000Z',
      page: page.url,
      contribution: { id: `sub_${submissionId}`, type: 'correction', contributor: ada.username, status: 'pending', summary: 'Fixed the vaccination rate' },
    });
    expect(fresh.find((r) => r.path === '/api')!.json.data).toEqual({
      page: { id: page.id, url: page.url, title: 'Story health/measles', record_url: `https://credence.test/records/${page.id}` },
      submission: {
        id: submissionId,
        role: 'correction',
        status: 'pending',
        summary: 'Fixed the vaccination rate',
        request_id: requestId,
        contributor: { username: ada.username, name: 'Dr. Ada Specialist' },
        evidence: { before: 'Rates fell to 70%.', after: 'Rates fell to 79%.', reason: 'The CDC table says 79%.', sources: ['https://www.cdc.gov/table'] },
      },
    });
  });

  it('an acceptance fires contribution.accepted on both, with the change and the public record', async () => {
    const before = rx.requests.length;
    t.clock.advance(60_000);
    contributionId = await accept(pub, submissionId);
    await relay.tick();
    const fresh = rx.requests.slice(before);
    expect(fresh.map((r) => r.path).sort()).toEqual(['/api', '/v1']);
    expect(fresh.find((r) => r.path === '/v1')!.json).toEqual({
      event: 'contribution.accepted',
      created: '2026-11-21T10:01:00.000Z',
      page: page.url,
      contribution: {
        id: `sub_${submissionId}`,
        type: 'correction',
        contributor: ada.username,
        status: 'accepted',
        summary: 'Fixed the vaccination rate',
        accepted: '2026-11-21',
        change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' },
        record_id: `ctb_${contributionId}`,
        proof_url: `https://credence.test/proofs/${contributionId}`,
      },
    });
    expect(fresh.find((r) => r.path === '/api')!.json).toMatchObject({
      event: 'contribution.accepted',
      data: {
        page: { id: page.id, url: page.url },
        contribution: {
          id: contributionId,
          role: 'correction',
          submission_id: submissionId,
          contributor: { username: ada.username, name: 'Dr. Ada Specialist' },
          accepted_at: '2026-11-21T10:01:00.000Z',
          change: { from: 'Rates fell to 70%.', to: 'Rates fell to 79%.' },
          proof_url: `https://credence.test/proofs/${contributionId}`,
        },
      },
    });
  });

  it('a withdrawal fires contribution.withdrawn (v1)', async () => {
    const before = rx.requests.length;
    const other = await submit(ada, { url: page.url, role: 'review', summary: 'Read it twice', evidence: { reason: 'All fine', sources: [] } });
    const res = await ada.client.post(`/api/v1/submissions/${other}/withdraw`);
    expect(res.status, res.text).toBe(200);
    await relay.tick();
    const fresh = rx.requests.slice(before).filter((r) => r.path === '/v1');
    expect(fresh.map((r) => r.event)).toEqual(['contribution.submitted', 'contribution.withdrawn']);
    expect(fresh[1]!.json.contribution).toEqual({
      id: `sub_${other}`,
      type: 'review',
      contributor: ada.username,
      status: 'withdrawn',
      summary: 'Read it twice',
    });
  });

  it('panel.updated reaches v1 endpoints of publishers with pages on the topic, and no one else', async () => {
    const elsewhere = await newPublisher(t);
    await registerPage(elsewhere, 'sport/a', 'sport');
    const theirs = await registerHook(elsewhere.owner, { url: rx.url('/elsewhere'), format: 'v1', publisher: elsewhere.slug });
    rx.trust('/elsewhere', theirs.secret);
    const before = rx.requests.length;
    const panelId = await panelOnTopic(t, 'Health');
    await relay.tick();
    const fresh = rx.requests.slice(before);
    expect(fresh.map((r) => `${r.path} ${r.event}`)).toEqual(['/v1 panel.updated', '/v1 panel.updated']);
    const [first, second] = fresh.map((r) => r.json);
    expect(first).toMatchObject({ event: 'panel.updated', page: null, topic: 'health', panel: { id: panelId, version: 1, previous_version: null } });
    expect(second).toEqual({
      event: 'panel.updated',
      created: expect.any(String),
      page: null,
      topic: 'health',
      panel: { id: panelId, version: 2, previous_version: 1 },
      changes: { answer: { from: expect.any(String), to: 'A revised answer.' } },
    });
    expect(rx.at('/elsewhere')).toHaveLength(0);
  });

  it('taking one’s name back from accepted work fires contribution.withdrawn (v1) with the record it left', async () => {
    const before = rx.requests.length;
    const res = await ada.client.post(`/api/v1/account/contributions/${contributionId}/withdraw`);
    expect(res.status, res.text).toBe(200);
    await relay.tick();
    const fresh = rx.requests.slice(before);
    expect(fresh.map((r) => `${r.path} ${r.event}`)).toEqual(['/v1 contribution.withdrawn']);
    expect(fresh[0]!.verified).toBe(true);
    expect(fresh[0]!.json).toEqual({
      event: 'contribution.withdrawn',
      created: expect.any(String),
      page: page.url,
      contribution: {
        id: `sub_${submissionId}`,
        type: 'correction',
        contributor: ada.username,
        status: 'withdrawn',
        summary: expect.any(String),
        record_id: `ctb_${contributionId}`,
        withdrawn_by: 'contributor',
      },
    });
  });

  it('every request was signed, and each delivery header is its event id', async () => {
    expect(rx.requests.every((r) => r.verified)).toBe(true);
    for (const r of rx.requests) {
      if (r.format === 'v1') expect(r.delivery).toMatch(/^evt_\d+$/);
      else expect(r.delivery).toBe(String(r.json.id));
    }
  });
});

describe('health, the attempt log and redelivery', () => {
  it('the listing shows each endpoint’s delivery health', async () => {
    const h = await getHook(pub.owner, v1.id);
    expect(h).toMatchObject({
      status: 'enabled',
      consecutive_failures: 0,
      last_status_code: 200,
      last_success_at: expect.any(String),
      last_attempt_at: expect.any(String),
      last_failure_at: null,
      success_rate_24h: 1,
      pending: 0,
    });
  });

  it('lists recent attempts newest first, with status, duration and the answer as text', async () => {
    rx.answer('/v1', { status: 503, body: '<h1>down for maintenance</h1>' });
    await registerPage(pub); // not a v1 event: nothing for /v1
    const ada = await specialist(t);
    const page = await registerPage(pub, `p/${Date.now()}`);
    await openAndTake(pub, ada, page.url, 'reviewer');
    await relay.tick();
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${v1.id}/deliveries?per_page=2`);
    expect(log.status, log.text).toBe(200);
    expect(log.body.meta).toMatchObject({ page: 1, per_page: 2 });
    expect(log.body.meta.total).toBeGreaterThan(5);
    const [latest, previous] = log.body.data;
    expect(latest).toMatchObject({
      event: 'request.taken',
      delivery_status: 'pending',
      status_code: 503,
      success: false,
      error: 'answered 503',
      response_body: '<h1>down for maintenance</h1>',
      manual: false,
      duration_ms: expect.any(Number),
    });
    expect(previous.id).toBeLessThan(latest.id);
    const h = await getHook(pub.owner, v1.id);
    expect(h).toMatchObject({ consecutive_failures: 1, last_status_code: 503, pending: 1, last_failure_at: expect.any(String) });
    expect(h.success_rate_24h).toBeLessThan(1);
    rx.answer('/v1', { status: 204 });
  });

  it('redelivers a delivered event now: same body, same delivery id, a fresh signature', async () => {
    // The queued one goes through on the next pass (it is due in 30 s).
    t.clock.advance(31_000);
    await relay.tick();
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${v1.id}/deliveries`);
    const delivered = log.body.data.find((a: any) => a.event === 'contribution.accepted');
    const original = rx.at('/v1').find((r) => r.event === 'contribution.accepted')!;
    t.clock.advance(5_000);
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${v1.id}/deliveries/${delivered.delivery_id}/redeliver`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      queued: false,
      delivery: { id: delivered.delivery_id, status: 'succeeded', event: 'contribution.accepted' },
      attempt: { manual: true, success: true, status_code: 204 },
    });
    const again = rx.at('/v1').at(-1)!;
    expect(again.raw.equals(original.raw)).toBe(true);
    expect(again.delivery).toBe(original.delivery);
    expect(again.timestamp).toBe(nowSeconds());
    expect(again.verified).toBe(true);
  });

  it('a delivery still queued is not sent out of turn: its queue becomes due now (202)', async () => {
    rx.answer('/v1', { status: 500 });
    const ada = await specialist(t);
    const page = await registerPage(pub);
    await openAndTake(pub, ada, page.url, 'reviewer');
    await relay.tick();
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${v1.id}/deliveries?per_page=1`);
    const queued = log.body.data[0];
    expect(queued.delivery_status).toBe('pending');
    rx.answer('/v1', { status: 200 });
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${v1.id}/deliveries/${queued.delivery_id}/redeliver`);
    expect(res.status, res.text).toBe(202);
    expect(res.body.data).toMatchObject({ queued: true, attempt: null, delivery: { status: 'pending', next_attempt_at: t.clock.now().toISOString() } });
    await relay.tick();
    expect((await getHook(pub.owner, v1.id)).pending).toBe(0);
  });
});

describe('changing a webhook', () => {
  it('rotates the secret: the new one shown once, both signing for 24 hours, then the new one alone', async () => {
    const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${api.id}`, { rotate_secret: true });
    expect(res.status, res.text).toBe(200);
    const fresh = res.body.data.secret as string;
    expect(fresh).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(fresh).not.toBe(api.secret);
    expect(res.body.data.previous_secret_expires_at).toBe(new Date(t.clock.now().getTime() + 86_400_000).toISOString());
    expect((await pub.owner.client.get(`/api/v1/account/webhooks/${api.id}`)).text).not.toContain('whsec_');

    rx.trust('/api', fresh, api.secret);
    await registerPage(pub);
    await relay.tick();
    const during = rx.at('/api').at(-1)!;
    expect(during.signatures).toHaveLength(2);
    expect(during.signedBy).toEqual([0, 1]);
    // The documented header holds one `sha256=<hex>`, the new secret's; the old secret's is in a header of its own.
    const hex = (key: string) => createHmac('sha256', key).update(`${during.timestamp}.`).update(during.raw).digest('hex');
    expect(during.headers['x-service-signature']).toBe(`sha256=${hex(fresh)}`);
    expect(during.headers['x-service-signature-previous']).toBe(`sha256=${hex(api.secret)}`);

    t.clock.advance(86_400_000 + 1000);
    await registerPage(pub);
    await relay.tick();
    const after = rx.at('/api').at(-1)!;
    expect(after.signatures).toHaveLength(1);
    expect(after.signedBy).toEqual([0]);
    expect(after.headers['x-service-signature-previous']).toBeUndefined();
    expect((await getHook(pub.owner, api.id)).previous_secret_expires_at).toBeNull();
    api.secret = fresh;
  });

  it('selects events: only the ones asked for are sent', async () => {
    const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${api.id}`, { events: ['contribution.accepted'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.events).toEqual(['contribution.accepted']);
    const before = rx.at('/api').length;
    await registerPage(pub);
    await relay.tick();
    expect(rx.at('/api')).toHaveLength(before);
  });

  it('a second publication’s owner cannot be reached through the first one’s webhook', async () => {
    const other = await newPublisher(t);
    const before = rx.requests.length;
    await registerPage(other);
    await relay.tick();
    expect(rx.requests.length).toBe(before);
  });

  it('deletes a webhook: nothing more is sent to it and it is gone', async () => {
    const res = await pub.owner.client.delete(`/api/v1/account/webhooks/${api.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ id: api.id, deleted: true });
    expect((await pub.owner.client.get(`/api/v1/account/webhooks/${api.id}`)).status).toBe(404);
    const list = await pub.owner.client.get('/api/v1/account/webhooks');
    expect(list.body.data.map((w: any) => w.id)).toEqual([v1.id]);
  });
});

describe('the OpenAPI documents', () => {
  it('describe the payloads and headers of every event in each document’s webhooks section', async () => {
    const anon = (await import('../client.js')).Client;
    const c = new anon(t.baseUrl);
    const v1Doc = (await c.get('/v1/openapi.json')).body;
    const apiDoc = (await c.get('/api/v1/openapi.json')).body;
    expect(Object.keys(v1Doc.webhooks).sort()).toEqual(
      ['contribution.accepted', 'contribution.submitted', 'contribution.withdrawn', 'panel.updated', 'request.taken', 'page.changed', 'page.notice'].sort(),
    );
    expect(Object.keys(apiDoc.webhooks).sort()).toEqual([
      'contribution.accepted',
      'contribution.withdrawn',
      'contributor.credited',
      'contributor.named',
      'contributor.uncredited',
      'page.changed',
      'page.notice',
      'page.registered',
      'submission.received',
    ]);
    const accepted = v1Doc.webhooks['contribution.accepted'].post;
    expect(accepted.parameters.map((p: any) => p.name)).toEqual(['Service-Event', 'Service-Delivery', 'Service-Signature']);
    expect(accepted.requestBody.content['application/json'].schema.properties.contribution.properties).toHaveProperty('change');
    expect(apiDoc.webhooks['page.registered'].post.parameters.map((p: any) => p.name)).toEqual([
      'X-Service-Event',
      'X-Service-Delivery',
      'X-Service-Timestamp',
      'X-Service-Signature',
      'X-Service-Signature-Previous',
    ]);
    const previous = apiDoc.webhooks['page.registered'].post.parameters.find((p: any) => p.name === 'X-Service-Signature-Previous');
    expect(previous.required).toBe(false);
    expect(apiDoc.paths['/account/webhooks/{id}/deliveries/{delivery_id}/redeliver'].post.security).toEqual([{ bearer: [] }]);
  });
});

// Keep the unused-type linter honest about the helper types above.
export type { TestUser };
