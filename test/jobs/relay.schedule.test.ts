// The retry schedule and the disabling rule (SPEC §10), on the test clock: attempts after 30 s, 2 min,
// 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then every 8 h until 24 h after the first; a new event waits behind the
// endpoint's backoff; 20 failures in a row over at least 24 hours disable the endpoint and hold its deliveries
// (a burst of events while the receiver is briefly down does not); re-enabling resumes them, in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRelay } from '../../src/jobs/relay.js';
import { MailSender, smtpTransport } from '../../src/jobs/mail.js';
import { TestSmtp } from '../smtp-server.js';
import type { TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { getHook, newPublisher, registerHook, registerPage, relayFor } from '../api/webhooks.fixtures.js';

let t: TestApp;
let rx: WebhookReceiver;
let relay: WebhookRelay;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  rx = await WebhookReceiver.start();
  relay = relayFor(t);
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const S = 1000;
const M = 60 * S;
const H = 60 * M;

async function deliveriesOf(webhookId: number) {
  return t.runtime.deps.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('event_id').execute();
}

describe('the 24-hour schedule', () => {
  let pub: TestPublisher;
  let hookId: number;
  const start = () => Date.parse('2026-11-21T10:00:00.000Z');

  beforeAll(async () => {
    pub = await newPublisher(t);
    const hook = await registerHook(pub.owner, { url: rx.url('/down'), events: ['page.registered'] });
    hookId = hook.id;
    rx.trust('/down', hook.secret);
    rx.answer('/down', { status: 500, body: 'nope' });
  });

  it('retries after 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h, and gives up 24 h after the first attempt', async () => {
    const t0 = t.clock.now().getTime();
    await registerPage(pub);
    expect((await relay.tick()).attempts).toBe(1);
    // Offsets of every attempt from the first: each delay after the previous attempt.
    const delays = [30 * S, 2 * M, 10 * M, 30 * M, 1 * H, 2 * H, 4 * H, 8 * H, 8 * H];
    let at = t0;
    for (const delay of delays) {
      // One second early: nothing is due.
      t.clock.advance(at + delay - 1000 - t.clock.now().getTime());
      expect((await relay.tick()).attempts, `nothing before ${delay / 1000} s`).toBe(0);
      t.clock.advance(1000);
      expect((await relay.tick()).attempts, `an attempt ${delay / 1000} s later`).toBe(1);
      at += delay;
    }
    expect(at - t0).toBe(23 * H + 42 * M + 30 * S);
    const [d] = await deliveriesOf(hookId);
    // The next would come 8 h later, past the 24 hours: given up.
    expect(d).toMatchObject({ status: 'failed', attempts: 10 });
    t.clock.advance(48 * H);
    expect((await relay.tick()).attempts).toBe(0);
    const hits = rx.at('/down');
    expect(hits).toHaveLength(10);
    // The same event every time, the same bytes, each signed at its own time.
    expect(new Set(hits.map((h) => h.delivery)).size).toBe(1);
    expect(new Set(hits.map((h) => h.raw.toString())).size).toBe(1);
    expect(hits.every((h) => h.verified)).toBe(true);
    expect(hits.map((h) => (h.timestamp! * 1000 - t0) / 1000)).toEqual([0, 30, 150, 750, 2550, 6150, 13350, 27750, 56550, 85350]);
    const h = await getHook(pub.owner, hookId);
    expect(h).toMatchObject({ status: 'enabled', consecutive_failures: 10, pending: 0, last_status_code: 500 });
    expect(start()).toBeLessThanOrEqual(t0);
  });

  it('with jitter, each wait moves by at most 10%', async () => {
    const jittery = relayFor(t, { random: () => 0.999 });
    const pub2 = await newPublisher(t);
    const hook = await registerHook(pub2.owner, { url: rx.url('/jitter'), events: ['page.registered'] });
    rx.answer('/jitter', { status: 500 });
    await registerPage(pub2);
    await jittery.tick();
    t.clock.advance(30 * S);
    expect((await jittery.tick()).attempts, 'not yet at 30 s').toBe(0);
    t.clock.advance(3 * S);
    expect((await jittery.tick()).attempts, 'by 33 s').toBe(1);
    const [d] = await deliveriesOf(hook.id);
    expect(Date.parse(d!.next_attempt_at) - t.clock.now().getTime()).toBe(Math.round(120 * S * (1 + 0.1 * (2 * 0.999 - 1))));
    expect((await pub2.owner.client.delete(`/api/v1/account/webhooks/${hook.id}`)).status).toBe(200);
  });
});

describe('failing over time', () => {
  let pub: TestPublisher;
  let hookId: number;

  beforeAll(async () => {
    pub = await newPublisher(t);
    const hook = await registerHook(pub.owner, { url: rx.url('/flaky'), events: ['page.registered'] });
    hookId = hook.id;
    rx.trust('/flaky', hook.secret);
    rx.answer('/flaky', { status: 502 });
  });

  const endpoint = () => t.runtime.deps.db.selectFrom('webhooks').select(['enabled', 'next_due_at', 'failing_since', 'consecutive_failures']).where('id', '=', hookId).executeTakeFirstOrThrow();

  /**
   * The receiver stays down (500); an event every hour; the clock goes from one due retry to the next until the
   * endpoint is disabled. Checks on the way that it is never disabled before 24 hours of failing. Returns how many
   * events were made.
   */
  async function downUntilDisabled(prefix: string): Promise<number> {
    rx.answer('/flaky', { status: 500 });
    const began = t.clock.now().getTime();
    let seen = 0;
    for (let step = 0; step < 200; step++) {
      const e = await endpoint();
      if (e.enabled === 0) return seen;
      const now = t.clock.now().getTime();
      const due = e.next_due_at ? Date.parse(e.next_due_at) : Infinity;
      const nextEvent = began + (seen + 1) * H;
      t.clock.advance(Math.max(0, Math.min(due, nextEvent) - now));
      if (t.clock.now().getTime() >= nextEvent) {
        seen++;
        await registerPage(pub, `${prefix}${seen}`);
      }
      await relay.tick();
      const after = await endpoint();
      if (after.enabled === 0) expect(t.clock.now().getTime() - Date.parse(after.failing_since!)).toBeGreaterThanOrEqual(24 * H);
    }
    throw new Error('not disabled after 200 steps');
  }

  it('a new event retries the waiting delivery first, then goes itself, in order (SPEC §10)', async () => {
    await registerPage(pub, 'one');
    expect((await relay.tick()).attempts).toBe(1);
    await registerPage(pub, 'two');
    // The head is retried at once and fails again; the new delivery waits behind it.
    expect((await relay.tick()).attempts).toBe(1);
    const [first, second] = await deliveriesOf(hookId);
    expect(first).toMatchObject({ status: 'pending', attempts: 2 });
    expect(second).toMatchObject({ status: 'pending', attempts: 0 });
    const hits = rx.at('/flaky');
    expect(hits.map((h) => h.delivery)).toEqual([hits[0]!.delivery, hits[0]!.delivery]);
  });

  it('many events while the receiver is briefly down do not disable it (take and release in a loop)', async () => {
    const before = rx.at('/flaky').length;
    // 60 events in 6 seconds, each fanned out at once, each retrying the waiting head: 60 failed attempts more.
    for (let i = 0; i < 60; i++) {
      await registerPage(pub, `burst${i}`);
      await relay.tick();
      t.clock.advance(100);
    }
    expect(rx.at('/flaky').length - before).toBe(60);
    const during = await getHook(pub.owner, hookId);
    expect(during).toMatchObject({ status: 'enabled', pending: 62 });
    expect(during.consecutive_failures).toBeGreaterThan(20);
    // The receiver is back: the next event sends the whole queue, in order.
    rx.answer('/flaky', { status: 200 });
    await registerPage(pub, 'back');
    expect((await relay.tick()).attempts).toBe(63);
    const ok = rx.at('/flaky').slice(before + 60);
    expect(ok.map((r) => r.json.data.page.url.split('/').pop())).toEqual(['one', 'two', ...Array.from({ length: 60 }, (_, i) => `burst${i}`), 'back']);
    expect(await getHook(pub.owner, hookId)).toMatchObject({ status: 'enabled', consecutive_failures: 0, pending: 0 });
    expect((await endpoint()).failing_since).toBeNull();
  });

  it('disables the endpoint after failing for 24 hours and 20 attempts in a row; its deliveries are held, not dropped', async () => {
    rx.answer('/flaky', { status: 500 });
    const began = t.clock.now().getTime();
    const seen = await downUntilDisabled('hour');
    const e = await endpoint();
    expect(e.enabled).toBe(0);
    const h = await getHook(pub.owner, hookId);
    expect(h).toMatchObject({ status: 'disabled', disabled_reason: 'failures' });
    expect(h.consecutive_failures).toBeGreaterThanOrEqual(20);
    expect(h.disabled_at).toBe(t.clock.now().toISOString());
    // The publication's owners are told by mail, through a real SMTP server.
    const smtp = await TestSmtp.start();
    const mail = new MailSender(t.runtime.deps, { transport: smtpTransport(smtp.url), log: { error: () => {}, info: () => {} } });
    try {
      t.clock.advance(4 * 60_000);
      await mail.tick();
      const told = smtp.to(pub.owner.email).filter((m) => m.subject === 'A webhook was disabled');
      expect(told).toHaveLength(1);
      expect(told[0]!.text).toContain(`The webhook ${rx.url('/flaky')} of The ${pub.slug} failed for 24 hours and was disabled`);
    } finally {
      await mail.stop();
      await smtp.close();
    }
    // An event an hour, each retrying the waiting delivery: the count passes 20 long before the day is out, so the
    // span decides. The first failure came with the first event, an hour after `began`; the endpoint is disabled at
    // the first failed attempt 24 hours after it (the next hourly event's).
    const failedFor = t.clock.now().getTime() - began;
    expect(failedFor).toBeGreaterThanOrEqual(1 * H + 24 * H);
    expect(failedFor).toBeLessThanOrEqual(2 * H + 24 * H);
    const rows = await deliveriesOf(hookId);
    const failed = rows.filter((d) => d.status === 'failed').length;
    expect(rows.filter((d) => d.status === 'held')).toHaveLength(seen - failed);
    expect(h.pending).toBe(seen - failed);

    // Disabled: nothing is sent, whatever happens and however long we wait; new events are held too.
    const sent = rx.at('/flaky').length;
    await registerPage(pub, 'while-disabled');
    t.clock.advance(30 * H);
    expect((await relay.tick()).attempts).toBe(0);
    expect(rx.at('/flaky')).toHaveLength(sent);
    expect((await getHook(pub.owner, hookId)).pending).toBe(seen - failed + 1);
  });

  it('re-enabling resets the count and resumes every held delivery, in order', async () => {
    rx.answer('/flaky', { status: 200 });
    const held = (await getHook(pub.owner, hookId)).pending as number;
    const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${hookId}`, { enabled: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_at: null, disabled_reason: null, pending: held });
    expect((await endpoint()).failing_since).toBeNull();
    const before = rx.at('/flaky').length;
    expect((await relay.tick()).attempts).toBe(held);
    const ok = rx.at('/flaky').slice(before);
    const ids = ok.map((r) => r.json.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(held);
    expect(ok.at(-1)!.json.data.page.url).toMatch(/while-disabled$/);
    expect(await getHook(pub.owner, hookId)).toMatchObject({ status: 'enabled', pending: 0, consecutive_failures: 0, last_status_code: 200 });
  });

  it('the owner can pause and resume; paused deliveries wait', async () => {
    const pause = await pub.owner.client.patch(`/api/v1/account/webhooks/${hookId}`, { enabled: false });
    expect(pause.body.data).toMatchObject({ status: 'disabled', disabled_reason: 'owner' });
    await registerPage(pub, 'paused');
    expect((await relay.tick()).attempts).toBe(0);
    await pub.owner.client.patch(`/api/v1/account/webhooks/${hookId}`, { enabled: true });
    expect((await relay.tick()).attempts).toBe(1);
    expect(rx.at('/flaky').at(-1)!.json.data.page.url).toMatch(/paused$/);
  });

  it('a held delivery can be redelivered by hand while disabled, without counting towards the schedule', async () => {
    await downUntilDisabled('again');
    const failures = (await getHook(pub.owner, hookId)).consecutive_failures as number;
    expect((await getHook(pub.owner, hookId)).status).toBe('disabled');
    const heldRows = (await deliveriesOf(hookId)).filter((d) => d.status === 'held');
    const held = heldRows[0];
    rx.answer('/flaky', { status: 200 });
    const res = await pub.owner.client.post(`/api/v1/account/webhooks/${hookId}/deliveries/${held!.id}/redeliver`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ queued: false, delivery: { status: 'succeeded' }, attempt: { manual: true, status_code: 200 } });
    const h = await getHook(pub.owner, hookId);
    expect(h).toMatchObject({ status: 'disabled', consecutive_failures: failures, pending: heldRows.length - 1, last_status_code: 200 });
  });
});
