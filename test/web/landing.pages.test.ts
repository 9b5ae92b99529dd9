// Where a person lands and what leads on: a publisher's log-in opens the dashboard, a contributor's their work; the
// confirmed-address page links onwards; the unconfirmed-address notice is a warning; mail links open the page they
// are about.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { PASSWORD, webPublication, webUser } from './dashboard.fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const logIn = async (email: string) => {
  const b = new FormClient(t.baseUrl);
  await b.get('/login');
  return { b, res: await b.post('/login', { email, password: PASSWORD }) };
};

describe('landing after log-in', () => {
  it('a publisher lands on /dashboard, a contributor on /me', async () => {
    const pub = await webPublication(t);
    expect((await logIn(pub.owner.email)).res.location).toBe('/dashboard');
    const person = await webUser(t, 'Only Contributor');
    const { b, res } = await logIn(person.email);
    expect(res.location).toBe('/me');
    expect((await b.get('/login')).headers.get('location')).toBe('/me');
  });
});

describe('the address', () => {
  it('an unconfirmed address is a warning on /me, and the confirmed page links onwards', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Wren', username: 'wren-land', email: 'wren@land.test', password: PASSWORD });
    await b.post('/login', { email: 'wren@land.test', password: PASSWORD });
    const me = await b.get('/me');
    expect(me.text).toContain('<p class="notice warn" role="status">Confirm your email address');
    expect(me.text).toContain('>Named as author</a>');
    const row = await t.runtime.deps.db.selectFrom('mail_outbox').select('facts').where('to_address', '=', 'wren@land.test').executeTakeFirstOrThrow();
    const token = (JSON.parse(row.facts) as { token: string }[])[0]!.token;
    await b.get(`/confirm-email?token=${token}`);
    const posted = await b.post('/confirm-email', { token });
    expect(posted.status).toBe(303);
    const done = await b.get(posted.location!);
    expect(done.text).toContain('Address confirmed');
    expect(done.text).toContain('<a href="/me">your work</a>');
  });
});

describe('mail links', () => {
  it('the “named you” mail opens /me/names', async () => {
    const pub = await webPublication(t);
    const author = await webUser(t, 'Named Author');
    const res = await pub.owner.api.post('/api/v1/pages', { url: `https://${pub.domain}/named`, title: 'Named', authors: [author.username] });
    expect(res.status, res.text).toBe(201);
    const row = await t.runtime.deps.db.selectFrom('mail_outbox').select('facts').where('to_address', '=', author.email).where('kind', '=', 'named_on_page').executeTakeFirstOrThrow();
    expect((JSON.parse(row.facts) as { link: string }[])[0]!.link).toBe('https://credence.test/me/names');
  });
});
