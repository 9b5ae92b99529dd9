// Mail delivery, run by `credence serve`: sends the mail outbox (domain/mail) through nodemailer. Safe to run in
// several processes at once: each message is claimed with a lease (one process sends it at a time), and a message
// whose sender died is claimed again when its lease runs out (on SQLite, which serves one process, at start).
// A failed attempt (the server refusing, dropping the connection, timing out) is retried with backoff; every attempt
// sends the same Message-ID, so a copy the server took just before a crash is recognisably the same message.
//
// Without SMTP_URL nothing is sent anywhere: each message is written as an .eml file under DATA_DIR/mail/ (named by
// its outbox id, so a retry overwrites it) and its subject and link are logged.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { noticeExpiringKeys } from '../domain/api-keys/api-key.service.js';
import type { Deps } from '../domain/deps.js';
import { isNoticeKind, type Locale, type MailKind } from '../domain/mail/mail.kinds.js';
import { type Fact, render } from '../domain/mail/mail.messages.js';
import * as store from '../domain/mail/mail.store.js';
import { pollEvery, type Poller } from './poll.js';

export interface MailLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** One finished message, ready for the wire. */
export interface OutgoingMail {
  id: number;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  date: Date;
  headers: Record<string, string>;
  /** For the log line of a file transport. */
  link: string | null;
  kind: string;
}

/** Where messages go: an SMTP server, or files. Throws when the message was not taken. */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

const SMTP_TIMEOUT_MS = 10_000;

export function smtpTransport(url: string): MailTransport {
  const transporter = nodemailer.createTransport(url, {
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  } as never);
  return {
    async send(m) {
      await transporter.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, date: m.date, headers: m.headers });
    },
    close: () => transporter.close(),
  };
}

/** More messages than this written within one second are logged as one line (the demo's notices at start). */
const FILE_LOG_BURST = 3;

/**
 * The development default: each message an .eml file under `dir`, its plain text beside it (`.txt`), and a log line
 * with its subject and link, whole. The .eml's text part is quoted-printable (nodemailer insists on it for lines over
 * 76 characters, whatever encoding it is asked for), which breaks a long link with `=` soft line breaks: the .txt
 * holds the link whole, to copy. A burst of notices (the demo's hundreds at start) is one line; mail about an account
 * itself (confirm, reset) is always a line of its own.
 */
export function fileTransport(dir: string, log: MailLog): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let burst: { subject: string; link: string | null; file: string; mailId: number; notice: boolean }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const written = burst;
    burst = [];
    const notices = written.filter((w) => w.notice);
    const summarised = notices.length > FILE_LOG_BURST;
    if (summarised) log.info({ count: notices.length, dir }, `${notices.length} notices written to ${dir} (no SMTP_URL)`);
    // The subject and link only: the address is private and stays in the file.
    for (const { notice, ...w } of written) if (!(notice && summarised)) log.info(w, 'mail written (no SMTP_URL)');
  };
  return {
    async send(m) {
      const info = await transporter.sendMail({
        from: m.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId: m.messageId,
        date: m.date,
        headers: m.headers,
      });
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${String(m.id).padStart(8, '0')}-${m.kind}.eml`);
      // Written whole, then renamed: a reader never sees half a message, and a retry replaces the file.
      await fs.writeFile(`${file}.tmp`, info.message as Buffer);
      await fs.rename(`${file}.tmp`, file);
      // The text as written, each link whole on its line (the .eml's quoted-printable breaks long ones).
      await fs.writeFile(file.replace(/\.eml$/, '.txt'), m.text);
      burst.push({ mailId: m.id, subject: m.subject, link: m.link, file, notice: isNoticeKind(m.kind) });
      timer ??= setTimeout(flush, 1_000).unref();
    },
    close: () => {
      if (timer) clearTimeout(timer);
      flush();
    },
  };
}

export interface MailSenderOptions {
  pollMs?: number;
  /** Messages sent at once by this process. */
  concurrency?: number;
  /** How long a claim lasts; longer than one attempt can take (three SMTP timeouts). */
  leaseMs?: number;
  transport?: MailTransport;
  instanceId?: string;
  log?: MailLog;
  random?: () => number;
}

/** Attempts before a message is given up (about two days with the backoff below). */
export const MAX_ATTEMPTS = 15;
const BASE_DELAY_MS = 30_000;
const MAX_DELAY_MS = 6 * 3_600_000;
/** Sent and given-up rows are kept this long (the outbox keeps no link once sent). */
const RETENTION_DAYS = 30;
const KEY_SWEEP_MS = 5 * 60_000;

/** The wait before attempt `attempts + 1`: doubling from 30 s up to 6 hours, with up to a fifth of jitter. */
export function retryDelayMs(attempts: number, random: () => number): number {
  const base = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (1 + 0.2 * random()));
}

/** A refusal that retrying cannot fix: the server rejected the recipient or the message for good (5xx). */
function permanent(err: unknown): boolean {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

export class MailSender {
  private readonly transport: MailTransport;
  private readonly instanceId: string;
  private readonly log: MailLog;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly random: () => number;
  private readonly pollMs: number;
  private poller: Poller | null = null;
  private running: Promise<number> | null = null;
  private lastPrune = 0;
  private lastKeySweep = 0;
  private ticking = false;

  constructor(
    private readonly deps: Deps,
    opts: MailSenderOptions = {},
  ) {
    this.log = opts.log ?? { error: (o, m) => console.error(m, o), info: () => {} };
    this.transport = opts.transport ?? (deps.config.smtpUrl ? smtpTransport(deps.config.smtpUrl) : fileTransport(path.join(deps.config.dataDir, 'mail'), this.log));
    this.instanceId = opts.instanceId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.concurrency = opts.concurrency ?? 4;
    this.random = opts.random ?? Math.random;
    this.pollMs = opts.pollMs ?? 1000;
  }

  start(): void {
    if (this.poller) return;
    const begin = this.deps.dialect === 'sqlite' ? store.clearLeases(this.deps.db).catch((err: unknown) => this.log.error({ err }, 'mail: clearing leases failed')) : Promise.resolve();
    void begin.then(() => {
      this.poller = pollEvery(this.pollMs, () => this.pass());
    });
  }

  async stop(): Promise<void> {
    this.poller?.stop();
    await this.running;
    this.transport.close();
  }

  /** One pass now (tests drive it with their clock): sends every message due; resolves with how many it tried. */
  async tick(): Promise<number> {
    while (this.running) await this.running;
    this.ticking = true;
    try {
      // Notices the sweep queues wait out their joining window, so a tick sends what was due before it.
      return await this.pass();
    } finally {
      this.ticking = false;
    }
  }

  private pass(): Promise<number> {
    this.running ??= this.sendDue()
      .catch((err: unknown) => {
        this.log.error({ err }, 'mail pass failed; retrying at the next pass');
        return 0;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async sendDue(): Promise<number> {
    let tried = 0;
    for (;;) {
      const now = this.deps.clock.now();
      const ids = await store.dueMail(this.deps.db, now.toISOString(), this.concurrency * 4, []);
      if (ids.length === 0) break;
      let claimed = 0;
      const queue = [...ids];
      const worker = async () => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
          const at = this.deps.clock.now();
          if (!(await store.claimMail(this.deps.db, id, this.instanceId, at.toISOString(), new Date(at.getTime() + this.leaseMs).toISOString()))) continue;
          claimed++;
          await this.attempt(id);
        }
      };
      await Promise.all(Array.from({ length: this.concurrency }, worker));
      tried += claimed;
      // Nothing claimed: the rest is another process's.
      if (claimed === 0) break;
    }
    await this.pruneNowAndThen();
    await this.expiringKeysNowAndThen();
    return tried;
  }

  private async attempt(id: number): Promise<void> {
    const db = this.deps.db;
    const row = await store.mailById(db, id);
    if (!row || row.lease_owner !== this.instanceId) return;
    const account = await db.selectFrom('accounts').select(['username', 'name']).where('id', '=', row.account_id).executeTakeFirst();
    if (!account) return;
    const facts = JSON.parse(row.facts) as Fact[];
    const siteUrl = this.deps.config.siteUrl;
    const unsubscribeToken = isNoticeKind(row.kind) ? facts[0]?.unsubscribe : null;
    const unsubscribeUrl = unsubscribeToken ? `${siteUrl}/unsubscribe?token=${String(unsubscribeToken)}` : null;
    const r = render({ kind: row.kind as MailKind, locale: row.locale as Locale, siteUrl, username: account.username, name: account.name, facts, unsubscribeUrl });
    const headers: Record<string, string> = { 'Content-Language': row.locale };
    if (unsubscribeUrl) {
      // RFC 8058: a POST to this address with `List-Unsubscribe=One-Click` turns this kind off, no sign-in.
      headers['List-Unsubscribe'] = `<${unsubscribeUrl}>`;
      headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
    } else {
      headers['Auto-Submitted'] = 'auto-generated';
    }
    const mail: OutgoingMail = {
      id,
      from: this.deps.config.mailFrom,
      to: row.to_address,
      subject: r.subject,
      text: r.text,
      html: r.html,
      messageId: row.message_id,
      date: new Date(row.created_at),
      headers,
      link: r.link,
      kind: row.kind,
    };
    try {
      await this.transport.send(mail);
    } catch (err) {
      const attempts = row.attempts + 1;
      const giveUp = permanent(err) || attempts >= MAX_ATTEMPTS;
      const next = new Date(this.deps.clock.now().getTime() + retryDelayMs(attempts, this.random)).toISOString();
      await store.markFailed(db, id, this.instanceId, { attempts, next_attempt_at: next, last_error: String((err as Error).message ?? err), give_up: giveUp });
      // An SMTP answer may quote the recipient; log lines carry no address.
      const reason = String((err as Error).message ?? err).replace(/[^\s<>"'@]+@[^\s<>"'@]+/g, '<address>');
      this.log.error({ mailId: id, attempts, giveUp, err: reason }, giveUp ? 'mail given up' : 'mail attempt failed; will retry');
      return;
    }
    await store.markSent(db, id, this.instanceId, this.deps.clock.now().toISOString());
  }

  /** Keys about to expire are looked for every few minutes (and at every tick() of a test). */
  private async expiringKeysNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.lastKeySweep < KEY_SWEEP_MS && !this.ticking) return;
    this.lastKeySweep = now;
    const told = await noticeExpiringKeys(this.deps);
    if (told > 0) this.log.info({ told }, 'owners of API keys expiring within 7 days were told');
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < 3_600_000) return;
    this.lastPrune = now;
    await store.pruneSent(this.deps.db, new Date(this.deps.clock.now().getTime() - RETENTION_DAYS * 86_400_000).toISOString());
  }
}

/** The sender of `credence serve`: started at once, stopped at shutdown. */
export function startMailSender(deps: Deps, opts: MailSenderOptions = {}): MailSender {
  const sender = new MailSender(deps, opts);
  sender.start();
  return sender;
}
