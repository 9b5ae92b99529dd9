// Mail through a real SMTP server (test/smtp-server.ts). Sign-up, confirmation, password reset and
// address change each end in the expected message with a link that works once; an unknown address gets no mail
// and the same answer; the username/profile probe learns nothing; an SMTP outage loses and repeats nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MailSender } from '../../src/jobs/mail.js';
import { Client } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { linkToken, TestSmtp } from '../smtp-server.js';

let t: TestApp;
let smtp: TestSmtp;
let sender: MailSender;
let anon: Client;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  smtp = await TestSmtp.start();
  t = await startTestApp({ smtpUrl: smtp.url, mailFrom: 'Credence <no-reply@credence.test>' });
  sender = new MailSender(t.runtime.deps, { log: { error: () => {}, info: () => {} }, random: () => 0 });
  anon = new Client(t.baseUrl);
});
afterAll(async () => {
  await sender?.stop();
  await t?.close();
  await smtp?.close();
});
beforeEach(() => {
  smtp.mode = 'accept';
});

const signUp = (username: string, email: string, headers: Record<string, string> = {}) =>
  anon.post('/api/v1/auth/signup', { email, password: PASSWORD, name: `Name ${username}`, username }, { headers });

async function logIn(email: string, password = PASSWORD): Promise<Client> {
  const res = await anon.post('/api/v1/auth/login', { email, password });
  expect(res.status, res.text).toBe(200);
  return anon.as(res.body.data.token);
}

describe('sign-up and confirmation', () => {
  it('mails a confirmation link that works once; until then the account cannot make keys or be seen', async () => {
    const res = await signUp('mia', 'Mia@Mail.test');
    expect(res.status, res.text).toBe(202);
    const me = await logIn('mia@mail.test');
    // Unconfirmed: signs in, but no keys and no public profile.
    const key = await me.post('/api/v1/account/api-keys', { name: 'k', publisher: null });
    expect(key.status).toBe(403);
    expect(key.body.error.message).toMatch(/Confirm your email/);
    expect((await anon.get('/api/v1/contributors/mia')).status).toBe(404);

    await sender.tick();
    const [mail, ...more] = smtp.to('mia@mail.test');
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Confirm your email address for Credence');
    expect(mail!.parsed.from?.value).toEqual([{ name: 'Credence', address: 'no-reply@credence.test' }]);
    expect(mail!.html).toContain('/confirm-email?token=');
    expect(mail!.headers.get('list-unsubscribe')).toBeUndefined();
    const token = linkToken(mail!, 'https://credence.test/confirm-email');

    // The link opens a page that asks (a scanner following it spends nothing); the confirmation is the POST.
    expect((await anon.get(`/confirm-email?token=${token}`)).status).toBe(200);
    const ok = await anon.post('/api/v1/auth/confirm-email', { token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toEqual({ username: 'mia', address_changed: false });
    expect((await anon.post('/api/v1/auth/confirm-email', { token })).status).toBe(404);

    expect((await me.post('/api/v1/account/api-keys', { name: 'k', publisher: null })).status).toBe(201);
    expect((await anon.get('/api/v1/contributors/mia')).status).toBe(200);
  });

  it('writes in the language the sign-up asked for', async () => {
    expect((await signUp('lea', 'lea@mail.test', { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' })).status).toBe(202);
    await sender.tick();
    const [mail] = smtp.to('lea@mail.test');
    expect(mail!.subject).toBe('Confirmez votre adresse e-mail pour Credence');
    expect(mail!.headers.get('content-language')).toBe('fr');
  });

  it('tells a registered address it has an account, and the probe by username and profile learns nothing', async () => {
    const owner = await signup(t);
    await sender.tick();
    const before = smtp.received.length;
    const known = await signUp('probe-known', owner.email);
    const unknown = await signUp('probe-unknown', 'nobody-yet@mail.test');
    expect(known.status).toBe(202);
    expect(known.body).toEqual({ ...unknown.body, data: { ...unknown.body.data, username: 'probe-known' } });
    // Neither username has a profile, and both are taken now.
    for (const name of ['probe-known', 'probe-unknown']) {
      expect((await anon.get(`/api/v1/contributors/${name}`)).status).toBe(404);
      expect((await anon.get(`/v1/contributors/${name}`)).status).toBe(404);
      expect((await signUp(name, `${name}-again@mail.test`)).status).toBe(409);
    }
    await sender.tick();
    const sent = smtp.received.slice(before);
    expect(sent.map((m) => [m.to, m.subject]).sort()).toEqual(
      [
        [owner.email, 'You already have a Credence account'],
        ['nobody-yet@mail.test', 'Confirm your email address for Credence'],
      ].sort(),
    );
    expect(sent.find((m) => m.to === owner.email)!.text).toContain('/forgot-password');
  });

  it('sends a new link on request, and an unconfirmed account cannot be named', async () => {
    expect((await signUp('late', 'late@mail.test')).status).toBe(202);
    const me = await logIn('late@mail.test');
    const owner = await signup(t);
    const pub = await owner.client.post('/api/v1/account/publishers', { name: 'Late Times', slug: 'late-times' });
    expect(pub.status, pub.text).toBe(201);
    const invite = await owner.client.post('/api/v1/account/publishers/late-times/members', { username: 'late', role: 'editor' });
    expect(invite.status).toBe(400);
    // Nor take requests or submit work.
    expect((await me.post('/api/v1/review-requests/999999/take')).status).toBe(403);
    const work = await me.post('/api/v1/submissions', { url: 'https://late.example/a', role: 'source', summary: 'A source', evidence: { reason: 'Data', sources: ['https://data.example/x'] } });
    expect(work.status, work.text).toBe(403);
    expect((await me.post('/api/v1/account/email/confirmation')).status).toBe(202);
    await sender.tick();
    const mails = smtp.to('late@mail.test');
    expect(mails).toHaveLength(2);
    // The newest link works (using it voids the older one).
    expect((await anon.post('/api/v1/auth/confirm-email', { token: linkToken(mails[1]!, 'https://credence.test/confirm-email') })).status).toBe(200);
    expect((await anon.post('/api/v1/auth/confirm-email', { token: linkToken(mails[0]!, 'https://credence.test/confirm-email') })).status).toBe(404);
    expect((await owner.client.post('/api/v1/account/publishers/late-times/members', { username: 'late', role: 'editor' })).status).toBe(202);
  });
});

describe('inboxes are not flooded', () => {
  it('sends one address at most 3 mails an hour because of others, with the same answers', async () => {
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await signUp(`flood-${i}`, 'flood@mail.test')).status);
    expect(answers).toEqual([202, 202, 202, 202, 202]);
    await sender.tick();
    expect(smtp.to('flood@mail.test')).toHaveLength(3);
    t.clock.advance(3600_000);
    expect((await signUp('flood-late', 'flood@mail.test')).status).toBe(202);
    await sender.tick();
    expect(smtp.to('flood@mail.test')).toHaveLength(4);
  });

  it('answers 429 to an account asking for links again and again', async () => {
    expect((await signUp('asker', 'asker@mail.test')).status).toBe(202);
    const me = await logIn('asker@mail.test');
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await me.post('/api/v1/account/email/confirmation')).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });
});

describe('password reset', () => {
  it('mails a one-hour single-use link; using it sets the password and ends every session', async () => {
    const u = await signup(t);
    await sender.tick();
    const before = smtp.received.length;
    const known = await anon.post('/api/v1/auth/password-reset', { email: u.email.toUpperCase() });
    const unknown = await anon.post('/api/v1/auth/password-reset', { email: 'no-such-person@mail.test' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    await sender.tick();
    const sent = smtp.received.slice(before);
    expect(sent.map((m) => m.to)).toEqual([u.email]);
    expect(sent[0]!.subject).toBe('Reset your Credence password');
    const token = linkToken(sent[0]!, 'https://credence.test/reset-password');
    const form = await anon.get(`/reset-password?token=${token}`);
    expect(form.status).toBe(200);
    // The form offers to revoke the account's API keys, ticked.
    expect(form.text).toMatch(/<input type="checkbox" name="revoke_api_keys" value="true" checked/);
    const key = await u.client.post('/api/v1/account/api-keys', { name: 'made by whoever held the account' });
    expect(key.status, key.text).toBe(201);

    const done = await anon.post('/api/v1/auth/password-reset/complete', { token, password: 'a brand new password' });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.sessions_ended).toBeGreaterThanOrEqual(1);
    // Revoked by default: a key made by whoever held the account does not outlive the new password.
    expect(done.body.data.api_keys_revoked).toBe(1);
    expect((await anon.as(key.body.data.key).get('/api/v1/whoami')).body.data?.authenticated ?? false).toBe(false);
    expect((await u.client.get('/api/v1/whoami')).status).toBe(401);
    expect((await anon.post('/api/v1/auth/password-reset/complete', { token, password: 'yet another password' })).status).toBe(404);
    expect((await anon.get(`/reset-password?token=${token}`)).status).toBe(404);
    await logIn(u.email, 'a brand new password');
  });

  it('keeps the API keys when asked to', async () => {
    const u = await signup(t);
    const key = await u.client.post('/api/v1/account/api-keys', { name: 'the CMS' });
    expect(key.status, key.text).toBe(201);
    await sender.tick();
    expect((await anon.post('/api/v1/auth/password-reset', { email: u.email })).status).toBe(202);
    await sender.tick();
    const token = linkToken(smtp.to(u.email).find((m) => m.subject === 'Reset your Credence password')!, 'https://credence.test/reset-password');
    const done = await anon.post('/api/v1/auth/password-reset/complete', { token, password: 'a brand new password', revoke_api_keys: false });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.api_keys_revoked).toBe(0);
    expect((await anon.as(key.body.data.key).get('/api/v1/whoami')).body.data.authenticated).toBe(true);
  });

  it('refuses a link older than an hour', async () => {
    const u = await signup(t);
    expect((await anon.post('/api/v1/auth/password-reset', { email: u.email })).status).toBe(202);
    await sender.tick();
    const token = linkToken(smtp.to(u.email).find((m) => m.subject === 'Reset your Credence password')!, 'https://credence.test/reset-password');
    t.clock.advance(61 * 60_000);
    expect((await anon.post('/api/v1/auth/password-reset/complete', { token, password: 'a brand new password' })).status).toBe(404);
  });

  it('throttles per address silently and per caller address with 429', async () => {
    const u = await signup(t);
    await sender.tick();
    const before = smtp.to(u.email).length;
    for (let i = 0; i < 5; i++) {
      const r = await anon.from(`10.9.0.${i + 1}`).post('/api/v1/auth/password-reset', { email: u.email });
      expect(r.status).toBe(202);
    }
    await sender.tick();
    expect(smtp.to(u.email).length - before).toBe(3);
    const one = anon.from('10.9.9.9');
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push((await one.post('/api/v1/auth/password-reset', { email: `n${i}@mail.test` })).status);
    expect(answers.slice(0, 10).every((s) => s === 202)).toBe(true);
    expect(answers[10]).toBe(429);
  });
});

describe('address change', () => {
  it('confirms the new address with a link that works once and tells the old one', async () => {
    const u = await signup(t);
    await sender.tick();
    const wrong = await u.client.post('/api/v1/account/email', { new_email: 'moved@mail.test', current_password: 'not it at all' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details[0].field).toBe('current_password');
    const res = await u.client.post('/api/v1/account/email', { new_email: 'Moved@Mail.test', current_password: u.password });
    expect(res.status, res.text).toBe(202);
    await sender.tick();
    const [mail] = smtp.to('moved@mail.test');
    expect(mail!.subject).toBe('Confirm your email address for Credence');
    const token = linkToken(mail!, 'https://credence.test/confirm-email');
    const ok = await anon.post('/api/v1/auth/confirm-email', { token });
    expect(ok.body.data.address_changed).toBe(true);
    expect((await anon.post('/api/v1/auth/confirm-email', { token })).status).toBe(404);
    await sender.tick();
    const told = smtp.to(u.email).at(-1)!;
    expect(told.subject).toBe('The email address of your Credence account was changed');
    expect(told.text).not.toContain('moved@mail.test');
    await logIn('moved@mail.test', u.password);
    expect((await anon.post('/api/v1/auth/login', { email: u.email, password: u.password })).status).toBe(401);
  });
});

describe('delivery', () => {
  it('keeps every message through refused and dropped connections, and sends each once with one Message-ID', async () => {
    const before = smtp.received.length;
    const people = ['out-a', 'out-b', 'out-c'];
    for (const p of people) expect((await signUp(p, `${p}@mail.test`)).status).toBe(202);
    const rows = await t.runtime.deps.db.selectFrom('mail_outbox').select(['id', 'message_id', 'to_address']).where('to_address', 'like', 'out-%').execute();
    expect(rows).toHaveLength(3);

    smtp.mode = 'refuse';
    await sender.tick();
    smtp.mode = 'drop';
    t.clock.advance(10 * 60_000);
    await sender.tick();
    expect(smtp.received.length).toBe(before);
    const failing = await t.runtime.deps.db.selectFrom('mail_outbox').select(['attempts', 'status', 'next_attempt_at']).where('to_address', 'like', 'out-%').execute();
    expect(failing.every((r) => r.attempts === 2 && r.status === 'pending')).toBe(true);

    // Not due yet: nothing is tried before its backoff ends.
    smtp.mode = 'accept';
    expect(await sender.tick()).toBe(0);
    t.clock.advance(10 * 60_000);
    await sender.tick();
    await sender.tick();
    const got = smtp.received.slice(before);
    expect(got.map((m) => m.to).sort()).toEqual(people.map((p) => `${p}@mail.test`).sort());
    for (const r of rows) expect(got.find((m) => m.to === r.to_address)!.messageId).toBe(r.message_id);
    const done = await t.runtime.deps.db.selectFrom('mail_outbox').select(['status', 'facts']).where('to_address', 'like', 'out-%').execute();
    // Sent: the outbox forgets the links.
    expect(done).toEqual(rows.map(() => ({ status: 'sent', facts: '[]' })));
  });

  it('lets two senders share the outbox without sending anything twice', async () => {
    const before = smtp.received.length;
    for (let i = 0; i < 8; i++) expect((await signUp(`pair-${i}`, `pair-${i}@mail.test`)).status).toBe(202);
    const other = new MailSender(t.runtime.deps, { log: { error: () => {}, info: () => {} } });
    await Promise.all([sender.tick(), other.tick(), sender.tick(), other.tick()]);
    await other.stop();
    const got = smtp.received.slice(before).map((m) => m.to);
    expect(got.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `pair-${i}@mail.test`).sort());
  });
});
