// Sign-up, log-in, sessions, the account and the profile (SPEC §5, §16).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { contributorKey, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

describe('signup', () => {
  it('creates an account, starts no session, and the account logs in next with a 30-day session', async () => {
    const res = await anon.post('/api/v1/auth/signup', {
      email: 'Ada@Example.test',
      password: 'a long enough password',
      name: 'Ada Lovelace',
      username: 'ada',
    });
    expect(res.status).toBe(202);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ username: 'ada', message: expect.any(String) });
    const login = await anon.post('/api/v1/auth/login', { email: 'ada@example.test', password: 'a long enough password' });
    expect(login.status).toBe(200);
    expect(login.body.data.token).toMatch(/^cred_sess_/);
    expect(login.body.data.expires_at).toBe('2026-12-21T10:00:00.000Z');
    const me = await anon.as(login.body.data.token).get('/api/v1/account');
    expect(me.body.data).toMatchObject({ email: 'ada@example.test', username: 'ada', name: 'Ada Lovelace', publishers: [] });
  });

  it('answers a taken email exactly as a new one, and changes nothing (emails are private)', async () => {
    const u = await signup(t);
    const taken = await anon.post('/api/v1/auth/signup', { email: u.email.toUpperCase(), password: 'xxxxxxxxxxxx', name: 'X', username: 'other-name' });
    const fresh = await anon.post('/api/v1/auth/signup', { email: 'fresh@mail.test', password: 'xxxxxxxxxxxx', name: 'X', username: 'third-name' });
    expect(taken.status).toBe(fresh.status);
    expect(Object.keys(taken.body.data)).toEqual(Object.keys(fresh.body.data));
    expect(taken.body.data.message).toBe(fresh.body.data.message);
    expect([...taken.headers.keys()].filter((h) => h !== 'x-request-id' && h !== 'date' && !h.startsWith('ratelimit'))).toEqual(
      [...fresh.headers.keys()].filter((h) => h !== 'x-request-id' && h !== 'date' && !h.startsWith('ratelimit')),
    );
    // The owner's password still works; the one the second sign-up gave does not.
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: 'xxxxxxxxxxxx' })).status).toBe(401);
  });

  it('refuses a taken username with 409 (usernames are public)', async () => {
    const u = await signup(t);
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

  it('slows one address guessing one account, with growing delays, without locking the person out', async () => {
    const u = await signup(t);
    const attacker = anon.from('10.66.0.1');
    const wrong = () => attacker.post('/api/v1/auth/login', { email: u.email, password: 'wrong password' });
    for (let i = 0; i < 4; i++) expect((await wrong()).status).toBe(401);
    // The 5th failure sets a 1 s wait; the next attempt inside it is refused without being counted.
    expect((await wrong()).status).toBe(401);
    const held = await wrong();
    expect(held.status).toBe(429);
    expect(held.body.error.code).toBe('rate_limited');
    expect(held.headers.get('retry-after')).toBe('1');
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      t.clock.advance(Number((await wrong()).headers.get('retry-after') ?? 0) * 1000 + 1000);
      const r = await wrong();
      expect(r.status).toBe(401);
      const again = await wrong();
      expect(again.status).toBe(429);
      waits.push(Number(again.headers.get('retry-after')));
    }
    expect(waits).toEqual([2, 4, 8, 16]);
    // The person, from their own address, is not locked out, even with the right password now.
    expect((await anon.from('10.66.0.2').post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    // And even the guessing address gets in with the right password once its wait is over, which clears its count.
    t.clock.advance(17_000);
    expect((await attacker.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    expect((await wrong()).status).toBe(401);
    expect((await wrong()).status).toBe(401);
  });

  it('slows one address trying many accounts', async () => {
    const from = anon.from('10.67.0.1');
    for (let i = 0; i < 20; i++) {
      expect((await from.post('/api/v1/auth/login', { email: `nobody-${i}@mail.test`, password: 'wrong password' })).status).toBe(401);
    }
    const held = await from.post('/api/v1/auth/login', { email: 'nobody-x@mail.test', password: 'wrong password' });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another address is unaffected.
    expect((await anon.from('10.67.0.2').post('/api/v1/auth/login', { email: 'nobody-x@mail.test', password: 'wrong password' })).status).toBe(401);
  });
});

describe('password and sessions', () => {
  it('changes the password given the current one, ending every other session', async () => {
    const u = await signup(t);
    const other = await anon.post('/api/v1/auth/login', { email: u.email, password: u.password });
    const bad = await u.client.post('/api/v1/account/password', { current_password: 'not it at all', new_password: 'a brand new password' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('current_password');
    const short = await u.client.post('/api/v1/account/password', { current_password: u.password, new_password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.details[0].field).toBe('new_password');
    const ok = await u.client.post('/api/v1/account/password', { current_password: u.password, new_password: 'a brand new password' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ other_sessions_ended: 1, api_keys_revoked: 0 });
    expect((await u.client.get('/api/v1/account')).status).toBe(200);
    expect((await anon.as(other.body.data.token).get('/api/v1/account')).status).toBe(401);
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(401);
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: 'a brand new password' })).status).toBe(200);
  });

  it('logs out everywhere', async () => {
    const u = await signup(t);
    const other = await anon.post('/api/v1/auth/login', { email: u.email, password: u.password });
    const res = await u.client.post('/api/v1/auth/logout-everywhere');
    expect(res.status).toBe(200);
    expect(res.body.data.sessions_ended).toBe(2);
    expect((await u.client.get('/api/v1/account')).status).toBe(401);
    expect((await anon.as(other.body.data.token).get('/api/v1/account')).status).toBe(401);
  });

  // API keys survived both, which someone taking back a stolen account does not expect; now they may ask.
  it('keeps the API keys unless asked (revoke_api_keys), on a password change and on logging out everywhere', async () => {
    const whoami = (key: string) => anon.as(key).get('/api/v1/whoami');
    const bystander = await signup(t);
    const theirs = await contributorKey(bystander);

    const kept = await signup(t);
    const keptKey = await contributorKey(kept);
    const change = await kept.client.post('/api/v1/account/password', { current_password: kept.password, new_password: 'a brand new password' });
    expect(change.body.data).toEqual({ other_sessions_ended: 0, api_keys_revoked: 0 });
    expect((await kept.client.post('/api/v1/auth/logout-everywhere')).body.data).toEqual({ sessions_ended: 1, api_keys_revoked: 0 });
    expect((await whoami(keptKey)).status).toBe(200);

    const u = await signup(t);
    const keys = [await contributorKey(u), await contributorKey(u)];
    const wrongType = await u.client.post('/api/v1/account/password', { current_password: u.password, new_password: 'a brand new password', revoke_api_keys: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details[0].field).toBe('revoke_api_keys');
    expect((await whoami(keys[0]!)).status).toBe(200);
    const revoked = await u.client.post('/api/v1/account/password', { current_password: u.password, new_password: 'a brand new password', revoke_api_keys: true });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data).toEqual({ other_sessions_ended: 0, api_keys_revoked: 2 });
    for (const key of keys) {
      const res = await whoami(key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('key_revoked');
    }
    expect((await u.client.get('/api/v1/account')).status).toBe(200);

    const v = await signup(t);
    const vKey = await contributorKey(v);
    expect((await v.client.post('/api/v1/auth/logout-everywhere', { revoke_api_keys: 1 })).status).toBe(400);
    const out = await v.client.post('/api/v1/auth/logout-everywhere', { revoke_api_keys: true });
    expect(out.status, out.text).toBe(200);
    expect(out.body.data).toEqual({ sessions_ended: 1, api_keys_revoked: 1 });
    expect((await whoami(vKey)).body.error.code).toBe('key_revoked');
    // Only the account's own keys.
    expect((await whoami(theirs)).status).toBe(200);
  });

  it('rehashes an older hash at the next log-in, transparently', async () => {
    const u = await signup(t);
    const { hashPassword } = await import('../../src/domain/accounts/password.js');
    await t.runtime.deps.db.updateTable('accounts').set({ password_hash: await hashPassword(u.password, 10) }).where('id', '=', u.id).execute();
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    const row = await t.runtime.deps.db.selectFrom('accounts').select('password_hash').where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.password_hash.startsWith(`scrypt$${2 ** t.config.scryptLogN}$8$1$`)).toBe(true);
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(200);
  });

  it('hashes at N = 2^17, r = 8, p = 1 outside tests', async () => {
    const { loadConfig } = await import('../../src/config.js');
    expect(loadConfig({ NODE_ENV: 'production' }).scryptLogN).toBe(17);
    const { hashPassword, verifyPassword, needsRehash } = await import('../../src/domain/accounts/password.js');
    const h = await hashPassword('a long enough password');
    expect(h.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(await verifyPassword('a long enough password', h)).toBe(true);
    expect(needsRehash(h)).toBe(false);
    expect(needsRehash(await hashPassword('x', 14))).toBe(true);
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
