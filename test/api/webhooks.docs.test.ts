// The receiver printed in docs/webhooks.md, run as written: it accepts real deliveries from the relay and refuses
// a changed body, a wrong secret and a stale timestamp. A doc example that stopped working would fail here.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { newPublisher, registerHook, registerPage, relayFor } from './webhooks.fixtures.js';

let t: TestApp;
let child: ChildProcess;
let port: number;
let dir: string;
const secret = `whsec_${'ab'.repeat(32)}`;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  // The receiver checks timestamps against the real clock: run the test clock at the real time.
  t.clock.advance(Date.now() - t.clock.now().getTime());
  const doc = fs.readFileSync(path.resolve('docs/webhooks.md'), 'utf8');
  const code = /```ts receiver\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(code, 'docs/webhooks.md has a ```ts receiver block').toBeTruthy();
  expect(code!.trim().split('\n').length).toBeLessThanOrEqual(10);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-doc-receiver-'));
  fs.writeFileSync(path.join(dir, 'receiver.ts'), code!);
  ({ child, port } = await startReceiver(secret));
}, 30_000);

/** The doc's receiver in a process of its own, holding `key`; ready when it answers. */
async function startReceiver(key: string, port = 20000 + Math.floor(Math.random() * 20000)): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(path.resolve('node_modules/.bin/tsx'), [path.join(dir, 'receiver.ts')], {
    env: { ...process.env, WEBHOOK_SECRET: key, PORT: String(port) },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    if (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port };
}

afterAll(async () => {
  child?.kill('SIGTERM');
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = (body: string, timestamp: number, key = secret) =>
  fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    body,
    headers: {
      'x-service-timestamp': String(timestamp),
      'x-service-signature': `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`,
    },
  }).then((r) => r.status);

describe('the receiver of docs/webhooks.md', () => {
  it('acknowledges a real delivery (204)', async () => {
    const pub = await newPublisher(t);
    const hook = await registerHook(pub.owner, { url: `http://127.0.0.1:${port}/hook`, events: ['page.registered'] });
    // The doc's receiver knows one secret: give this endpoint that one, as if it had been rotated to it.
    await t.runtime.deps.db.updateTable('webhooks').set({ secret }).where('id', '=', hook.id).execute();
    await registerPage(pub);
    await relayFor(t).tick();
    const log = await pub.owner.client.get(`/api/v1/account/webhooks/${hook.id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({ success: true, status_code: 204 });
  });

  it('accepts real deliveries during and after a rotation, whether it switched to the new secret yet or not', async () => {
    const pub = await newPublisher(t);
    // Two endpoints whose secret before the rotation is the one the running receiver holds; the second one's
    // receiver is started after the rotation, with the new secret.
    const port2 = 20000 + Math.floor(Math.random() * 20000);
    const hook = await registerHook(pub.owner, { url: `http://127.0.0.1:${port}/hook`, events: ['page.registered'] });
    const switchedHook = await registerHook(pub.owner, { url: `http://127.0.0.1:${port2}/hook`, events: ['page.registered'] });
    await t.runtime.deps.db.updateTable('webhooks').set({ secret }).where('id', 'in', [hook.id, switchedHook.id]).execute();
    const rotate = async (id: number) => {
      const res = await pub.owner.client.patch(`/api/v1/account/webhooks/${id}`, { rotate_secret: true });
      expect(res.status, res.text).toBe(200);
      return res.body.data.secret as string;
    };
    await rotate(hook.id);
    const switched = await startReceiver(await rotate(switchedHook.id), port2);
    try {
      const lastAttempt = async (id: number) => (await pub.owner.client.get(`/api/v1/account/webhooks/${id}/deliveries`)).body.data[0];
      await registerPage(pub);
      await relayFor(t).tick();
      // During the overlap: the receiver still on the old secret and the one already on the new both accept.
      expect(await lastAttempt(hook.id)).toMatchObject({ success: true, status_code: 204 });
      expect(await lastAttempt(switchedHook.id)).toMatchObject({ success: true, status_code: 204 });

      // After it (the overlap's end moved to now: the receivers check timestamps against the real clock), the
      // new secret alone signs: the switched receiver accepts, the one that never switched refuses.
      await t.runtime.deps.db.updateTable('webhooks').set({ previous_secret_expires_at: t.clock.now().toISOString() }).where('id', 'in', [hook.id, switchedHook.id]).execute();
      await registerPage(pub);
      await relayFor(t).tick();
      expect(await lastAttempt(switchedHook.id)).toMatchObject({ success: true, status_code: 204 });
      expect(await lastAttempt(hook.id)).toMatchObject({ success: false, status_code: 400 });
    } finally {
      switched.child.kill('SIGTERM');
    }
  });

  it('takes the previous secret’s signature from X-Service-Signature-Previous, and one value per header only', async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = '{"id":1}';
    const good = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    const send = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: { 'x-service-timestamp': String(now), ...headers } }).then((r) => r.status);
    expect(await send({ 'x-service-signature': `sha256=${'0'.repeat(64)}`, 'x-service-signature-previous': `sha256=${good}` })).toBe(204);
    // The comma list the service sent before A receiver written to the document refuses it.
    expect(await send({ 'x-service-signature': `sha256=${'0'.repeat(64)},sha256=${good}` })).toBe(400);
  });

  it('refuses a changed body, another secret, and a timestamp more than five minutes off', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await post('{"id":1}', now)).toBe(204);
    const signedFor = createHmac('sha256', secret).update(`${now}.{"id":1}`).digest('hex');
    const tampered = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: '{"id":2}',
      headers: { 'x-service-timestamp': String(now), 'x-service-signature': `sha256=${signedFor}` },
    });
    expect(tampered.status).toBe(400);
    expect(await post('{"id":1}', now, `whsec_${'cd'.repeat(32)}`)).toBe(400);
    // Five seconds past the five minutes: `now` is whole seconds, up to one behind the receiver's clock, and the
    // requests before this one take time too (at 301, a second boundary crossed on the way let it through: 204).
    expect(await post('{"id":1}', now - 305)).toBe(400);
    expect(await post('{"id":1}', now + 305)).toBe(400);
  });
});
