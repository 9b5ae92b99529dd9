// Sign-up, log-in, sessions, the account and the profile (SPEC §5, §16).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

describe('signup', () => {
  it('creates an account and a 30-day session', async () => {
    const res = await anon.post('/api/v1/auth/signup', {
      email: 'Ada@Example.test',
      password: 'a long enough password',
      name: 'Ada Lovelace',
      username: 'ada',
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ username: 'ada' });
    expect(res.body.data.token).toMatch(/^cred_sess_/);
    expect(res.body.data.expires_at).toBe('2026-12-21T10:00:00.000Z');
    const me = await anon.as(res.body.data.token).get('/api/v1/account');
    expect(me.body.data).toMatchObject({ email: 'ada@example.test', username: 'ada', name: 'Ada Lovelace', publishers: [] });
  });

  it('refuses a taken email or username with 409', async () => {
    const u = await signup(t);
    const byEmail = await anon.post('/api/v1/auth/signup', { email: u.email.toUpperCase(), password: 'xxxxxxxxxxxx', name: 'X', username: 'other-name' });
    expect(byEmail.status).toBe(409);
    expect(byEmail.body.error.code).toBe('conflict');
    const byName = await anon.post('/api/v1/auth/signup', { email: 'new@mail.test', password: 'xxxxxxxxxxxx', name: 'X', username: u.username });
    expect(byName.status).toBe(409);
    expect(byName.body.error.message).toContain('username');
  });

  it.each([
    [{ email: 'no-at-sign', password: 'xxxxxxxxxxxx', name: 'X', username: 'abc' }, 'email'],
    [{ email: 'a@b.test', password: 'short', name: 'X', username: 'abc' }, 'password'],
    [{ email: 'a@b.test', password: 'xxxxxxxxxxxx', name: '', username: 'abc' }, 'name'],
    [{ email: 'a@b.test', password: 'xxxxxxxxxxxx', name: 'X', username: 'UPPER' }, 'username'],
    [{ email: 'a@b.test', password: 'xxxxxxxxxxxx', name: 'X', username: '12345' }, 'username'],
    [{ email: 'a@b.test', password: 'xxxxxxxxxxxx', name: 'X' }, 'username'],
    [{ email: 'a@b.test', password: 'xxxxxxxxxxxx', name: 'X', username: 'abc', admin: true }, 'admin'],
  ])('refuses %j naming %s', async (body, field) => {
    const res = await anon.post('/api/v1/auth/signup', body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });
});

describe('login and logout', () => {
  it('logs in with the right password, not with a wrong one, and the same answer for an unknown email', async () => {
    const u = await signup(t);
    const ok = await anon.post('/api/v1/auth/login', { email: u.email, password: u.password });
    expect(ok.status).toBe(200);
    expect(ok.body.data.token).toMatch(/^cred_sess_/);
    const wrong = await anon.post('/api/v1/auth/login', { email: u.email, password: 'not the password' });
    const unknown = await anon.post('/api/v1/auth/login', { email: 'nobody@mail.test', password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
  });

  it('ends only the session that logs out', async () => {
    const u = await signup(t);
    const second = await anon.post('/api/v1/auth/login', { email: u.email, password: u.password });
    const out = await u.client.post('/api/v1/auth/logout');
    expect(out.status).toBe(200);
    expect((await u.client.get('/api/v1/account')).status).toBe(401);
    expect((await anon.as(second.body.data.token).get('/api/v1/account')).status).toBe(200);
  });

  it('expires sessions after 30 days', async () => {
    const u = await signup(t);
    t.clock.advanceDays(29);
    expect((await u.client.get('/api/v1/account')).status).toBe(200);
    t.clock.advanceDays(2);
    const res = await u.client.get('/api/v1/account');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('rate-limits failed logins per account', async () => {
    const u = await signup(t);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await anon.from(`10.1.1.${i + 1}`).post('/api/v1/auth/login', { email: u.email, password: 'wrong password' });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe('profile', () => {
  it('changes name, summary and topics, and shows them on the account', async () => {
    const u = await signup(t);
    const res = await u.client.patch('/api/v1/account/profile', { name: 'Grace H.', summary: 'Compilers.', topics: ['Computer Science', 'computer science', 'navy'] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Grace H.', summary: 'Compilers.', topics: ['computer-science', 'navy'] });
  });

  it('refuses unknown fields and bad types', async () => {
    const u = await signup(t);
    const res = await u.client.patch('/api/v1/account/profile', { email: 'x@y.test' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('email');
    const bad = await u.client.patch('/api/v1/account/profile', { topics: 'science' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('topics');
  });
});

describe('whoami', () => {
  it('describes a session and each kind of key', async () => {
    const u = await signup(t);
    const session = await u.client.get('/api/v1/whoami');
    expect(session.body.data).toMatchObject({ authenticated: true, user_id: u.id, key_id: null, credential: 'session' });
    const key = await u.client.post('/api/v1/account/api-keys', { name: 'k' });
    const viaKey = await anon.as(key.body.data.key).get('/api/v1/whoami');
    expect(viaKey.body.data).toMatchObject({ user_id: u.id, key_id: key.body.data.id, credential: 'contributor_key', publisher: null });
    const viaHeader = await anon.get('/api/v1/whoami', { token: key.body.data.key, asHeader: 'x-api-key' });
    expect(viaHeader.body.data.key_id).toBe(key.body.data.id);
  });
});
