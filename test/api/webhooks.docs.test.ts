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
  port = 20000 + Math.floor(Math.random() * 20000);
  child = spawn(path.resolve('node_modules/.bin/tsx'), [path.join(dir, 'receiver.ts')], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
    stdio: 'ignore',
  });
  // Ready when it answers.
  for (let i = 0; i < 100; i++) {
    if (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 30_000);

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

  it('accepts during a rotation when one of several signatures matches', async () => {
    const now = Math.floor(Date.now() / 1000);
    const body = '{"id":1}';
    const good = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body,
      headers: { 'x-service-timestamp': String(now), 'x-service-signature': `sha256=${'0'.repeat(64)},sha256=${good}` },
    });
    expect(res.status).toBe(204);
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
