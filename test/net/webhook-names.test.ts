// Webhook URLs whose name resolves to a private, loopback, link-local or metadata address (SPEC §10), with the
// private-address exemption off as in production and a DNS the test plays: refused at registration when the name
// resolves to one then (400 naming `url`, on POST and PATCH), and refused at every attempt when it resolves to one
// later (a name switched after registration: DNS rebinding). The attempt is recorded with the one finding, `the host
// has no public address`, and no connection is ever opened to the address.
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_PUBLIC_ADDRESS, type Resolve } from '../../src/net/safe-fetch.js';
import { publisher, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { registerHook, registerPage, relayFor } from '../api/webhooks.fixtures.js';

/** The DNS of this test: a name's answer is whatever the test last set; any other name does not exist. */
const answers = new Map<string, string[]>();
const lookups: string[] = [];
const resolve: Resolve = (hostname, _options, callback) => {
  lookups.push(hostname);
  const list = answers.get(hostname);
  setImmediate(() => {
    if (!list) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, list.map((address): LookupAddress => ({ address, family: net.isIP(address) as 4 | 6 })));
  });
};

let t: TestApp;
let pub: TestPublisher;
/** A TCP listener on the loopback: it counts connections, so a request that got as far as connecting shows. */
let trap: net.Server;
let connections = 0;
let port = 0;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: false });
  t.runtime.deps.resolve = resolve;
  pub = await publisher(t);
  trap = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
  port = (trap.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => trap?.close(r));
  await t?.close();
});
beforeEach(() => t.clock.advance(120_000));

const hooks = '/api/v1/account/webhooks';

describe('at registration', () => {
  it.each([
    ['loopback', ['127.0.0.1']],
    ['private 10/8', ['10.1.2.3']],
    ['private 192.168/16', ['192.168.1.20']],
    ['link-local (cloud metadata)', ['169.254.169.254']],
    ['CGNAT', ['100.64.0.9']],
    ['IPv6 loopback', ['::1']],
    ['IPv6 link-local', ['fe80::1']],
    ['IPv6 unique local', ['fd00::5']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['one public and one private address', ['93.184.216.34', '10.0.0.1']],
  ])('refuses a name resolving to %s with 400 naming url', async (_why, addresses) => {
    const name = `n${Math.random().toString(36).slice(2, 8)}.hooks-test.example`;
    answers.set(name, addresses);
    const res = await pub.owner.client.post(hooks, { url: `https://${name}:8443/in` });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_url', details: [{ field: 'url', message: expect.stringContaining(NO_PUBLIC_ADDRESS) }] });
    // …and in an array, that item alone.
    const batch = await pub.owner.client.post(hooks, [{ url: `https://${name}/in` }, { url: 'https://fine.hooks-test.example/in' }]);
    expect(batch.body.data.results.map((r: { status: string }) => r.status)).toEqual(['failed', 'created']);
    expect(batch.body.data.results[0].error.details).toEqual([{ field: 'url', message: expect.stringContaining(NO_PUBLIC_ADDRESS) }]);
    await pub.owner.client.delete(`${hooks}/${batch.body.data.results[1].id}`);
  });

  it('takes a name resolving to public addresses, and one that does not resolve yet (checked at each attempt)', async () => {
    answers.set('public.hooks-test.example', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
    const a = await pub.owner.client.post(hooks, { url: 'https://public.hooks-test.example/in' });
    expect(a.status, a.text).toBe(201);
    const b = await pub.owner.client.post(hooks, { url: 'https://not-yet.hooks-test.example/in' });
    expect(b.status, b.text).toBe(201);
    expect(lookups).toContain('not-yet.hooks-test.example');
    for (const r of [a, b]) await pub.owner.client.delete(`${hooks}/${r.body.data.id}`);
  });

  it('refuses a new URL of a webhook the same way', async () => {
    answers.set('ok.hooks-test.example', ['93.184.216.34']);
    answers.set('meta.hooks-test.example', ['169.254.169.254']);
    const h = await registerHook(pub.owner, { url: 'https://ok.hooks-test.example/in' });
    const res = await pub.owner.client.patch(`${hooks}/${h.id}`, { url: 'https://meta.hooks-test.example/in' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'url', message: expect.stringContaining(NO_PUBLIC_ADDRESS) }]);
    await pub.owner.client.delete(`${hooks}/${h.id}`);
  });
});

describe('at delivery', () => {
  it('a name that resolves to the loopback after registration gets no connection; the attempt says why', async () => {
    const name = 'rebind.hooks-test.example';
    answers.set(name, ['93.184.216.34']);
    const h = await registerHook(pub.owner, { url: `https://${name}:${port}/in`, events: ['page.registered'] });
    // The answer changes: the name now points at a service on the loopback.
    answers.set(name, ['127.0.0.1']);
    await registerPage(pub, 'rebind/1');
    lookups.length = 0;
    const relay = relayFor(t);
    await relay.tick();
    await relay.stop();
    // The attempt asked this test's DNS (so the answer it judged was the loopback), and connected nowhere.
    expect(lookups).toContain(name);
    expect(connections).toBe(0);
    const log = await pub.owner.client.get(`${hooks}/${h.id}/deliveries`);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ success: false, status_code: null, error: NO_PUBLIC_ADDRESS });

    // A redelivery by hand is checked the same way.
    const redo = await pub.owner.client.post(`${hooks}/${h.id}/deliveries/${log.body.data[0].delivery_id}/redeliver`);
    expect(redo.status, redo.text).toBe(202);
    const again = relayFor(t);
    t.clock.advance(60_000);
    await again.tick();
    await again.stop();
    expect(connections).toBe(0);
    const after = await pub.owner.client.get(`${hooks}/${h.id}/deliveries`);
    expect(after.body.data.every((a: { error: string }) => a.error === NO_PUBLIC_ADDRESS)).toBe(true);
  });

  it('the metadata address and a name with no answer: the same one finding', async () => {
    answers.set('meta-later.hooks-test.example', ['93.184.216.34']);
    const h = await registerHook(pub.owner, { url: `https://meta-later.hooks-test.example:${port}/in`, events: ['page.registered'] });
    const gone = await registerHook(pub.owner, { url: `https://gone.hooks-test.example:${port}/in`, events: ['page.registered'] });
    answers.set('meta-later.hooks-test.example', ['169.254.169.254']);
    await registerPage(pub, 'rebind/2');
    lookups.length = 0;
    const relay = relayFor(t);
    await relay.tick();
    await relay.stop();
    for (const id of [h.id, gone.id]) {
      const log = await pub.owner.client.get(`${hooks}/${id}/deliveries`);
      expect(log.body.data[0]).toMatchObject({ success: false, error: NO_PUBLIC_ADDRESS });
    }
    expect(lookups).toEqual(expect.arrayContaining(['meta-later.hooks-test.example', 'gone.hooks-test.example']));
    expect(connections).toBe(0);
  });
});
