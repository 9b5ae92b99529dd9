// The change log: every public change appends one immutable entry in its own transaction; seq is
// gapless from 1 and the body is the entry's canonical JSON, with nothing private in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/db/canonical-json.js';
import { createStatement } from '../../src/domain/panels/panel.service.js';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { openBody } from '../transparency/commitments.js';
import { confirmClaims, contributorKey, publisher, signup, type TestPublisher } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { statementBody } from '../api/panels.fixtures.js';

let t: TestApp;
let pub: TestPublisher;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
});
afterAll(async () => t?.close());

const raw = () => t.runtime.deps.db.selectFrom('changes').selectAll().orderBy('seq').execute();
/** The entries with their commitments opened (and checked) from what is kept beside them. */
async function log() {
  const openings = await t.runtime.deps.db.selectFrom('change_openings').selectAll().execute();
  return (await raw()).map((r) => {
    const of = Object.fromEntries(openings.filter((o) => o.seq === r.seq).map((o) => [o.pointer, { opening: o.opening, value: JSON.parse(o.value) as Record<string, unknown> }]));
    return { ...r, body: JSON.stringify(openBody(r.body, of)) };
  });
}
const after = async (seq: number) => (await log()).filter((r) => r.seq > seq);
const last = async () => (await log()).at(-1)?.seq ?? 0;

describe('the change log', () => {
  it('logs the publisher, its owner and its domain', async () => {
    const rows = await log();
    expect(rows.map((r) => r.kind)).toEqual(['contributor.created', 'publisher.created', 'domain.verified']);
    expect(JSON.parse(rows[1]!.body)).toEqual({ seq: 2, kind: 'publisher.created', created_at: rows[1]!.created_at, publisher: { slug: pub.slug, name: `The ${pub.slug}` } });
    expect(JSON.parse(rows[2]!.body)).toMatchObject({ domain: pub.domain, publisher: { slug: pub.slug } });
  });

  it('logs registration, an update, authors; a skip logs nothing', async () => {
    const author = await signup(t, { name: 'Ann Author' });
    const from = await last();
    const url = `https://${pub.domain}/log/one`;
    const created = await pub.api.post('/api/v1/pages', { url, title: 'One', topic: 'Health' });
    const id = created.body.data.id;
    await pub.api.post('/api/v1/pages', { url, title: 'One' });
    await pub.api.post('/api/v1/pages', { url, title: 'One again', authors: [author.username] });
    await confirmClaims(author);
    const rows = await after(from);
    // Entries of one transaction are contiguous; their order inside it carries no meaning (docs/changes.md).
    expect(rows[0]!.kind).toBe('page.registered');
    expect(rows.slice(1).map((r) => r.kind).sort()).toEqual(['contribution.accepted', 'contributor.updated', 'page.updated']);
    const registered = JSON.parse(rows[0]!.body);
    expect(registered).toMatchObject({ page: { id, url, title: 'One', topic: 'health' }, publisher: { slug: pub.slug } });
    expect(rows[0]).toMatchObject({ page_id: id, publisher_id: expect.any(Number), account_id: null, panel_id: null });
    const authorship = rows.find((r) => r.kind === 'contribution.accepted')!;
    expect(JSON.parse(authorship.body)).toMatchObject({ contribution: { role: 'author' }, contributor: { username: author.username, name: 'Ann Author' } });
    expect(authorship.account_id).toBe(author.id);
  });

  it('logs accepted work and never pending, rejected or private detail', async () => {
    const specialist = await signup(t, { name: 'Sam Specialist' });
    const key = await contributorKey(specialist);
    const url = `https://${pub.domain}/log/two`;
    await pub.api.post('/api/v1/pages', { url, title: 'Two' });
    const from = await last();
    const submit = async (reason: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/submissions',
        headers: { 'x-api-key': key },
        payload: { url, role: 'correction', summary: 'Fixed a figure', evidence: { before: '70%', after: '79%', reason, sources: ['https://src.example/private-source'] } },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as number;
    };
    const one = await submit('PRIVATE-REASON-1');
    const two = await submit('PRIVATE-REASON-2');
    expect(await after(from)).toEqual([]);
    const decided = await pub.api.post('/api/v1/submissions/decide', [
      { submission_id: one, decision: 'accept', note: 'PRIVATE-NOTE' },
      { submission_id: two, decision: 'reject', note: 'PRIVATE-NOTE' },
    ]);
    expect(decided.status, decided.text).toBe(200);
    const rows = await after(from);
    // One call is one transaction: the contributor's profile is logged once, as the whole batch left it.
    expect(rows.map((r) => r.kind).sort()).toEqual(['contribution.accepted', 'contributor.updated']);
    expect(JSON.parse(rows.find((r) => r.kind === 'contribution.accepted')!.body)).toMatchObject({ contribution: { role: 'correction', change: { from: '70%', to: '79%' } }, contributor: { username: specialist.username } });
    const all = rows.map((r) => r.body).join('\n');
    for (const secret of ['PRIVATE', 'private-source', specialist.email, '@mail.test', 'hash']) expect(all).not.toContain(secret);
  });

  it('logs a profile change, a domain moving to another publisher, and a panel version', async () => {
    const user = await signup(t);
    const from = await last();
    await user.client.patch('/api/v1/account/profile', { name: 'New Name' });
    const other = await publisher(t);
    await verifyDomainByOperator(t.runtime.deps, other.slug, pub.domain);
    await verifyDomainByOperator(t.runtime.deps, other.slug, pub.domain); // already verified: nothing new
    const statement = statementBody();
    await createStatement(t.runtime.deps, statement as never);
    const rows = await after(from);
    const kinds = rows.map((r) => r.kind);
    expect(kinds[0]).toBe('contributor.updated');
    expect(JSON.parse(rows[0]!.body).contributor).toMatchObject({ username: user.username, name: 'New Name' });
    const moved = rows.filter((r) => r.kind === 'domain.moved');
    expect(moved).toHaveLength(1);
    expect(JSON.parse(moved[0]!.body)).toMatchObject({ domain: pub.domain, publisher: { slug: other.slug }, previous_publisher: { slug: pub.slug } });
    expect(kinds.at(-1)).toBe('panel.issued');
    expect(JSON.parse(rows.at(-1)!.body)).toMatchObject({ panel: { id: statement.id, version: 1, topic: 'health' } });
    expect(rows.at(-1)!.panel_id).toBe(statement.id);
  });

  it('keeps every personal field out of the bytes: a salted commitment there, its opening beside', async () => {
    const rows = await raw();
    const openings = await t.runtime.deps.db.selectFrom('change_openings').selectAll().execute();
    const accounts = await t.runtime.deps.db.selectFrom('accounts').select(['username', 'name', 'email']).execute();
    const named = rows.filter((r) => 'contributor' in JSON.parse(r.body));
    expect(named.length).toBeGreaterThan(3);
    for (const r of rows) for (const a of accounts) for (const s of [a.username, a.name, a.email]) expect(r.body).not.toContain(s);
    for (const r of named) {
      expect(Object.keys(JSON.parse(r.body).contributor)).toEqual(['commitment']);
      // The person slot, and inside its value their name (and a profile's summary), each opened on its own and
      // recorded by reference (the profile it opens, its field), so erasure and a decision find them by reference.
      const own = openings.filter((o) => o.seq === r.seq && o.pointer.startsWith('/contributor'));
      expect(own.map((o) => [o.pointer, o.account_id, o.subject_kind, o.subject_id, o.field]).sort()).toEqual(
        [
          ['/contributor', r.account_id, 'profile', r.account_id, null],
          ['/contributor/name', r.account_id, 'profile', r.account_id, 'name'],
          ...(r.kind.startsWith('contributor.') ? [['/contributor/summary', r.account_id, 'profile', r.account_id, 'summary']] : []),
        ].sort(),
      );
    }
    // Two entries naming one person commit with different openings: equal values never give equal commitments.
    const commitments = named.map((r) => JSON.parse(r.body).contributor.commitment);
    expect(new Set(commitments).size).toBe(commitments.length);
  });

  it('is gapless from 1, each body canonical and carrying its own seq, kind and time, under concurrent writers', async () => {
    await verifyDomainByOperator(t.runtime.deps, pub.slug, pub.domain);
    await Promise.all(Array.from({ length: 12 }, (_, i) => pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/burst/${i}`, title: `B${i}` })));
    const rows = await log();
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    for (const r of rows) {
      const body = JSON.parse(r.body);
      expect(canonicalJson(body)).toBe(r.body);
      expect(body).toMatchObject({ seq: r.seq, kind: r.kind, created_at: r.created_at });
    }
  });
});
