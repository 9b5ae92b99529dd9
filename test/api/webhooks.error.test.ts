// Refused registrations and changes (SPEC §10, §16): targets that are not public https (the SSRF rules, with the
// private-address exemption off, as in production), events a format does not have, the v1 rules (a named
// publication of the caller, one endpoint each), and bad input on every route.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { registerHook } from './webhooks.fixtures.js';

let t: TestApp;
let pub: TestPublisher;

beforeAll(async () => {
  t = await startTestApp(); // WEBHOOK_ALLOW_PRIVATE off
  pub = await publisher(t);
});
afterAll(async () => t?.close());
// Every call here is the same account's: let its rate-limit bucket refill between tests.
beforeEach(() => t.clock.advance(10_000));

const register = (who: TestUser, body: Record<string, unknown>) => who.client.post('/api/v1/account/webhooks', body);

describe('targets: https on a public address only', () => {
  it.each([
    ['plain http', 'http://hooks.example.com/in', 'must use https'],
    ['localhost', 'https://localhost/in', 'public address'],
    ['localhost with a trailing dot', 'https://localhost./in', 'public address'],
    ['a .localhost name', 'https://api.localhost/in', 'public address'],
    ['loopback', 'https://127.0.0.1/in', 'public address'],
    ['loopback, other spelling', 'https://127.1.2.3:8443/in', 'public address'],
    ['loopback as a number', 'https://2130706433/in', 'public address'],
    ['loopback in hex', 'https://0x7f.1/in', 'public address'],
    ['private 10/8', 'https://10.1.2.3/in', 'public address'],
    ['private 172.16/12', 'https://172.20.0.1/in', 'public address'],
    ['private 192.168/16', 'https://192.168.1.10/in', 'public address'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data', 'public address'],
    ['CGNAT', 'https://100.64.0.7/in', 'public address'],
    ['this network', 'https://0.0.0.0/in', 'public address'],
    ['IPv6 loopback', 'https://[::1]/in', 'public address'],
    ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/in', 'public address'],
    ['IPv4-mapped public address', 'https://[::ffff:8.8.8.8]/in', 'public address'],
    ['IPv6 link-local', 'https://[fe80::1]/in', 'public address'],
    ['IPv6 unique local', 'https://[fd00::1]/in', 'public address'],
    ['a single-label name', 'https://intranet/in', 'public host'],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/in', 'user name or password'],
    ['not a URL', 'hooks.example.com/in', 'absolute https URL'],
    ['another scheme', 'ftp://hooks.example.com/in', 'must use https'],
  ])('%s is refused with 400 invalid_url', async (_name, url, why) => {
    const res = await register(pub.owner, { url });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'invalid_url', details: [{ field: 'url' }] } });
    expect(res.body.error.message).toContain(why);
  });

  it('a public https name is accepted (its address is checked at every connection)', async () => {
    const hook = await registerHook(pub.owner, { url: 'https://hooks.example.com/in#ignored' });
    expect(hook.body.url).toBe('https://hooks.example.com/in');
    expect((await pub.owner.client.delete(`/api/v1/account/webhooks/${hook.id}`)).status).toBe(200);
  });

  it('a URL longer than 2048 characters is refused', async () => {
    const res = await register(pub.owner, { url: `https://hooks.example.com/${'a'.repeat(2048)}` });
    expect(res.status).toBe(400);
  });
});

describe('events and formats', () => {
  it('an event the format does not have is a 400 naming the allowed ones', async () => {
    const res = await register(pub.owner, { url: 'https://hooks.example.com/a', events: ['page.registered', 'contribution.submitted'] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'events.1', message: 'must be one of: contribution.accepted, contribution.withdrawn, submission.received, page.registered, page.changed, page.notice' }],
    });
    expect(res.body.error.message).toContain('contribution.submitted is not an event of api_v1 webhooks');
  });

  it('v1 endpoints have the /v1 events only', async () => {
    const res = await register(pub.owner, { url: 'https://hooks.example.com/b', format: 'v1', publisher: pub.slug, events: ['page.registered'] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details[0].message).toBe(
      'must be one of: contribution.submitted, contribution.accepted, contribution.withdrawn, request.taken, panel.updated, page.changed, page.notice',
    );
  });

  it('an unknown format, an empty or oversized event list, an unknown field are 400', async () => {
    for (const body of [
      { url: 'https://hooks.example.com/c', format: 'v2' },
      { url: 'https://hooks.example.com/c', events: [] },
      { url: 'https://hooks.example.com/c', events: 'page.registered' },
      { url: 'https://hooks.example.com/c', secret: 'whsec_mine' },
      { events: ['page.registered'] },
      { url: 42 },
    ]) {
      const res = await register(pub.owner, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body.success).toBe(false);
    }
    const format = await register(pub.owner, { url: 'https://hooks.example.com/c', format: 'v2' });
    expect(format.body.error.message).toContain('api_v1, v1');
  });

  it('repeated events are kept once', async () => {
    const hook = await registerHook(pub.owner, { url: 'https://hooks.example.com/d', events: ['page.registered', 'page.registered'] });
    expect(hook.body.events).toEqual(['page.registered']);
    await pub.owner.client.delete(`/api/v1/account/webhooks/${hook.id}`);
  });
});

describe('whose events', () => {
  it('a v1 endpoint needs the publisher named', async () => {
    const res = await register(pub.owner, { url: 'https://hooks.example.com/v1', format: 'v1' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'missing_parameter', details: [{ field: 'publisher' }] });
  });

  it('a publication the caller is not a member of is not found', async () => {
    const stranger = await signup(t);
    const res = await register(stranger, { url: 'https://hooks.example.com/v1', format: 'v1', publisher: pub.slug });
    expect(res.status, res.text).toBe(404);
    const api = await register(stranger, { url: 'https://hooks.example.com/api', publisher: pub.slug });
    expect(api.status).toBe(404);
  });

  it('an account in no publication has no events to receive (403)', async () => {
    const loner = await signup(t);
    const res = await register(loner, { url: 'https://hooks.example.com/api' });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('an account in several publications names one', async () => {
    const second = await publisher(t, { owner: pub.owner });
    const res = await register(pub.owner, { url: 'https://hooks.example.com/api' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'missing_parameter', details: [{ field: 'publisher' }] });
    const named = await registerHook(pub.owner, { url: 'https://hooks.example.com/api', publisher: second.slug });
    expect(named.body.publisher.slug).toBe(second.slug);
  });

  it('one v1 endpoint per publisher: a second one is 409, whoever asks', async () => {
    await registerHook(pub.owner, { url: 'https://hooks.example.com/v1', format: 'v1', publisher: pub.slug });
    const again = await register(pub.owner, { url: 'https://hooks.example.com/v1-again', format: 'v1', publisher: pub.slug });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const teammate = await signup(t);
    await addMember(pub.owner.client, pub.slug, teammate, 'owner');
    const theirs = await register(teammate, { url: 'https://hooks.example.com/v1-mate', format: 'v1', publisher: pub.slug });
    expect(theirs.status).toBe(409);
    // api_v1 endpoints are not limited.
    await registerHook(teammate, { url: 'https://hooks.example.com/api-mate', publisher: pub.slug });
  });
});

describe('changing, deleting, redelivering: bad input', () => {
  let id: number;
  beforeAll(async () => {
    id = (await registerHook(pub.owner, { url: 'https://hooks.example.com/e', publisher: pub.slug })).id;
  });

  it('a new URL is checked like a first one', async () => {
    const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${id}`, { url: 'https://169.254.169.254/' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_url');
  });

  it('new events are checked against the webhook’s format', async () => {
    const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${id}`, { events: ['panel.updated'] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details[0]).toEqual({ field: 'events.0', message: 'must be one of: contribution.accepted, contribution.withdrawn, submission.received, page.registered, page.changed, page.notice' });
  });

  it('the format and the secret cannot be set; types are strict', async () => {
    for (const body of [{ format: 'v1' }, { secret: 'whsec_x' }, { enabled: 'true' }, { rotate_secret: 1 }]) {
      const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${id}`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
    }
  });

  it('unknown webhooks and deliveries are 404; bad ids are 400', async () => {
    expect((await pub.owner.client.patch('/api/v1/account/webhooks/999999', { enabled: true })).status).toBe(404);
    expect((await pub.owner.client.get('/api/v1/account/webhooks/999999')).status).toBe(404);
    expect((await pub.owner.client.get('/api/v1/account/webhooks/999999/deliveries')).status).toBe(404);
    expect((await pub.owner.client.delete('/api/v1/account/webhooks/999999')).status).toBe(404);
    expect((await pub.owner.client.post(`/api/v1/account/webhooks/${id}/deliveries/999999/redeliver`)).status).toBe(404);
    expect((await pub.owner.client.get('/api/v1/account/webhooks/abc')).status).toBe(400);
    expect((await pub.owner.client.post(`/api/v1/account/webhooks/${id}/deliveries/0/redeliver`)).status).toBe(400);
  });

  it('deleting twice: the second is 404', async () => {
    expect((await pub.owner.client.delete(`/api/v1/account/webhooks/${id}`)).status).toBe(200);
    expect((await pub.owner.client.delete(`/api/v1/account/webhooks/${id}`)).status).toBe(404);
  });
});
