// Without SMTP_URL nothing is sent anywhere: each message is an .eml file under DATA_DIR/mail/ and a log
// line names its subject and link, never the address. And a recipient the SMTP server refuses for good (5xx) is
// given up at once, with no address in the log line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTransport, MailSender, smtpTransport } from '../../src/jobs/mail.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { TestSmtp } from '../smtp-server.js';

let t: TestApp;
let dir: string;
const lines: { obj: Record<string, unknown>; msg: string }[] = [];
const log = { error: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }), info: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }) };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-mail-'));
  t = await startTestApp({ dataDir: dir });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('mail without SMTP_URL', () => {
  it('writes each message as an .eml file and logs its subject and link, not its address', async () => {
    const sender = new MailSender(t.runtime.deps, { log });
    const res = await new Client(t.baseUrl).post('/api/v1/auth/signup', { email: 'file@mail.test', password: 'correct horse battery', name: 'F', username: 'file-person' });
    expect(res.status).toBe(202);
    await sender.tick();
    await sender.tick();
    const files = fs.readdirSync(path.join(dir, 'mail'));
    expect(files.sort()).toHaveLength(2);
    expect(files[0]).toMatch(/^\d{8}-confirm_address\.eml$/);
    expect(files[1]).toBe(files[0]!.replace(/\.eml$/, '.txt'));
    const parsed = await simpleParser(fs.readFileSync(path.join(dir, 'mail', files[0]!)));
    expect(parsed.to && 'text' in parsed.to ? parsed.to.text : '').toBe('file@mail.test');
    expect(parsed.subject).toBe('Confirm your email address for Credence');
    expect(parsed.text).toContain('https://credence.test/confirm-email?token=');
    expect(typeof parsed.html).toBe('string');
    // The link is whole in the file itself (no quoted-printable soft breaks), so it can be copied from a terminal.
    const raw = fs.readFileSync(path.join(dir, 'mail', files[0]!), 'utf8');
    const link = /https:\/\/credence\.test\/confirm-email\?token=[A-Za-z0-9_-]+/.exec(parsed.text ?? '')?.[0];
    expect(link).toBeDefined();
    // The .eml's text part breaks it (quoted-printable); the .txt beside it holds it whole, on its own line.
    expect(raw).toContain('confirm-email');
    const text = fs.readFileSync(path.join(dir, 'mail', files[1]!), 'utf8');
    expect(text.split('\n')).toContain(`Confirm this address: ${link!}`);
    await sender.stop();
    const line = lines.find((l) => l.msg === 'mail written (no SMTP_URL)')!;
    expect(line.obj.subject).toBe('Confirm your email address for Credence');
    expect(line.obj.link).toBe(link);
    expect(JSON.stringify(lines)).not.toContain('file@mail.test');
  });

  it('logs a burst of notices (the demo’s, at start) as one line, and mail about an account on its own line', async () => {
    const out: { obj: Record<string, unknown>; msg: string }[] = [];
    const transport = fileTransport(path.join(dir, 'burst'), { error: () => {}, info: (obj, msg) => out.push({ obj: obj as Record<string, unknown>, msg }) });
    const mail = (id: number, kind: string, link: string | null) => ({
      id, kind, link, from: 'Credence <no-reply@credence.test>', to: `p${id}@mail.test`, subject: `Subject ${id}`, text: `Hello\n${link ?? ''}`, html: '<p>Hello</p>',
      messageId: `<m${id}@credence.test>`, date: new Date(), headers: {},
    });
    for (let i = 1; i <= 5; i++) await transport.send(mail(i, 'named_on_page', 'https://credence.test/me/names'));
    await transport.send(mail(6, 'confirm_address', 'https://credence.test/confirm-email?token=abc'));
    transport.close();
    expect(out.map((l) => l.msg)).toEqual([`5 notices written to ${path.join(dir, 'burst')} (no SMTP_URL)`, 'mail written (no SMTP_URL)']);
    expect(out[1]!.obj.link).toBe('https://credence.test/confirm-email?token=abc');
    expect(JSON.stringify(out)).not.toContain('@mail.test');
  });

  it('gives up a recipient the server refuses for good, and logs no address', async () => {
    const smtp = await TestSmtp.start();
    const sender = new MailSender(t.runtime.deps, { log, transport: smtpTransport(smtp.url) });
    try {
      smtp.mode = 'reject';
      lines.length = 0;
      expect((await new Client(t.baseUrl).post('/api/v1/auth/signup', { email: 'gone@mail.test', password: 'correct horse battery', name: 'G', username: 'gone-person' })).status).toBe(202);
      await sender.tick();
      const row = await t.runtime.deps.db.selectFrom('mail_outbox').select(['status', 'attempts', 'facts']).where('to_address', '=', 'gone@mail.test').executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'failed', attempts: 1, facts: '[]' });
      expect(lines.map((l) => l.msg)).toEqual(['mail given up']);
      expect(JSON.stringify(lines)).not.toContain('gone@mail.test');
      expect(String(lines[0]!.obj.err)).toContain('<address>');
    } finally {
      await sender.stop();
      await smtp.close();
    }
  });
});
