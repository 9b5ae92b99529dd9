// /me/security lists where the person is signed in, by browser and system, this browser marked; "Sign out" ends one
// other browser at once, "Sign out every other browser" all but this one. Another person's session cannot be ended
// from here (404), and without a session the page asks to log in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { PASSWORD, webUser, type WebUser } from './dashboard.fixtures.js';

const PHONE = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

let t: TestApp;
let me: WebUser;
let stranger: WebUser;
beforeAll(async () => {
  t = await startTestApp();
  me = await webUser(t, 'Sam Sessions');
  stranger = await webUser(t, 'Stan Stranger');
});
afterAll(async () => t?.close());

async function phoneSession(user: WebUser): Promise<Client> {
  const res = await new Client(t.baseUrl).req('POST', '/api/v1/auth/login', { body: { email: user.email, password: PASSWORD }, headers: { 'user-agent': PHONE } });
  expect(res.status, res.text).toBe(200);
  return new Client(t.baseUrl).as(res.body.data.token);
}

describe('/me/security', () => {
  it('lists each signed-in browser by name, this one marked, and signs another out', async () => {
    const phone = await phoneSession(me);
    const page = await me.b.get('/me/security');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Where you are signed in');
    expect(page.text).toContain('<strong>Chrome on Android</strong>');
    expect(page.text).toContain('This browser');
    const id = /action="\/me\/security\/sessions\/(\d+)\/end"/.exec(page.text)?.[1];
    expect(id).toBeDefined();
    const ended = await me.b.post(`/me/security/sessions/${id}/end`, {});
    expect(ended.status).toBe(303);
    expect(ended.location).toBe('/me/security?done=signed-out#sessions');
    expect((await phone.get('/api/v1/whoami')).status).toBe(401);
    expect((await me.b.get('/me/security')).status).toBe(200);
  });

  it('signs every other browser out, this one staying', async () => {
    const phones = [await phoneSession(me), await phoneSession(me)];
    const page = await me.b.get('/me/security');
    expect(page.text).toContain('Sign out every other browser (2)');
    const res = await me.b.post('/me/security/sessions/end-others', {});
    expect(res.location).toBe('/me/security?done=others-signed-out#sessions');
    for (const p of phones) expect((await p.get('/api/v1/whoami')).status).toBe(401);
    const after = await me.b.get('/me/security?done=others-signed-out');
    expect(after.text).toContain('Every other browser is signed out; this one stays.');
    expect(after.text).not.toContain('Sign out every other browser');
  });

  it('cannot end another person’s session', async () => {
    const theirs = await phoneSession(stranger);
    const id = (await stranger.api.get('/api/v1/account/sessions')).body.data[0].id as number;
    await me.b.get('/me/security');
    const res = await me.b.post(`/me/security/sessions/${id}/end`, {});
    expect(res.status).toBe(404);
    expect((await theirs.get('/api/v1/whoami')).status).toBe(200);
  });
});
