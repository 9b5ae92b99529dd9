// The change feed's live streams under load: a caller holds a few streams at once (per address without a
// credential, per account with one, on both surfaces together), one more is 429 in the surface's envelope with
// Retry-After, others are not affected; a network (IPv4 /24, IPv6 /64) has a cap of its own (429), and the process
// too (503), its last tenth kept for networks holding none; each committed change is read from the log once per
// process and fanned out to every open stream.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedStreamsOf } from '../../src/surfaces/changes.streams.js';
import { Client, randomIp } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

interface OpenStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The answer's body as JSON, for a refusal. */
  body: any;
  /** Event ids and names received so far. */
  events: { id: number; event: string }[];
  waitFor(pred: (events: { id: number; event: string }[]) => boolean, ms?: number): Promise<void>;
  close(): void;
}

/** A live stream over a plain socket of its own, from `ip` (the harness trusts X-Forwarded-For). */
function openStream(t: TestApp, path: string, ip: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.baseUrl}${path}`, { agent: false, headers: { accept: 'text/event-stream', 'x-forwarded-for': ip, ...headers } }, (res) => {
      const events: { id: number; event: string }[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) return void (text += chunk);
        buffer += chunk;
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const id = /^id: (\d+)$/m.exec(block)?.[1];
          if (id) events.push({ id: Number(id), event: /^event: (.+)$/m.exec(block)![1]! });
        }
        for (const w of waiters) w();
      });
      const stream: OpenStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        events,
        waitFor: (pred, ms = 10_000) =>
          new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`timed out with ${events.length} events`)), ms);
            const check = () => {
              if (!pred(events)) return;
              clearTimeout(timer);
              waiters.delete(check);
              ok();
            };
            waiters.add(check);
            check();
          }),
        close: () => req.destroy(),
      };
      if (res.statusCode === 200) return resolve(stream);
      res.on('end', () => {
        stream.body = JSON.parse(text);
        resolve(stream);
      });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
  });
}

const until = async (cond: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('caps on live streams', () => {
  let t: TestApp;
  let pub: TestPublisher;
  const opened: OpenStream[] = [];
  const open = async (path: string, ip: string, headers?: Record<string, string>) => {
    const s = await openStream(t, path, ip, headers);
    opened.push(s);
    return s;
  };
  beforeAll(async () => {
    t = await startTestApp({ feedStreamsPerClient: 3, feedStreamsMax: 10 });
    pub = await publisher(t);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await t?.close();
  });

  it('refuses an address its fourth stream (on either surface) with 429 in the envelope; other addresses go on', async () => {
    const ip = randomIp();
    expect((await open('/api/v1/changes', ip)).status).toBe(200);
    expect((await open('/v1/changes', ip)).status).toBe(200);
    const third = await open('/api/v1/changes?after=1', ip);
    expect(third.status).toBe(200);

    const api = await open('/api/v1/changes', ip);
    expect(api.status).toBe(429);
    expect(api.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(api.headers['x-request-id']).toBeTruthy();
    expect(api.body).toMatchObject({ success: false, error: { code: 'rate_limited', message: expect.stringMatching(/at most 3 live streams/i) } });
    const v1 = await open('/v1/changes', ip);
    expect(v1.status).toBe(429);
    expect(v1.body.success).toBeUndefined();
    expect(v1.body).toMatchObject({ error: { code: 'rate_limited' } });
    // The list is not a stream, and is not capped.
    expect((await new Client(t.baseUrl).from(ip).get('/api/v1/changes')).status).toBe(200);

    const other = await open('/api/v1/changes', randomIp());
    expect(other.status).toBe(200);
    await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/caps/one`, title: 'Caps' });
    await other.waitFor((ev) => ev.some((e) => e.event === 'page.registered'));

    // A stream that ends gives its place back.
    third.close();
    await until(() => feedStreamsOf(t.runtime.deps)!.open === 3);
    expect((await open('/v1/changes', ip)).status).toBe(200);
  });

  it('counts a signed-in caller per account, whatever key, session or address it uses', async () => {
    const user = await signup(t);
    const keyA = await contributorKey(user);
    const keyB = await contributorKey(user);
    expect((await open('/api/v1/changes', randomIp(), { authorization: `Bearer ${keyA}` })).status).toBe(200);
    expect((await open('/v1/changes', randomIp(), { authorization: `Bearer ${keyB}` })).status).toBe(200);
    expect((await open('/api/v1/changes', randomIp(), { authorization: `Bearer ${user.token}` })).status).toBe(200);
    const fourth = await open('/api/v1/changes', randomIp(), { 'x-api-key': keyA });
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ success: false, error: { code: 'rate_limited' } });
    // Another account is not affected; a bad credential is still a 401, not a stream.
    const other = await signup(t);
    expect((await open('/api/v1/changes', randomIp(), { authorization: `Bearer ${other.token}` })).status).toBe(200);
    const bad = await open('/api/v1/changes', randomIp(), { authorization: 'Bearer ck_live_nope' });
    expect(bad.status).toBe(401);
  });

  it('shares one budget between an address and the account signed in from it', async () => {
    for (const s of opened) s.close();
    await until(() => feedStreamsOf(t.runtime.deps)!.open === 0);
    const ip = randomIp();
    const user = await signup(t);
    const mine = [await open('/api/v1/changes', ip), await open('/v1/changes', ip), await open('/api/v1/changes', ip)];
    expect(mine.map((s) => s.status)).toEqual([200, 200, 200]);
    // Signing in from an address at its cap opens nothing more there.
    const signedIn = await open('/api/v1/changes', ip, { authorization: `Bearer ${user.token}` });
    expect(signedIn.status).toBe(429);
    // The account's own budget was not spent by that refusal: from another address it opens streams.
    expect((await open('/api/v1/changes', randomIp(), { authorization: `Bearer ${user.token}` })).status).toBe(200);
  });

  it('refuses any stream past the process’s cap with 503 and Retry-After, in the envelope', async () => {
    const registry = feedStreamsOf(t.runtime.deps)!;
    while (registry.open < 10) expect((await open('/api/v1/changes', randomIp())).status).toBe(200);
    const over = await open('/v1/changes', randomIp());
    expect(over.status).toBe(503);
    expect(over.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(over.body).toMatchObject({ error: { code: 'service_unavailable' } });
  });
});

describe('caps by network', () => {
  let t: TestApp;
  const opened: OpenStream[] = [];
  const open = async (ip: string) => {
    const s = await openStream(t, '/api/v1/changes', ip);
    opened.push(s);
    return s;
  };
  // Three streams per address, six per network, twenty in all (the last two for networks holding none).
  beforeAll(async () => {
    t = await startTestApp({ feedStreamsPerClient: 3, feedStreamsPerNetwork: 6, feedStreamsMax: 20 });
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await t?.close();
  });
  const closeAll = async () => {
    for (const s of opened.splice(0)) s.close();
    await until(() => feedStreamsOf(t.runtime.deps)!.open === 0);
  };

  it('counts every address of an IPv4 /24 together: one more than its cap is 429, another /24 goes on', async () => {
    const statuses: number[] = [];
    // Three addresses of 10.77.1.0/24 at three streams each: nine asked, six given.
    for (const host of [1, 2, 3]) for (let i = 0; i < 3; i++) statuses.push((await open(`10.77.1.${host}`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    const refused = opened.find((s) => s.status === 429)!;
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'rate_limited', message: expect.stringMatching(/per network/) } });
    // An IPv4-mapped IPv6 address of the same /24 is the same network.
    expect((await open('::ffff:10.77.1.9')).status).toBe(429);
    expect((await open('10.77.2.1')).status).toBe(200);
    await closeAll();
  });

  it('counts every address of an IPv6 /64 together', async () => {
    const statuses: number[] = [];
    for (const host of ['a', 'b', 'c']) for (let i = 0; i < 3; i++) statuses.push((await open(`2001:db8:77:1::${host}`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect((await open('2001:db8:77:1:ffff::1')).status).toBe(429);
    expect((await open('2001:db8:77:2::a')).status).toBe(200);
    await closeAll();
  });

  it('keeps the last tenth of the process’s places for networks that hold no stream', async () => {
    // Three networks at their cap: 18 of 20 places.
    for (const net of [11, 12, 13]) for (const host of [1, 2]) for (let i = 0; i < 3; i++) expect((await open(`10.78.${net}.${host}`)).status).toBe(200);
    // A network already holding a stream gets no reserved place; a new one does.
    expect((await open('10.78.14.1')).status).toBe(200);
    const again = await open('10.78.14.2');
    expect(again.status).toBe(503);
    expect(again.body).toMatchObject({ success: false, error: { code: 'service_unavailable' } });
    expect((await open('10.78.15.1')).status).toBe(200);
    // Full: nobody else.
    expect((await open('10.78.16.1')).status).toBe(503);
    await closeAll();
  });
});

describe('fan-out', () => {
  let t: TestApp;
  let pub: TestPublisher;
  const streams: OpenStream[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    pub = await publisher(t);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  it('reads each change from the log once and sends it to 200 open streams', async () => {
    const N = 200;
    const registry = () => feedStreamsOf(t.runtime.deps)!;
    const start = (await new Client(t.baseUrl).get('/api/v1/changes?limit=500')).body.meta.next_cursor as number;
    for (let i = 0; i < N; i++) streams.push(await openStream(t, `${i % 2 ? '/v1' : '/api/v1'}/changes?after=${start}`, randomIp()));
    expect(streams.every((s) => s.status === 200)).toBe(true);
    await until(() => registry().caughtUp === N);

    const follower = t.runtime.deps.changes;
    const entriesBefore = follower.entriesRead;
    const catchUpsBefore = registry().catchUpReads;
    const began = performance.now();
    const url = `https://${pub.domain}/fan/one`;
    await pub.api.post('/api/v1/pages', { url, title: 'Fanned out' });
    await Promise.all(streams.map((s) => s.waitFor((ev) => ev.some((e) => e.event === 'page.registered'), 5_000)));
    const elapsed = performance.now() - began;

    const last = (await new Client(t.baseUrl).get(`/api/v1/changes?after=${start}`)).body.meta.next_cursor as number;
    // Every stream got the same entries, in order; the log was read once for them, by the follower.
    for (const s of streams) expect(s.events.map((e) => e.id)).toEqual(Array.from({ length: last - start }, (_, i) => start + 1 + i));
    expect(follower.entriesRead - entriesBefore).toBe(last - start);
    expect(registry().catchUpReads - catchUpsBefore).toBe(0);
    expect(elapsed).toBeLessThan(5_000);

    // The same counts, as an operator sees them.
    const metrics = await (await import('../../src/ops/metrics.js')).createMetrics(t.runtime.deps).registry.metrics();
    expect(metrics).toMatch(new RegExp(`^credence_feed_streams_open ${N}$`, 'm'));
    expect(metrics).toMatch(/^credence_change_log_entries_read_total \d+$/m);
  });
});

describe('a client that does not read', () => {
  let t: TestApp;
  let pub: TestPublisher;
  beforeAll(async () => {
    t = await startTestApp();
    pub = await publisher(t);
  });
  afterAll(async () => t?.close());

  it('is disconnected once its unsent bytes pass the bound, and holds up no other stream', async () => {
    const registry = () => feedStreamsOf(t.runtime.deps)!;
    const start = (await new Client(t.baseUrl).get('/api/v1/changes?limit=500')).body.meta.next_cursor as number;
    // A client that reads nothing after the head: its socket's buffers fill, then the server's.
    const stuck = await new Promise<http.IncomingMessage>((resolve) => {
      const req = http.get(`${t.baseUrl}/api/v1/changes?after=${start}`, { agent: false, headers: { accept: 'text/event-stream', 'x-forwarded-for': randomIp() } }, (res) => {
        res.pause();
        res.socket.pause();
        resolve(res);
      });
      req.on('error', () => {});
    });
    expect(stuck.statusCode).toBe(200);
    const reader = await openStream(t, `/api/v1/changes?after=${start}`, randomIp());
    await until(() => registry().caughtUp === 2);

    const began = performance.now();
    let batches = 0;
    const title = 'A long title '.repeat(38);
    while (registry().slowClosed === 0 && batches < 12) {
      const res = await pub.api.post('/api/v1/pages', Array.from({ length: 500 }, (_, i) => ({ url: `https://${pub.domain}/slow/${batches}/${i}`, title })));
      expect(res.status, res.text).toBe(200);
      batches++;
    }
    expect(registry().slowClosed).toBe(1);
    expect(performance.now() - began).toBeLessThan(30_000);
    // The reader got every entry, in order, while the other was stuck.
    const last = (await new Client(t.baseUrl).get(`/api/v1/changes?after=${start + batches * 500 - 1}`)).body.meta.next_cursor as number;
    await reader.waitFor((ev) => ev.at(-1)?.id === last);
    expect(reader.events.map((e) => e.id)).toEqual(Array.from({ length: last - start }, (_, i) => start + 1 + i));
    expect(registry().open).toBe(1);
    reader.close();
    stuck.destroy();
  }, 60_000);
});
