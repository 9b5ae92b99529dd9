// Sign up, log in and log out as a person would, with the session cookie and CSRF rules of SPEC §5.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('sign up, log in, log out', () => {
  it('signs up with a form and gets an HttpOnly, SameSite=Lax session cookie', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    const res = await b.post('/signup', { name: 'Ada', username: 'ada-web', email: 'ada@web.test', password: 'long enough password' });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/me?done=welcome');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('credence_session='))!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    expect(b.cookie('credence_session')).toMatch(/^cred_sess_/);
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
