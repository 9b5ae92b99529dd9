// The connect-time address check (SPEC §10, no DNS rebinding): a name that passed registration is resolved again
// at every attempt, and an answer with any non-public address stops the attempt before a connection is made.
// DNS is played by a resolver the test controls; the private-address exemption is off, as in production.
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/net/address-policy.js';
import { fetchSmall, guardedLookupWith, keepAliveAgents, NO_PUBLIC_ADDRESS, type Resolve } from '../../src/net/safe-fetch.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { newPublisher, registerHook, registerPage, relayFor } from '../api/webhooks.fixtures.js';

/** A resolver that gives the next planned answer on each call, and remembers what it was asked. */
function playedDns(...answers: LookupAddress[][]): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = ((hostname, _options, callback) => {
    asked.push(hostname);
    const answer = answers[Math.min(asked.length - 1, answers.length - 1)]!;
    setImmediate(() => callback(null, answer));
  }) as Resolve & { asked: string[] };
  resolve.asked = asked;
  return resolve;
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

function lookup(resolve: Resolve, host: string): Promise<{ address?: string; code?: string }> {
  return new Promise((done) =>
    guardedLookupWith(resolve)(host, {}, (err, address) => done(err ? { code: (err as NodeJS.ErrnoException).code ?? 'error' } : { address: address as string })),
  );
}

describe('isPrivateAddress', () => {
  it('lets public addresses through, of both families', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses IPv4-mapped addresses in any spelling, even of a public address', () => {
    for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8', '0:0:0:0:0:ffff:a00:1']) expect(isPrivateAddress(a), a).toBe(true);
  });
});

describe('guardedLookup over a DNS answer that changes', () => {
  it('checks every answer: public first, then rebound to loopback', async () => {
    const dns = playedDns([v4('93.184.216.34')], [v4('127.0.0.1')]);
    expect(await lookup(dns, 'rebind.example')).toEqual({ address: '93.184.216.34' });
    expect(await lookup(dns, 'rebind.example')).toEqual({ code: 'EPRIVATE' });
    expect(dns.asked).toEqual(['rebind.example', 'rebind.example']);
  });

  it.each([
    ['one private address among public ones', [v4('93.184.216.34'), v4('10.0.0.5')]],
    ['cloud metadata', [v4('169.254.169.254')]],
    ['CGNAT', [v4('100.100.1.1')]],
    ['IPv6 loopback', [v6('::1')]],
    ['IPv4-mapped loopback', [v6('::ffff:127.0.0.1')]],
    ['IPv6 unique local', [v6('fd12::1')]],
    ['an empty answer', []],
  ])('refuses %s', async (_name, answer) => {
    expect(await lookup(playedDns(answer), 'x.example')).toEqual({ code: 'EPRIVATE' });
  });
});

describe('webhook attempts check the address at connect time', () => {
  let t: TestApp;
  let rx: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp(); // WEBHOOK_ALLOW_PRIVATE off
    rx = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await rx?.close();
    await t?.close();
  });

  it('fetchSmall never connects to a name that resolves to the loopback', async () => {
    const dns = playedDns([v4('127.0.0.1')]);
    const r = await fetchSmall(`https://rebind.test:${rx.port}/direct`, { allowPrivate: false, timeoutMs: 2000, maxBytes: 1024, method: 'POST', body: '{}', resolve: dns });
    expect(r).toMatchObject({ status: null, error: NO_PUBLIC_ADDRESS });
    expect(dns.asked).toEqual(['rebind.test']);
    expect(rx.at('/direct')).toHaveLength(0);
  });

  it('with kept-alive connections (the relay\'s agents), every new connection is still checked', async () => {
    const agents = keepAliveAgents();
    try {
      const dns = playedDns([v4('127.0.0.1')]);
      const opts = { allowPrivate: false, timeoutMs: 2000, maxBytes: 1024, method: 'POST' as const, body: '{}', resolve: dns, agents };
      expect(await fetchSmall(`https://rebind.test:${rx.port}/kept`, opts)).toMatchObject({ status: null, error: NO_PUBLIC_ADDRESS });
      expect(await fetchSmall(`https://rebind.test:${rx.port}/kept`, opts)).toMatchObject({ status: null, error: NO_PUBLIC_ADDRESS });
      expect(dns.asked).toEqual(['rebind.test', 'rebind.test']);
      expect(rx.at('/kept')).toHaveLength(0);
    } finally {
      agents.destroy();
    }
  });

  it('kept-alive agents carry several requests on one connection', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agents = keepAliveAgents();
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
      for (let i = 0; i < 3; i++) expect(await fetchSmall(url, { allowPrivate: true, timeoutMs: 5000, maxBytes: 1024, agents })).toMatchObject({ status: 200, body: 'ok' });
      expect(connections).toBe(1);
    } finally {
      agents.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('a name accepted at registration that now resolves privately: the attempt fails and nothing is sent', async () => {
    const pub = await newPublisher(t);
    const hook = await registerHook(pub.owner, { url: `https://rebind.test:${rx.port}/hook`, events: ['page.registered'] });
    const dns = playedDns([v4('127.0.0.1')], [v4('10.1.2.3')]);
    const relay = relayFor(t, { resolve: dns });
    await registerPage(pub);
    expect((await relay.tick()).attempts).toBe(1);
    t.clock.advance(31_000);
    expect((await relay.tick()).attempts).toBe(1);
    expect(dns.asked).toEqual(['rebind.test', 'rebind.test']);
    expect(rx.at('/hook')).toHaveLength(0);
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${hook.id}/deliveries`);
    expect(log.body.data).toHaveLength(2);
    for (const a of log.body.data) expect(a).toMatchObject({ status_code: null, success: false, error: NO_PUBLIC_ADDRESS });
    expect((await pub.owner.client.get(`/api/v1/account/webhooks/${hook.id}`)).body.data).toMatchObject({ consecutive_failures: 2, pending: 1 });
  });

  it('a redelivery by hand is checked the same way', async () => {
    const pub = await newPublisher(t);
    const hook = await registerHook(pub.owner, { url: `https://127.0.0.1.nip.test:${rx.port}/manual`, events: ['page.registered'] });
    // Delivered while the name still pointed somewhere harmless (played here as an immediate failure), then held.
    await t.runtime.deps.db.updateTable('webhooks').set({ enabled: 0 }).where('id', '=', hook.id).execute();
    await registerPage(pub);
    await relayFor(t).tick();
    const [d] = await t.runtime.deps.db.selectFrom('webhook_deliveries').select(['id', 'status']).where('webhook_id', '=', hook.id).execute();
    expect(d!.status).toBe('held');
    // The redelivery resolves the name with the system resolver: it does not exist, so the attempt fails cleanly.
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${hook.id}/deliveries/${d!.id}/redeliver`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.attempt).toMatchObject({ success: false, status_code: null });
    expect(rx.at('/manual')).toHaveLength(0);
  });
});
