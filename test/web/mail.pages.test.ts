// The pages mail links to, as a person uses them over HTTP (through a real SMTP server): sign up and
// confirm; "Forgot your password?" from the log-in page to a new password; address and notice settings on /me/mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailSender } from '../../src/jobs/mail.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { linkToken, TestSmtp } from '../smtp-server.js';
import { FormClient } from './browser-client.js';

let t: TestApp;
let smtp: TestSmtp;
let sender: MailSender;
const PASSWORD = 'long enough password';

beforeAll(async () => {
  smtp = await TestSmtp.start();
  t = await startTestApp({ smtpUrl: smtp.url });
  sender = new MailSender(t.runtime.deps, { log: { error: () => {}, info: () => {} } });
});
afterAll(async () => {
  await sender?.stop();
  await t?.close();
  await smtp?.close();
});

const local = (url: string) => url.replace('https://credence.test', '');

describe('the mail pages', () => {
  it('sign up, confirm from the mailed link, forget the password and choose a new one', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    expect((await b.post('/signup', { name: 'Pat', username: 'pat-web', email: 'pat@web.test', password: PASSWORD })).status).toBe(303);
    expect((await b.post('/login?next=/me', { email: 'pat@web.test', password: PASSWORD })).status).toBe(303);
    expect((await b.get('/me')).text).toContain('Confirm your email address');
    await sender.tick();
    const token = linkToken(smtp.to('pat@web.test')[0]!, 'https://credence.test/confirm-email');
    const page = await b.get(`/confirm-email?token=${token}`);
    expect(page.status).toBe(200);
    // It names the address and the account it confirms, and no cache keeps it.
    expect(page.text).toContain('Confirm <strong>pat@web.test</strong> for the Credence account <strong>pat-web</strong>.');
    expect(page.text).toContain('Confirm pat@web.test</button>');
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const done = await b.post('/confirm-email', { token });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/email-confirmed');
    expect((await b.get(done.location!)).text).toContain('Address confirmed');
    await b.get('/me');
    expect((await b.post('/confirm-email', { token })).status).toBe(404);
    // A used link says so before any click.
    expect((await b.get(`/confirm-email?token=${token}`)).text).toContain('This confirmation link is used, expired or incomplete.');
    expect((await b.get('/me')).text).not.toContain('Confirm your email address');

    const other = new FormClient(t.baseUrl);
    expect((await other.get('/login')).text).toContain('href="/forgot-password"');
    await other.get('/forgot-password');
    const asked = await other.post('/forgot-password', { email: 'pat@web.test' });
    expect(asked.status).toBe(202);
    await other.get('/forgot-password');
    const unknown = await other.post('/forgot-password', { email: 'nobody@web.test' });
    expect(unknown.status).toBe(202);
    expect(unknown.text.replace(/name="_csrf" value="[^"]+"/g, '')).toBe(asked.text.replace(/name="_csrf" value="[^"]+"/g, ''));
    await sender.tick();
    const reset = smtp.to('pat@web.test').at(-1)!;
    expect(reset.subject).toBe('Reset your Credence password');
    const url = /https:\/\/credence\.test\/reset-password\?token=[A-Za-z0-9_-]+/.exec(reset.text)![0];
    const form = await other.get(local(url));
    expect(form.status).toBe(200);
    const set = await other.post('/reset-password', { token: linkToken(reset, 'https://credence.test/reset-password'), password: 'a new long password' });
    expect(set.status).toBe(200);
    expect(set.text).toContain('Password changed');
    // Every session ended, the first browser's included.
    expect((await b.get('/me')).status).toBe(303);
    expect((await other.get(local(url))).status).toBe(404);
    expect((await new Client(t.baseUrl).post('/api/v1/auth/login', { email: 'pat@web.test', password: 'a new long password' })).status).toBe(200);
  });

  it('turns notice kinds off and on, and asks for an address change, on /me/mail', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Sam', username: 'sam-web', email: 'sam@web.test', password: PASSWORD });
    await b.post('/login', { email: 'sam@web.test', password: PASSWORD });
    const page = await b.get('/me/mail');
    expect(page.status).toBe(200);
    expect(page.text).toContain('sam@web.test');
    expect(page.text.match(/name="on" value="[a-z_]+" checked/g)).toHaveLength(9);
    const saved = await b.post('/me/mail/notices', { on: ['named_on_page', 'author_link', 'submission_decided', 'take_cancelled', 'request_taken', 'domain_moved', 'member_invitation', 'api_key_expiring'] });
    expect(saved.location).toBe('/me/mail?done=saved');
    const api = new Client(t.baseUrl).as(b.cookie('credence_session')!);
    const settings = (await api.get('/api/v1/account/notices')).body.data as { kind: string; enabled: boolean }[];
    expect(settings.filter((s) => !s.enabled).map((s) => s.kind)).toEqual(['webhook_disabled']);

    await b.get('/me/mail');
    const wrong = await b.post('/me/mail/address', { new_email: 'sam2@web.test', current_password: 'not my password' });
    expect(wrong.status).toBe(400);
    await b.get('/me/mail');
    expect((await b.post('/me/mail/address', { new_email: 'sam2@web.test', current_password: PASSWORD })).location).toBe('/me/mail?done=moving');
    await sender.tick();
    expect(smtp.to('sam2@web.test').map((m) => m.subject)).toEqual(['Confirm your email address for Credence']);
  });

  it('keeps /me/mail to its signed-in owner, and its forms to this site', async () => {
    const anon = new FormClient(t.baseUrl);
    const page = await anon.get('/me/mail');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toContain('/login');
    const b = new FormClient(t.baseUrl);
    await b.get('/signup');
    await b.post('/signup', { name: 'Kim', username: 'kim-web', email: 'kim@web.test', password: PASSWORD });
    await b.post('/login', { email: 'kim@web.test', password: PASSWORD });
    await b.get('/me/mail');
    for (const path of ['/me/mail/notices', '/me/mail/address', '/me/mail/confirmation']) {
      expect((await b.post(path, {}, { csrf: 'wrong-token-wrong-token-wrong-token' })).status).toBe(403);
      expect((await b.post(path, {}, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    }
    await anon.get('/login');
    expect((await anon.post('/me/mail/notices', { on: [] })).status).toBe(303);
  });

  it('asks before unsubscribing, and refuses a made-up link', async () => {
    const b = new FormClient(t.baseUrl);
    expect((await b.get('/unsubscribe?token=made-up-token-1234')).status).toBe(404);
    expect((await b.get('/reset-password?token=made-up-token-1234')).status).toBe(404);
  });
});
