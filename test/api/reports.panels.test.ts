// A panel statement can be reported (its question) and restricted like any other item: the question leaves every
// version, the statement's page and its JSON, the panels' list, search, the stored events and the log's openings;
// the export's content_date is the statement's own date; reversing the decision puts it back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as moderation from '../../src/domain/moderation/moderation.service.js';
import { dsaExport } from '../../src/domain/moderation/dsa-export.js';
import { validateStatement } from '../../src/domain/moderation/dsa-rules.js';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, statementBody, type TestAdmin, versionBody } from './panels.fixtures.js';

const QUESTION = 'Is the harbour water at Quay Seven poisoned by the mayor’s company?';
let t: TestApp;
let opsA: TestAdmin;
let opsB: TestAdmin;
let slug: string;
let statementId: number;
let decisionId: number;
const anon = () => new Client(t.baseUrl);

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  opsA = await makeAdmin(t);
  opsB = await makeAdmin(t);
  const body = statementBody({ question: QUESTION });
  slug = body.id;
  expect((await opsA.client.post('/api/v1/admin/panels', body)).status).toBe(201);
  const next = await opsA.client.post(`/api/v1/admin/panels/${slug}/versions`, versionBody(body, { vote: { agree: 3, dissent: 2 }, panel: [...body.panel.slice(0, 3), { name: 'Dr. Ruth Okonkwo', role: 'member', vote: 'dissent' }, body.panel[4]] }));
  expect(next.status, next.text).toBe(201);
  statementId = (await t.runtime.deps.db.selectFrom('panel_statements').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
});
afterAll(async () => t?.close());

const reads = async () => {
  const out: [string, string][] = [];
  for (const u of [`/panels/${slug}`, '/panels', `/v1/panels/${slug}`, `/v1/panels/${slug}?version=1`, `/v1/search?q=harbour&type=panel`, '/v1/log/entries?start=0&limit=1000', '/v1/changes?limit=500']) {
    const res = await anon().get(u, { headers: { accept: u.startsWith('/v1') ? 'application/json' : 'text/html' } });
    expect(res.status, u).toBe(200);
    out.push([u, res.text]);
  }
  return out;
};

describe('a report of a panel statement’s question', () => {
  it('is linked from the statement’s page and taken', async () => {
    const page = await anon().get(`/panels/${slug}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain(`/report?item=panel:${statementId}:question`);
    const res = await anon().post('/v1/reports', { item: `panel:${statementId}:question`, category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', explanation: 'The question accuses a company of poisoning.', good_faith: true });
    expect(res.status, res.text).toBe(201);
  });

  it('restricted, leaves no public answer holding the question, and the log verifies its proofs still', async () => {
    for (const [u, text] of await reads()) if (!u.includes('log') && !u.includes('changes')) expect(text, u).toContain('Quay Seven');
    const report = await t.runtime.deps.db.selectFrom('reports').select('id').executeTakeFirstOrThrow();
    decisionId = (await moderation.decideReport(t.runtime.deps, opsA.id, report.id, { type: 'restrict_field', ground: 'illegal', legal_reference: 'Loi du 29 juillet 1881, art. 29', facts: 'The question presents an accusation as settled.' })).id;
    await integrate(t.runtime.deps);
    for (const [u, text] of await reads()) expect(text, u).not.toContain('Quay Seven');
    const payloads = await t.runtime.deps.db.selectFrom('events').select('payload').execute();
    for (const p of payloads) expect(p.payload).not.toContain('Quay Seven');
    const versions = await t.runtime.deps.db.selectFrom('panel_versions').select('question').where('statement_id', '=', statementId).execute();
    expect(versions.every((v) => v.question.startsWith('Removed after a report'))).toBe(true);
  });

  it('exports with the statement’s own date as content_date', async () => {
    const [s] = await dsaExport(t.runtime.deps, '2020-01-01');
    expect(validateStatement(s!)).toEqual([]);
    const created = (await t.runtime.deps.db.selectFrom('panel_statements').select('created_at').where('id', '=', statementId).executeTakeFirstOrThrow()).created_at;
    expect(s!.content_date).toBe(created.slice(0, 10));
  });

  it('comes back when another operator reverses the decision', async () => {
    const { id } = await moderation.appealByLink(t.runtime.deps, decisionId, 'no-such-token', 'x'.repeat(20)).catch(() => ({ id: 0 }));
    expect(id).toBe(0);
    const opsAId = opsA.id;
    // Panels belong to no account: the operators' own appeal path is the queue; an appeal row stands in for a notifier's.
    const appeal = await t.runtime.deps.db.insertInto('appeals').values({ decision_id: decisionId, account_id: null, appellant: 'notifier', explanation: 'The question only asks.', created_at: t.clock.now().toISOString() }).returning('id').executeTakeFirstOrThrow();
    await expect(moderation.decideAppeal(t.runtime.deps, opsAId, appeal.id, { outcome: 'reversed', facts: 'Same operator, refused.' })).rejects.toMatchObject({ code: 'forbidden' });
    await moderation.decideAppeal(t.runtime.deps, opsB.id, appeal.id, { outcome: 'reversed', facts: 'A question asks; it states nothing as settled.' });
    const page = await anon().get(`/panels/${slug}`, { headers: { accept: 'text/html' } });
    expect(page.text).toContain('Quay Seven');
  });
});
