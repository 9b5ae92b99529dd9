// The moderation verbs, run as real processes: `dsa:export --since DATE` writes the decisions as statements of
// reasons that pass the Transparency Database's rules; `withheld:forget` deletes text past its appeal window, and a
// second run finds none; `log:verify --transparency` recounts the DSA counts from a running service's log and
// compares them with what it publishes.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { validateStatement } from '../src/domain/moderation/dsa-rules.js';
import * as moderation from '../src/domain/moderation/moderation.service.js';
import { integrate } from '../src/domain/transparency/log.service.js';
import { Client } from './client.js';
import { contributorKey, publisher, signup } from './factories.js';
import { startTestApp, type TestApp } from './harness.js';
import { processEnv } from './process-env.js';
import { createAdmin } from '../src/domain/accounts/account.service.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');

let dir: string;
let env: Record<string, string>;
let open: () => Database;
let cleanup: () => Promise<void>;
let t: TestApp;

beforeAll(async () => {
  const p = await processEnv('cli-moderation');
  dir = p.dataDir;
  env = p.env;
  open = () => p.open();
  cleanup = p.cleanup;
  expect((await credence('migrate')).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await cleanup?.();
});

async function credence(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(TSX, [MAIN, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A decision restricting an account's profile summary, as the operators' page writes it, with its withheld text. */
async function seedDecision(db: Database, decidedAt: string, deleteAfter: string): Promise<number> {
  const now = decidedAt;
  const acct = await db.db
    .insertInto('accounts')
    .values({ email: `x${Date.now()}@cli.test`, username: `x${Date.now()}`, name: 'X', summary: 'Removed after a report', topics: '[]', password_hash: '', created_at: '2026-01-02T00:00:00.000Z', updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  const d = await db.db
    .insertInto('moderation_decisions')
    .values({
      item_kind: 'profile',
      item_id: acct.id,
      field: 'summary',
      type: 'restrict_field',
      category: 'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
      ground: 'incompatible',
      legal_reference: null,
      terms_clause: 't2',
      facts: 'The summary gave a neighbour’s home address.',
      automated: 0,
      operator_id: acct.id,
      affected_account_id: acct.id,
      page_id: null,
      appeal_of: null,
      decided_at: now,
      appeal_until: deleteAfter,
      log_seq: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.db.insertInto('withheld_texts').values({ decision_id: d.id, table_name: 'accounts', column_name: 'summary', row_id: acct.id, text: 'Lives at 12 Quay Street', delete_after: deleteAfter }).execute();
  return d.id;
}

describe('credence dsa:export', () => {
  it('writes each decision since the date as a statement the Transparency Database accepts', async () => {
    const db = open();
    try {
      await seedDecision(db, '2026-08-01T10:00:00.000Z', '2027-02-01T10:00:00.000Z');
    } finally {
      await db.close();
    }
    const file = path.join(dir, 'statements.json');
    const r = await credence('dsa:export', '--since', '2026-07-01', '--out', file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('1 statements of reasons since 2026-07-01');
    const { statements } = JSON.parse(fs.readFileSync(file, 'utf8')) as { statements: Record<string, unknown>[] };
    expect(statements).toHaveLength(1);
    expect(validateStatement(statements[0]!)).toEqual([]);
    expect(statements[0]).toMatchObject({ category: 'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS', incompatible_content_ground: 't2', content_date: '2026-01-02' });
    expect(JSON.stringify(statements)).not.toContain('Quay Street');
    const later = await credence('dsa:export', '--since', '2026-09-01');
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout)).toEqual({ statements: [] });
  });

  it('names a bad or missing date', async () => {
    const bad = await credence('dsa:export', '--since', 'last week');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('since');
    const none = await credence('dsa:export');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--since');
  });
});

describe('credence withheld:forget', () => {
  it('deletes withheld text past its appeal window, keeps the rest, and finds nothing the second time', async () => {
    const db = open();
    let kept: number;
    let expired: number;
    try {
      expired = await seedDecision(db, '2020-01-01T10:00:00.000Z', '2020-07-01T10:00:00.000Z');
      kept = await seedDecision(db, new Date().toISOString(), '2999-01-01T00:00:00.000Z');
    } finally {
      await db.close();
    }
    const first = await credence('withheld:forget');
    expect(first.code, first.stderr).toBe(0);
    // The decision of 2026-08 above is past its window too once 2027-02 has come: count what is past by then.
    expect(first.stdout).toMatch(/^[12] withheld texts? past the appeal window deleted; the freed space scrubbed/);
    const second = await credence('withheld:forget');
    expect(second.stdout).toContain('0 withheld texts past the appeal window deleted');
    const after = open();
    try {
      const rows = await after.db.selectFrom('withheld_texts').select(['decision_id', 'text']).execute();
      expect(rows.map((r) => r.decision_id)).toContain(kept);
      expect(rows.map((r) => r.decision_id)).not.toContain(expired);
    } finally {
      await after.close();
    }
  });
});

describe('credence log:verify --transparency', () => {
  it('recounts the counts from a running service’s log and finds they match what it publishes', async () => {
    t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
    const deps = t.runtime.deps;
    const pub = await publisher(t);
    const writer = await signup(t);
    const url = `https://${pub.domain}/counted`;
    expect((await pub.api.post('/api/v1/pages', { url, title: 'Counted', topic: 'politics' })).status).toBeLessThan(300);
    const sub = await new Client(t.baseUrl).as(await contributorKey(writer)).post('/api/v1/submissions', { url, role: 'review', summary: 'A review to report', evidence: { reason: 'read it', sources: ['https://archive.example/a'] } });
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
    const c = await deps.db.selectFrom('contributions').select('id').executeTakeFirstOrThrow();
    await createAdmin(deps, { email: 'ops@count.test', password: 'a very long password', username: 'counter', name: 'Ops' });
    const ops = (await deps.db.selectFrom('accounts').select('id').where('username', '=', 'counter').executeTakeFirstOrThrow()).id;
    for (const unfounded of [false, true]) {
      const r = await moderation.submitReport(deps, { item: { kind: 'contribution', id: c.id, field: 'summary' }, category: 'STATEMENT_CATEGORY_OTHER_VIOLATION_TC', explanation: 'Against the terms, plainly.', notifier_email: 'n@count.test', good_faith: true, locale: 'en' }, null);
      t.clock.advance(3_600_000);
      await moderation.decideReport(deps, ops, r.id, { type: 'no_action', ground: 'incompatible', terms_clause: 't4', facts: 'The review states what its sources say.', unfounded });
    }
    await integrate(deps);
    const r = await credence('log:verify', '--url', t.baseUrl, '--transparency');
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/transparency 20\d\d-H[12]: 2 decision entries; 2 reports, 2 decisions, 0 appeals decided: the published counts match/);
    expect(r.stdout).toContain('OK');
  }, 120_000);

  it('fails, naming the count, when the published counts differ from the log', async () => {
    const { recountTransparency, RecountFailure } = await import('../src/audit/transparency.js');
    const checkpoint = (await new Client(t.baseUrl).get('/v1/log/checkpoint')).text;
    const size = Number(checkpoint.split('\n')[1]);
    // A service that publishes one report more than its log holds.
    const lying: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).includes('/v1/transparency')) return res;
      const body = (await res.json()) as { reports: { total: number } };
      body.reports.total += 1;
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const failure = await recountTransparency({ url: t.baseUrl, size, fetch: lying, out: () => undefined }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RecountFailure);
    expect((failure as Error).message).toContain('reports.total: log 2, published 3');
  });

  it('needs --url', async () => {
    const r = await credence('log:verify', '--transparency', '--proof', 'x.tlog-proof', '--key', 'k', '--policy', 'p');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--transparency needs --url');
  });
});
