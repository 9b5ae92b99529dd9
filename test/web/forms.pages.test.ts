// Forms and messages for people: a field's rules are in its HTML attributes and in words beside it, the errors
// say the rule in words (never a regular expression) on the pages and in both API envelopes, from one map, and
// what a person typed comes back as typed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const USERNAME_WORDS = 'must be 3–40 lowercase letters, digits or hyphens (not first or last), with at least one letter';

describe('the sign-up form', () => {
  it('carries each rule as attributes and words, and a pattern the browser can compile', async () => {
    const b = new FormClient(t.baseUrl);
    const page = await b.get('/signup');
    const username = /<input[^>]*name="username"[^>]*>/.exec(page.text)![0];
    expect(username).toContain(' required');
    expect(username).toContain('aria-describedby="f-username-hint"');
    const pattern = /pattern="([^"]+)"/.exec(username)![1]!.replaceAll('&#39;', "'").replaceAll('&amp;', '&');
    // Browsers compile the attribute with the `v` flag, anchored; an invalid one is silently dropped.
    const re = new RegExp(`^(?:${pattern})$`, 'v');
    expect(re.test('priya-n')).toBe(true);
    expect(re.test('Priya N')).toBe(false);
    expect(page.text).toContain('id="f-username-hint">3–40 lowercase letters');
    const password = /<input[^>]*name="password"[^>]*>/.exec(page.text)![0];
    expect(password).toContain('minlength="10"');
    expect(password).toContain('maxlength="200"');
    expect(page.text).toContain('id="f-password-hint">At least 10 characters');
    expect(page.text).not.toContain('novalidate');
  });

  it('answers in words and gives back the username as typed', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    const res = await b.post('/signup', { name: 'Priya', username: 'Priya N', email: 'priya@web.test', password: 'short' });
    expect(res.status).toBe(400);
    expect(res.text).toContain(`id="f-username-error">${USERNAME_WORDS}</p>`);
    expect(res.text).toContain('id="f-password-error">must be at least 10 characters</p>');
    expect(res.text).toContain('value="Priya N"');
    expect(res.text).not.toContain('must match pattern');
    expect(res.text).not.toContain('must NOT');
  });
});

describe('the API envelopes', () => {
  it('/api/v1 names the field and the rule in words', async () => {
    const res = await fetch(`${t.baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Priya', username: 'Priya N', email: 'priya@api.test', password: 'short' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; details: { field: string; message: string }[] } };
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'username', message: USERNAME_WORDS },
        { field: 'password', message: 'must be at least 10 characters' },
      ]),
    );
    expect(JSON.stringify(body)).not.toMatch(/pattern|\^|must NOT/);
  });

  it('/v1 says a query parameter’s rule in words', async () => {
    const res = await fetch(`${t.baseUrl}/v1/changes?contributor=${encodeURIComponent('Priya N')}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; details: { field: string; message: string }[] } };
    expect(body.error.message).toBe(`The query parameter contributor ${USERNAME_WORDS}`);
    expect(body.error.details).toEqual([{ field: 'contributor', message: USERNAME_WORDS }]);
  });
});
