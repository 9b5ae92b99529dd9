// Sign up, log in and log out as a person would, with the session cookie and CSRF rules of SPEC §5.
import { confirmAddress } from '../factories.js';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeNext } from '../../src/surfaces/web/kit.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('sign up, log in, log out', () => {
  it('signs up with a form, answers the log-in form, and logging in sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    const res = await b.post('/signup', { name: 'Ada', username: 'ada-web', email: 'ada@web.test', password: 'long enough password' });
    // Post/Redirect/Get: the log-in form is a GET a reload can repeat, with the address kept out of the URL.
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?done=signed-up&next=%2Fme%3Fdone%3Dwelcome');
    expect(res.location).not.toContain('ada');
    expect(b.cookie('credence_session')).toBeUndefined();
    const form = await b.get(res.location!);
    expect(form.text).toContain('confirm');
    expect(form.text).toContain('action="/login?next=%2Fme%3Fdone%3Dwelcome"');
    const login = await b.post('/login?next=%2Fme%3Fdone%3Dwelcome', { email: 'ada@web.test', password: 'long enough password' });
    expect(login.status).toBe(303);
    expect(login.location).toBe('/me?done=welcome');
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('credence_session='))!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    expect(b.cookie('credence_session')).toMatch(/^cred_sess_/);
  });

  it('answers a taken email exactly as a new one (emails are private); a taken username is said', async () => {
    const one = new FormClient(t.baseUrl);
    await one.get('/signup');
    const fresh = await one.post('/signup', { name: 'Em', username: 'em-web', email: 'em@web.test', password: 'long enough password' });
    const two = new FormClient(t.baseUrl);
    await two.get('/signup');
    const taken = await two.post('/signup', { name: 'Em', username: 'em-web-2', email: 'EM@web.test', password: 'long enough password' });
    expect(taken.status).toBe(fresh.status);
    expect(taken.location).toBe(fresh.location);
    const three = new FormClient(t.baseUrl);
    await three.get('/signup');
    const name = await three.post('/signup', { name: 'Em', username: 'em-web', email: 'other@web.test', password: 'long enough password' });
    expect(name.status).toBe(409);
    expect(name.text).toContain('id="f-username-error"');
  });

  it('sends Retry-After with the 429 log-in page', async () => {
    const b = new FormClient(t.baseUrl);
    const headers = { 'x-forwarded-for': '10.77.0.1' };
    await b.get('/login', headers);
    let last = { status: 0, headers: new Headers(), text: '' };
    for (let i = 0; i < 6; i++) last = await b.post('/login', { email: 'nobody@web.test', password: 'not the password' }, { headers });
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');
    expect(last.text).toContain('role="alert"');
  });

  it('shows field errors next to the fields, keeping what was typed (not the password)', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    const res = await b.post('/signup', { name: 'Bo', username: 'BAD NAME', email: 'not-an-email', password: 'short' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="f-username-error"');
    expect(res.text).toContain('id="f-email-error"');
    expect(res.text).toContain('id="f-password-error"');
    expect(res.text).toContain('value="not-an-email"');
    expect(res.text).not.toContain('value="short"');
    expect(res.text).toContain('aria-invalid="true"');
  });

  it('logs in, follows next only within the site, and logs out', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Cy', username: 'cy-web', email: 'cy@web.test', password: 'long enough password' });
    await b.post('/login', { email: 'cy@web.test', password: 'long enough password' });
    await b.post('/logout', {});
    expect(b.cookie('credence_session')).toBeUndefined();
    await b.get('/login?next=/requests');
    const ok = await b.post('/login?next=/requests', { email: 'cy@web.test', password: 'long enough password' });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/requests');
    const evil = await b.post('/login?next=//evil.example/x', { email: 'cy@web.test', password: 'long enough password' });
    expect(evil.location).toBe('/me');
    await b.get('/login');
    const wrong = new FormClient(t.baseUrl);
    await wrong.get('/login');
    const bad = await wrong.post('/login', { email: 'cy@web.test', password: 'not the password' });
    expect(bad.status).toBe(401);
    expect(bad.text).toContain('role="alert"');
  });

  it('changes nothing for a form posted without its CSRF token or from another origin', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    const noToken = await b.post('/signup', { name: 'Eve', username: 'eve-one', email: 'eve1@web.test', password: 'long enough password' }, { csrf: null });
    expect(noToken.status).toBe(403);
    await b.get('/signup');
    const otherOrigin = await b.post('/signup', { name: 'Eve', username: 'eve-two', email: 'eve2@web.test', password: 'long enough password' }, { headers: { origin: 'https://evil.example' } });
    expect(otherOrigin.status).toBe(403);
    await b.get('/signup');
    const wrongToken = await b.post('/signup', { name: 'Eve', username: 'eve-three', email: 'eve3@web.test', password: 'long enough password' }, { csrf: 'x'.repeat(32) });
    expect(wrongToken.status).toBe(403);
    const rows = await t.runtime.deps.db.selectFrom('accounts').select('username').where('username', 'like', 'eve-%').execute();
    expect(rows).toEqual([]);
  });

  it('sets the cookie Secure under HTTPS', async () => {
    const b = new FormClient(t.baseUrl);
    const res = await b.get('/signup', { 'x-forwarded-proto': 'https' });
    expect(res.headers.getSetCookie().find((c) => c.startsWith('credence_csrf='))).toContain('Secure');
  });
});

describe('next, after logging in', () => {
  const PIECES = ['/', '//', '\\', '%', '%2F', '%E3%80%82', '。', 'é', '\u0000', '\t', '\n', '\r', ' ', '?', '#', '@', ':', '..', 'evil.example', 'http:', 'javascript:', '\u2028', '\uFEFF', '%0d%0a', 'a', 'me', '\ud83d\ude00', '\ud800', '<', '"', "'"];
  const fuzz = (n: number) =>
    Array.from({ length: n }, () => Array.from({ length: 1 + randomInt(6) }, () => PIECES[randomInt(PIECES.length)]).join(''));
  const CASES = ['/%E3%80%82', '/。', '//evil.example', '/\\evil.example', '/\t/evil.example', 'https://evil.example', '/%0d%0aSet-Cookie:x=1', '/a b', '/\ud800', ...fuzz(300)];

  /** A Location the browser reads as a path of this site: ASCII, one leading slash. */
  const sameSite = (location: string) => /^\/(?![/\\])[\x21-\x7e]*$/.test(location) && new URL(location, 'https://credence.test').origin === 'https://credence.test';

  it('safeNext gives a same-site ASCII path or the fallback, for any input', () => {
    for (const next of CASES) {
      const out = safeNext(next, '/me');
      expect(sameSite(out), JSON.stringify(next)).toBe(true);
    }
    expect(safeNext('/%E3%80%82', '/me')).toBe('/%E3%80%82');
    expect(safeNext('/。', '/me')).toBe('/%E3%80%82');
    expect(safeNext('/requests?topic=health#x', '/me')).toBe('/requests?topic=health#x');
    expect(safeNext('//evil.example', '/me')).toBe('/me');
    expect(safeNext('/\\evil.example', '/me')).toBe('/me');
  });

  it('never answers a 500 or an invalid Location, and keeps the session cookie', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Nx', username: 'next-fuzz', email: 'next@web.test', password: 'long enough password' });
    for (const next of CASES.slice(0, 60)) {
      // Every byte percent-encoded (a lone surrogate becomes U+FFFD, as a browser would send it).
      const query = `?next=${[...Buffer.from(next)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`;
      const c = new FormClient(t.baseUrl);
      // Each from its own address, so the log-in limits do not get in the way.
      const headers = { 'x-forwarded-for': `10.9.${randomInt(256)}.${randomInt(1, 255)}` };
      const page = await c.get(`/login${query}`, headers);
      expect(page.status, next).toBe(200);
      const res = await c.post(`/login${query}`, { email: 'next@web.test', password: 'long enough password' }, { headers });
      expect(res.status, JSON.stringify(next)).toBe(303);
      expect(sameSite(res.location!), `${JSON.stringify(next)} → ${res.location}`).toBe(true);
      expect(c.cookie('credence_session')).toMatch(/^cred_sess_/);
    }
    // The raw form the attacker sent: percent-encoded in the query string as is.
    const c = new FormClient(t.baseUrl);
    await c.get('/login');
    const raw = await c.post('/login?next=/%E3%80%82', { email: 'next@web.test', password: 'long enough password' });
    expect(raw.status).toBe(303);
    expect(raw.location).toBe('/%E3%80%82');
  });
});

describe('password and sessions at /me/security', () => {
  it('changes the password and logs out everywhere', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Pw', username: 'pw-web', email: 'pw@web.test', password: 'long enough password' });
    await b.post('/login', { email: 'pw@web.test', password: 'long enough password' });
    const other = new FormClient(t.baseUrl);
    await other.get('/login');
    await other.post('/login', { email: 'pw@web.test', password: 'long enough password' });
    expect((await other.get('/me')).status).toBe(200);

    expect((await b.get('/me/security')).status).toBe(200);
    const wrong = await b.post('/me/security/password', { current_password: 'not the password', new_password: 'a new long password' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('id="f-current_password-error"');
    await b.get('/me/security');
    const ok = await b.post('/me/security/password', { current_password: 'long enough password', new_password: 'a new long password' });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/me/security?done=changed');
    expect((await b.get('/me')).status).toBe(200);
    expect((await other.get('/me')).status).toBe(303);

    await b.get('/me/security');
    const out = await b.post('/me/security/logout-everywhere', {});
    expect(out.status).toBe(303);
    expect((await b.get('/me')).status).toBe(303);
  });

  // A box on each form revokes the account's API keys too; unticked (the default), they keep working.
  it('revokes the API keys only when the box is ticked, on either form', async () => {
    const keyOf = async (email: string) => {
      const login = await fetch(`${t.baseUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${randomInt(255)}.1` }, body: JSON.stringify({ email, password: 'long enough password' }) });
      const token = ((await login.json()) as { data: { token: string } }).data.token;
      const made = await fetch(`${t.baseUrl}/api/v1/account/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'cms', publisher: null }) });
      return ((await made.json()) as { data: { key: string } }).data.key;
    };
    const works = async (key: string) => (await fetch(`${t.baseUrl}/api/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status === 200;
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Keys', username: 'keys-web', email: 'keys@web.test', password: 'long enough password' });
    await confirmAddress(t, 'keys@web.test');
    await b.post('/login', { email: 'keys@web.test', password: 'long enough password' });
    const page = await b.get('/me/security');
    expect(page.text.match(/name="revoke_api_keys" value="true"/g)).toHaveLength(2);
    expect(page.text).not.toMatch(/name="revoke_api_keys"[^>]*checked/);

    const first = await keyOf('keys@web.test');
    await b.get('/me/security');
    const kept = await b.post('/me/security/password', { current_password: 'long enough password', new_password: 'another long password' });
    expect(kept.location).toBe('/me/security?done=changed');
    expect(await works(first)).toBe(true);
    await b.get('/me/security');
    const changed = await b.post('/me/security/password', { current_password: 'another long password', new_password: 'long enough password', revoke_api_keys: 'true' });
    expect(changed.location).toBe('/me/security?done=changed-keys');
    expect(await works(first)).toBe(false);
    expect((await b.get('/me/security?done=changed-keys')).text).toContain('every API key of your account is revoked');

    const second = await keyOf('keys@web.test');
    await b.get('/me/security');
    expect((await b.post('/me/security/logout-everywhere', { revoke_api_keys: 'true' })).status).toBe(303);
    expect(await works(second)).toBe(false);
    expect((await b.get('/me')).status).toBe(303);
  });

  // Leaving from /me: the data as a download, then the account deleted with the password again.
  it('downloads the account’s data and deletes the account with the password again', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Leaving Soon', username: 'leaving-web', email: 'leaving@web.test', password: 'long enough password' });
    await b.post('/login', { email: 'leaving@web.test', password: 'long enough password' });
    const page = await b.get('/me/security');
    expect(page.text).toContain('href="/me/export"');
    expect(page.text).toContain('action="/me/security/delete"');
    const data = await b.get('/me/export');
    expect(data.status).toBe(200);
    expect(JSON.parse(data.text)).toMatchObject({ format: 'credence-account-export/1', account: { username: 'leaving-web', email: 'leaving@web.test', name: 'Leaving Soon' } });
    await b.get('/me/security');
    // The username typed out, as GitHub asks, and the password: either missing or wrong keeps the account.
    const untyped = await b.post('/me/security/delete', { confirm_username: 'leaving', password: 'long enough password' });
    expect(untyped.status).toBe(400);
    expect(untyped.text).toContain('id="f-confirm_username-error">Type your username, leaving-web, exactly</p>');
    await b.get('/me/security');
    const wrong = await b.post('/me/security/delete', { confirm_username: 'leaving-web', password: 'not the password' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('id="f-password-error"');
    await b.get('/me/security');
    const gone = await b.post('/me/security/delete', { confirm_username: 'leaving-web', password: 'long enough password' });
    expect(gone.status).toBe(303);
    expect(gone.location).toBe('/?done=erased');
    expect((await b.get('/?done=erased')).text).toContain('Your account is deleted');
    expect((await b.get('/me')).status).toBe(303);
    expect((await fetch(`${t.baseUrl}/contributors/leaving-web`)).status).toBe(404);
    // Signing in again finds nobody.
    await b.get('/login');
    expect((await b.post('/login', { email: 'leaving@web.test', password: 'long enough password' })).status).toBe(401);
  });
});
