// The job `serve` runs for withheld text: nothing is deleted while the appeal window is open or an appeal waits;
// once it has closed, one pass deletes the text and a second (or a second process at once) finds nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { startWithheldExpiry } from '../../src/jobs/withheld-expiry.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let ops: number;
let author: number;
const contributions: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const deps = t.runtime.deps;
  const pub = await publisher(t);
  const writer = await signup(t);
  const key = await contributorKey(writer);
  for (const n of [1, 2]) {
    const url = `https://${pub.domain}/kept-${n}`;
    expect((await pub.api.post('/api/v1/pages', { url, title: `Kept ${n}`, topic: 'politics' })).status).toBeLessThan(300);
    const sub = await new Client(t.baseUrl).as(key).post('/api/v1/submissions', { url, role: 'review', summary: `Private detail number ${n}`, evidence: { reason: 'read it', sources: ['https://archive.example/a'] } });
    expect((await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'ok' })).status).toBe(200);
  }
  contributions.push(...(await deps.db.selectFrom('contributions').select('id').orderBy('id').execute()).map((r) => r.id));
  await createAdmin(deps, { email: 'ops@expiry.test', password: 'a very long password', username: 'expiry-ops', name: 'Ops' });
  ops = (await deps.db.selectFrom('accounts').select('id').where('username', '=', 'expiry-ops').executeTakeFirstOrThrow()).id;
  author = (await deps.db.selectFrom('accounts').select('id').where('username', '=', writer.username).executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

const withheld = async () => (await t.runtime.deps.db.selectFrom('withheld_texts').select(['decision_id', 'text']).execute()).map((r) => r.decision_id);

describe('the withheld-text expiry job', () => {
  it('deletes only what is past the window with no appeal waiting, once', async () => {
    const deps = t.runtime.deps;
    const decisions: number[] = [];
    for (const id of contributions) {
      const r = await moderation.submitReport(deps, { item: { kind: 'contribution', id, field: 'summary' }, category: 'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS', explanation: 'It gives a private detail.', good_faith: true, locale: 'en' }, null);
      decisions.push((await moderation.decideReport(deps, ops, r.id, { type: 'restrict_field', ground: 'incompatible', terms_clause: 't2', facts: 'The summary gives a private detail of a person.' })).id);
    }
    const job = startWithheldExpiry(deps, { pollMs: 3_600_000 });
    try {
      expect(await job.tick()).toBe(0);
      // An appeal on the second decision, made on its last day, waits past the window.
      t.clock.advanceDays(180);
      await moderation.appeal(deps, author, decisions[1]!, 'The detail was public already, in the minutes.');
      t.clock.advanceDays(10);
      const [a, b] = await Promise.all([job.tick(), job.tick()]);
      expect(a + b).toBeGreaterThan(0);
      expect(await withheld()).toEqual(expect.not.arrayContaining([decisions[0]]));
      expect(await withheld()).toContain(decisions[1]);
      expect(await job.tick()).toBe(0);
    } finally {
      await job.stop();
    }
  });
});
