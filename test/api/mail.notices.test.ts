// Notices through a real SMTP server: they carry a one-click unsubscribe (RFC 8058) that works without
// signing in and turns only its kind off; turned-off kinds send nothing; notices about the same thing within a few
// minutes go as one mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailSender } from '../../src/jobs/mail.js';
import { publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { type ReceivedMail, TestSmtp } from '../smtp-server.js';

let t: TestApp;
let smtp: TestSmtp;
let sender: MailSender;

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

const headerLine = (m: ReceivedMail, key: string) => m.parsed.headerLines.find((h) => h.key === key)?.line;

/** The notices an address got (its sign-up's confirmation mail aside). */
const noticesTo = (email: string) => smtp.to(email).filter((m) => headerLine(m, 'list-unsubscribe-post'));

/** Past the joining window, then one pass of the sender. */
async function deliver(): Promise<void> {
  t.clock.advance(4 * 60_000);
  await sender.tick();
}

describe('notices', () => {
  it('joins notices about the same thing, and unsubscribes one kind with one click, signed out', async () => {
    const pub = await publisher(t);
    const person = await signup(t);
    const invite = (role: string) => pub.owner.client.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: person.username, role });
    expect((await invite('editor')).status).toBe(202);
    // Not sent at once: a notice waits for the next one about the same publication.
    await sender.tick();
    expect(noticesTo(person.email)).toHaveLength(0);
    expect((await invite('owner')).status).toBe(202);
    await deliver();
    const [mail, ...more] = noticesTo(person.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('2 updates: You are invited to a publication');
    expect(mail!.text).toContain(`@${pub.owner.username} invited you to The ${pub.slug} as editor.`);
    expect(mail!.text).toContain('as owner.');
    expect(mail!.html).toContain('invited you to');
    expect(headerLine(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const header = headerLine(mail!, 'list-unsubscribe')!;
    const url = /<(https:\/\/credence\.test\/unsubscribe\?token=[A-Za-z0-9_-]+)>/.exec(header)![1]!;

    // The one-click POST a mail client makes: no cookie, no CSRF token, the RFC 8058 body.
    const local = url.replace('https://credence.test', t.baseUrl);
    expect((await fetch(local)).status).toBe(200);
    const click = await fetch(local, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(click.status).toBe(200);
    const settings = await person.client.get('/api/v1/account/notices');
    expect(settings.body.data.filter((s: { enabled: boolean }) => !s.enabled).map((s: { kind: string }) => s.kind)).toEqual(['member_invitation']);

    // Turned off: the next invitation sends nothing.
    const other = await publisher(t);
    expect((await other.owner.client.post(`/api/v1/account/publishers/${other.slug}/members`, { username: person.username, role: 'editor' })).status).toBe(202);
    await deliver();
    expect(noticesTo(person.email)).toHaveLength(1);
  });

  it('joins a batch of decisions into one mail, and the next decision into it too', async () => {
    const pub = await publisher(t);
    const person = await signup(t);
    const pages = ['one', 'two', 'three', 'four'].map((p) => `https://${pub.domain}/batch/${p}`);
    expect((await pub.api.post('/api/v1/pages', pages.map((url) => ({ url, title: url, topic: 'health' })))).status).toBe(200);
    const ids: number[] = [];
    for (const url of pages) {
      const sub = await person.client.post('/api/v1/submissions', { url, role: 'review', summary: 'Read it', evidence: { reason: 'Checked', sources: [] } });
      expect(sub.status, sub.text).toBe(201);
      ids.push(sub.body.data.id);
    }
    const batch = await pub.api.post('/api/v1/submissions/decide', ids.slice(0, 3).map((id, k) => ({ submission_id: id, decision: k === 1 ? 'reject' : 'accept' })));
    expect(batch.status, batch.text).toBe(200);
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: ids[3], decision: 'accept' })).status).toBe(200);
    await deliver();
    const [mail, ...more] = noticesTo(person.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('4 updates: Your submission was decided');
    for (const url of pages) expect(mail!.text).toContain(url);
    expect(headerLine(mail!, 'list-unsubscribe')).toMatch(/<https:\/\/credence\.test\/unsubscribe\?token=[A-Za-z0-9_-]+>/);
  });

  it('sends nothing of a kind turned off through the API, and again once it is on', async () => {
    const pub = await publisher(t);
    const person = await signup(t);
    const off = await person.client.patch('/api/v1/account/notices', { member_invitation: false });
    expect(off.status, off.text).toBe(200);
    expect((await pub.owner.client.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: person.username, role: 'editor' })).status).toBe(202);
    await deliver();
    expect(noticesTo(person.email)).toHaveLength(0);
    expect((await person.client.patch('/api/v1/account/notices', { member_invitation: true })).status).toBe(200);
    expect((await pub.owner.client.post(`/api/v1/account/publishers/${pub.slug}/members`, { username: person.username, role: 'owner' })).status).toBe(202);
    await deliver();
    expect(noticesTo(person.email).map((m) => m.subject)).toEqual(['You are invited to a publication']);
  });

  it('tells of each kind: named on a page, a request taken and cancelled, a submission decided, a key expiring', async () => {
    const pub = await publisher(t);
    const person = await signup(t);
    const subjects = () => noticesTo(person.email).map((m) => m.subject);

    const url = `https://${pub.domain}/kinds/named`;
    const named = await pub.api.post('/api/v1/pages', [{ url, title: 'Named', topic: 'health', authors: [person.username] }]);
    expect(named.status, named.text).toBe(200);
    await deliver();
    expect(subjects()).toEqual(['A publication named you as an author']);
    expect(noticesTo(person.email)[0]!.text).toContain(`The ${pub.slug} named you as an author of ${url}.`);

    const open = async (path: string) => {
      const res = await pub.api.post('/api/v1/requests', { url: `https://${pub.domain}/kinds/${path}`, request_type: 'correction', topic: 'Health', title: 'Check', brief: 'Numbers' });
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as number;
    };
    const first = await open('cancelled');
    expect((await person.client.post(`/api/v1/review-requests/${first}/take`)).status).toBe(200);
    await deliver();
    const toOwner = noticesTo(pub.owner.email).filter((m) => m.subject === 'A specialist took your request');
    expect(toOwner).toHaveLength(1);
    expect(toOwner[0]!.text).toContain(`@${person.username} took the request about https://${pub.domain}/kinds/cancelled.`);
    expect((await pub.api.post(`/api/v1/requests/${first}/cancel`)).status).toBe(200);
    await deliver();
    expect(subjects().at(-1)).toBe('A request you took was cancelled');

    const second = await open('decided');
    expect((await person.client.post(`/api/v1/review-requests/${second}/take`)).status).toBe(200);
    const sub = await person.client.post('/api/v1/submissions', { request_id: second, summary: 'Fixed', evidence: { before: 'It fell to 70%.', after: 'It fell to 79%.', reason: 'The table says 79%.', sources: ['https://data.example/t'] } });
    expect(sub.status, sub.text).toBe(201);
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'reject', note: 'Too thin' })).status).toBe(200);
    await deliver();
    expect(subjects().at(-1)).toBe('Your submission was decided');
    expect(noticesTo(person.email).at(-1)!.text).toContain('was rejected.');

    const key = await person.client.post('/api/v1/account/api-keys', { name: 'short-lived', publisher: null, expires_in_days: 5 });
    expect(key.status, key.text).toBe(201);
    await sender.tick();
    await deliver();
    // Told once, however often the sweep runs.
    await sender.tick();
    await deliver();
    expect(subjects().filter((s) => s === 'An API key expires in 7 days')).toHaveLength(1);
    expect(noticesTo(person.email).at(-1)!.text).toContain('Your API key “short-lived” expires on');
  });

  it('refuses a made-up unsubscribe link, and a bad settings body names the field', async () => {
    const person = await signup(t);
    expect((await fetch(`${t.baseUrl}/unsubscribe?token=made-up-token-123`, { method: 'POST' })).status).toBe(404);
    const bad = await person.client.patch('/api/v1/account/notices', { no_such_kind: false });
    expect(bad.status).toBe(400);
  });
});
