// A person's sessions: each signed-in browser listed with the browser and system it was opened from (never the
// whole User-Agent), the caller's own marked; one ended by its id signs that browser out at once. Another account's
// session, or one already ended, is a 404 as if it did not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { signup, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

let t: TestApp;
let ana: TestUser;
let other: TestUser;
beforeAll(async () => {
  t = await startTestApp();
  ana = await signup(t);
  other = await signup(t);
});
afterAll(async () => t?.close());

async function loginFrom(user: TestUser, userAgent: string): Promise<string> {
  const res = await new Client(t.baseUrl).req('POST', '/api/v1/auth/login', { body: { email: user.email, password: user.password }, headers: { 'user-agent': userAgent } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.token as string;
}

describe('/api/v1/account/sessions', () => {
  it('lists every signed-in browser by name, newest first, the caller’s own marked', async () => {
    const laptop = await loginFrom(ana, FIREFOX);
    await loginFrom(ana, IPHONE);
    const res = await new Client(t.baseUrl).as(laptop).get('/api/v1/account/sessions');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.slice(0, 2)).toMatchObject([
      { device: 'Safari on iOS', current: false },
      { device: 'Firefox on Linux', current: true },
    ]);
    expect(res.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    // Nothing of the header beyond the names; no token or its hash.
    expect(res.text).not.toContain('Mozilla');
    expect(res.text).not.toMatch(/[0-9a-f]{64}/);
    const stored = await t.runtime.deps.db.selectFrom('sessions').select('device').where('account_id', '=', ana.id).execute();
    expect(stored.every((s) => s.device === null || !s.device.includes('Mozilla'))).toBe(true);
  });

  it('signs one browser out by its id, at once; the others stay signed in', async () => {
    const phone = await loginFrom(ana, IPHONE);
    const list = await ana.client.get('/api/v1/account/sessions');
    const target = list.body.data.find((s: { device: string; current: boolean }) => s.device === 'Safari on iOS' && !s.current).id;
    expect((await new Client(t.baseUrl).as(phone).get('/api/v1/whoami')).status).toBe(200);
    const ended = await ana.client.req('DELETE', `/api/v1/account/sessions/${target}`);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.data).toEqual({ ended: true });
    const after = await ana.client.get('/api/v1/account/sessions');
    expect(after.body.data.map((s: { id: number }) => s.id)).not.toContain(target);
    expect((await ana.client.get('/api/v1/whoami')).status).toBe(200);
    // Whichever phone session was ended, signing it out twice is a 404.
    expect((await ana.client.req('DELETE', `/api/v1/account/sessions/${target}`)).status).toBe(404);
  });

  it('will not touch another account’s session: 404, and it stays signed in', async () => {
    const theirs = await other.client.get('/api/v1/account/sessions');
    const id = theirs.body.data[0].id as number;
    const res = await ana.client.req('DELETE', `/api/v1/account/sessions/${id}`);
    expect(res.status).toBe(404);
    expect((await other.client.get('/api/v1/whoami')).status).toBe(200);
  });

  it('takes no API key: sessions are managed by a person signed in', async () => {
    expect((await new Client(t.baseUrl).get('/api/v1/account/sessions')).status).toBe(401);
  });
});
