// How the relay sends (SPEC §10): in order per endpoint, at least once, concurrently across endpoints, with a 10 s
// limit, no redirects, the first 1 KB of an answer kept as text; a fan-out repeated after a crash duplicates
// nothing; two relays on one database never send to one endpoint at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { WebhookRelay } from '../../src/jobs/relay.js';
import type { TestPublisher } from '../factories.js';
import { startTestApp, type TestApp, usingPostgres } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { newPublisher, quietLog, registerHook, registerPage, relayFor, unique } from '../api/webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** Register `n` pages in one batch call: n events, committed one by one. */
async function registerPages(pub: TestPublisher, n: number, prefix = unique()) {
  const items = Array.from({ length: n }, (_, i) => ({ url: `https://${pub.domain}/${prefix}/${String(i).padStart(4, '0')}`, title: `Page ${i}`, topic: 'health' }));
  const res = await pub.api.post('/api/v1/pages', items);
  expect(res.status, res.text).toBe(200);
  expect(res.body.data.summary.created).toBe(n);
}

async function hookAt(pub: TestPublisher, path: string) {
  const hook = await registerHook(pub.owner, { url: rx.url(path), events: ['page.registered'] });
  rx.trust(path, hook.secret);
  return hook;
}

describe('passes woken by writes', () => {
  it('look for due deliveries only when one may be due, and still send a woken write at once', async () => {
    // A poll far longer than the test: every delivery here is sent by a pass a wake-up started.
    const relay = relayFor(t, { pollMs: 60_000 });
    const pub = await newPublisher(t);
    await hookAt(pub, '/woken');
    relay.start();
    try {
      for (let i = 0; i < 3; i++) {
        await registerPages(pub, 1);
        relay.wake();
        const deadline = Date.now() + 5_000;
        while (rx.at('/woken').length < i + 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        expect(rx.at('/woken')).toHaveLength(i + 1);
      }
      // A write no endpoint wants wakes a pass that fans out and finds nothing due to look for; the next wanted
      // write is sent all the same.
      const other = await newPublisher(t);
      await registerPages(other, 1);
      relay.wake();
      await new Promise((r) => setTimeout(r, 50));
      await registerPages(pub, 1);
      relay.wake();
      const deadline = Date.now() + 5_000;
      while (rx.at('/woken').length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(rx.at('/woken')).toHaveLength(4);
    } finally {
      await relay.stop();
    }
  });
});

describe('order and at-least-once', () => {
  it('100 events for one endpoint arrive in order, through failures and retries', async () => {
    const pub = await newPublisher(t);
    await hookAt(pub, '/ordered');
    // Every seventh answer is a failure: the delivery is retried and everything behind it waits.
    let n = 0;
    rx.answer('/ordered', () => (++n % 7 === 0 ? { status: 500 } : { status: 200 }));
    const relay = relayFor(t, { pollMs: 20 });
    relay.start();
    try {
      await registerPages(pub, 100);
      const okIds = () => rx.at('/ordered').filter((_r, i) => (i + 1) % 7 !== 0);
      // Retries are due 30 s later on the test clock: move it along while waiting.
      const deadline = Date.now() + 20_000;
      while (okIds().length < 100 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        t.clock.advance(31_000);
      }
    } finally {
      await relay.stop();
    }
    const all = rx.at('/ordered');
    expect(all.every((r) => r.verified)).toBe(true);
    const ok = all.filter((_r, i) => (i + 1) % 7 !== 0).map((r) => r.json.id as number);
    expect(ok).toHaveLength(100);
    expect(ok).toEqual([...ok].sort((a, b) => a - b));
    // Strict order: whenever an event is sent, every earlier event has already gone through.
    const done = new Set<number>();
    all.forEach((r, i) => {
      const id = r.json.id as number;
      expect([...done].every((d) => d < id) || done.has(id)).toBe(true);
      for (const earlier of ok.filter((x) => x < id)) expect(done.has(earlier), `event ${earlier} before ${id}`).toBe(true);
      if ((i + 1) % 7 !== 0) done.add(id);
    });
    expect(rx.maxInFlight.get('/ordered')).toBe(1);
  });

  it('a slow receiver does not delay other endpoints', async () => {
    const pub = await newPublisher(t);
    const slow = await hookAt(pub, '/slow');
    await hookAt(pub, '/fast');
    rx.answer('/slow', { status: 200, delayMs: 3000 });
    const relay = relayFor(t, { pollMs: 20 });
    relay.start();
    try {
      const started = performance.timeOrigin + performance.now();
      await registerPages(pub, 3);
      await rx.waitFor(() => rx.at('/fast').length === 3 && rx.at('/slow').length >= 1, 5000, 'three fast deliveries and a slow one');
      const fastDone = Math.max(...rx.at('/fast').map((r) => r.at)) - started;
      expect(fastDone).toBeLessThan(1000);
      // The slow one has had its first request only: the second waits the 3 s of the first answer, in order.
      const slowFirst = rx.at('/slow')[0]!.at;
      expect(rx.at('/slow')).toHaveLength(1);
      expect(performance.timeOrigin + performance.now() - slowFirst).toBeLessThan(3000);
    } finally {
      await relay.stop();
      // Its other deliveries would slow down the next tests' passes.
      await pub.owner.client.delete(`/api/v1/account/webhooks/${slow.id}`);
    }
  });
});

describe('one attempt', () => {
  let pub: TestPublisher;
  let hookId: number;
  const attempts = () =>
    t.runtime.deps.db.selectFrom('webhook_attempts').selectAll().where('webhook_id', '=', hookId).orderBy('id').execute();

  beforeAll(async () => {
    pub = await newPublisher(t);
    hookId = (await hookAt(pub, '/one')).id;
  });

  it('follows no redirect: a 3xx is a failure and the target is never called', async () => {
    rx.answer('/one', { status: 302, headers: { location: rx.url('/elsewhere') } });
    await registerPage(pub);
    const relay = relayFor(t);
    await relay.tick();
    const [a] = (await attempts()).slice(-1);
    expect(a).toMatchObject({ status_code: 302, success: 0, error: 'answered 302' });
    expect(rx.at('/elsewhere')).toHaveLength(0);
  });

  it('keeps the first 1 KB of an answer, as text', async () => {
    const answer = `<html><script>alert("x")</script>${'é'.repeat(3000)}</html>`;
    rx.answer('/one', { status: 200, body: answer });
    t.clock.advance(31_000);
    await relayFor(t).tick();
    const [a] = (await attempts()).slice(-1);
    expect(a!.success).toBe(1);
    expect(Buffer.byteLength(a!.response_body)).toBeLessThanOrEqual(1024 + 3);
    expect(answer.startsWith(a!.response_body.replace(/\uFFFD$/, ''))).toBe(true);
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${hookId}/deliveries?per_page=1`);
    expect(log.headers.get('content-type')).toContain('application/json');
    expect(log.body.data[0].response_body).toBe(a!.response_body);
  });

  it('a connection that drops is a failed attempt, retried', async () => {
    rx.answer('/one', { hangUp: true });
    await registerPage(pub);
    await relayFor(t).tick();
    const [a] = (await attempts()).slice(-1);
    expect(a).toMatchObject({ status_code: null, success: 0 });
    expect(a!.error).toBeTruthy();
    rx.answer('/one', { status: 200 });
    t.clock.advance(31_000);
    expect((await relayFor(t).tick()).attempts).toBe(1);
  });

  it('gives up on an answer after 10 s', async () => {
    rx.answer('/one', { status: 200, delayMs: 12_000 });
    await registerPage(pub);
    const began = Date.now();
    await relayFor(t).tick();
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(9_900);
    expect(took).toBeLessThan(11_500);
    const [a] = (await attempts()).slice(-1);
    expect(a).toMatchObject({ status_code: null, success: 0, error: 'no answer within 10000 ms' });
    expect(a!.duration_ms).toBeGreaterThanOrEqual(9_900);
    rx.answer('/one', { status: 200 });
  }, 30_000);
});

describe('fan-out and claims', () => {
  it('a fan-out repeated over the same events (a crash before its commit) duplicates nothing', async () => {
    const pub = await newPublisher(t);
    const hook = await hookAt(pub, '/twice');
    await registerPages(pub, 5);
    const relay = relayFor(t);
    expect(await relay.fanOut()).toBe(5);
    // As if the process had died after making the deliveries but before marking the events relayed.
    const ids = (await t.runtime.deps.db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', hook.id).execute()).map((r) => r.event_id);
    await t.runtime.deps.db.updateTable('events').set({ relayed_at: null }).where('id', 'in', ids).execute();
    expect(await relay.fanOut()).toBe(5);
    const rows = await t.runtime.deps.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute();
    expect(rows).toHaveLength(5);
    await relay.tick();
    expect(rx.at('/twice')).toHaveLength(5);
  });

  it('events written before an endpoint existed are not sent to it', async () => {
    const pub = await newPublisher(t);
    await registerPages(pub, 3);
    await hookAt(pub, '/late');
    await registerPage(pub);
    await relayFor(t).tick();
    expect(rx.at('/late')).toHaveLength(1);
  });

  it('two relays on one database: each endpoint is sent to by one at a time, every event once, in order', async () => {
    const pubs = await Promise.all([1, 2, 3, 4].map(() => newPublisher(t)));
    for (const [i, p] of pubs.entries()) await hookAt(p, `/shared${i}`);
    // On PostgreSQL the second relay has its own connections, as a second process would.
    const second = usingPostgres()
      ? openDatabase({ databaseUrl: process.env.DATABASE_URL!, pgSchema: (await currentSchema()) ?? undefined, poolSize: 5 })
      : null;
    const deps2 = second ? { ...t.runtime.deps, db: second.db } : t.runtime.deps;
    const a = new WebhookRelay(t.runtime.deps, { instanceId: 'relay-a', log: quietLog, pollMs: 5, random: () => 0.5 });
    const b = new WebhookRelay(deps2, { instanceId: 'relay-b', log: quietLog, pollMs: 5, random: () => 0.5 });
    for (let i = 0; i < 4; i++) rx.answer(`/shared${i}`, { status: 200, delayMs: 2 });
    a.start();
    b.start();
    try {
      await Promise.all(pubs.map((p) => registerPages(p, 25)));
      await rx.waitFor(() => [0, 1, 2, 3].every((i) => rx.at(`/shared${i}`).length >= 25), 20_000, '100 deliveries');
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await second?.close();
    }
    for (let i = 0; i < 4; i++) {
      const got = rx.at(`/shared${i}`).map((r) => r.json.id as number);
      expect(got).toHaveLength(25);
      expect(new Set(got).size).toBe(25);
      expect(got).toEqual([...got].sort((x, y) => x - y));
      expect(rx.maxInFlight.get(`/shared${i}`)).toBe(1);
    }
  });
});

async function currentSchema(): Promise<string | null> {
  const { sql } = await import('kysely');
  const r = await sql<{ s: string }>`select current_schema() as s`.execute(t.runtime.deps.db);
  return r.rows[0]?.s ?? null;
}
