// Mail, as only a process shows it: `serve` killed (SIGKILL) while its messages are on the wire, restarted while
// the SMTP server still refuses connections; when the server takes mail again every message arrives exactly once,
// with the Message-ID it was given when written. Run once, on PostgreSQL, by whoever changes the mail path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { Client } from './client.js';
import { processEnv, type ProcessEnv } from './process-env.js';
import { killHard, type ServeProcess, startServe } from './serve-process.js';
import { TestSmtp } from './smtp-server.js';

let p: ProcessEnv;
let smtp: TestSmtp;
let db: Database;
let serve: ServeProcess | null = null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

beforeAll(async () => {
  smtp = await TestSmtp.start();
  p = await processEnv('mail', { SMTP_URL: smtp.url, MAIL_FROM: 'no-reply@credence.test', RATE_LIMIT_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'warn', SITE_URL: 'https://credence.test' });
  db = p.open();
}, 60_000);

afterAll(async () => {
  if (serve) await killHard(serve);
  await db?.close();
  await p?.cleanup();
  await smtp?.close();
});

describe('mail across a crash and an SMTP outage', () => {
  it('delivers every message once after serve is killed mid-send and the server refuses for a while', async () => {
    serve = await startServe(p.env);
    const client = new Client(`http://127.0.0.1:${serve.port}`, '127.0.0.1');
    // The server takes each message's data and holds its answer: the messages are on the wire when serve dies.
    smtp.mode = 'hold';
    const people = Array.from({ length: 6 }, (_, i) => `crash-${i}@mail.test`);
    for (const [i, email] of people.entries()) {
      const res = await client.post('/api/v1/auth/signup', { email, password: 'correct horse battery', name: `P${i}`, username: `crash-mail-${i}` });
      expect(res.status, res.text).toBe(202);
    }
    await until('messages on the wire', () => smtp.holding >= 1, 20_000);
    await killHard(serve);
    serve = null;
    smtp.dropHeld();
    expect(smtp.received).toHaveLength(0);

    // Back up while the SMTP server refuses: what is not leased by the dead process is tried and fails.
    smtp.mode = 'refuse';
    serve = await startServe(p.env);
    await until(
      'a refused attempt',
      async () => (await db.db.selectFrom('mail_outbox').select('id').where('attempts', '>', 0).where('status', '=', 'pending').execute()).length > 0,
      20_000,
    );
    smtp.mode = 'accept';
    // Leases of the dead process run out (60 s), retries come due (30 s): everything arrives.
    await until('every message', () => new Set(smtp.received.map((m) => m.to)).size === people.length, 150_000);
    await sleep(2000);
    const rows = await db.db.selectFrom('mail_outbox').select(['to_address', 'message_id', 'status']).execute();
    expect(rows.map((r) => r.status)).toEqual(people.map(() => 'sent'));
    expect(smtp.received.map((m) => m.to).sort()).toEqual([...people].sort());
    for (const r of rows) expect(smtp.to(r.to_address).map((m) => m.messageId)).toEqual([r.message_id]);
  }, 240_000);
});
