// A domain's move cancels the requests the old publication left open or taken on its pages there
// (docs/decisions/domain-verification.md): once it no longer holds the domain it cannot decide work on those pages
// (seed 000 §4 rule 1, §5.3), so nothing may stay in the marketplace to be taken, and no new work may wait on them.
// Each specialist who held one is told why, and the old publication's owners that the domain moved; work already
// sent stays pending until its sender withdraws it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { render } from '../../src/domain/mail/mail.messages.js';
import { verifyDomainByOperator } from '../../src/domain/publishers/publisher.service.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let old: TestPublisher;
let rival: TestPublisher;
let withWork: TestUser;
let withoutWork: TestUser;
let stranger: TestUser;
/** On the moved domain: one left open, one taken with work pending, one taken without. */
const moved = { open: 0, pending: 0, taken: 0 };
/** On a domain the old publication keeps. */
let keptRequest = 0;
let submissionId = 0;
/** The old publication's second domain. */
const keptDomain = () => `kept-${old.domain}`;
const on = (path: string) => `https://${old.domain}/moved/${path}`;

async function openRequest(url: string, type = 'reviewer'): Promise<number> {
  const res = await old.api.post('/api/v1/requests', { url, request_type: type, topic: 'health' });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as number;
}

const statusOf = async (id: number) => (await stranger.client.get(`/api/v1/review-requests/${id}`)).body.data.status as string;

beforeAll(async () => {
  t = await startTestApp();
  old = await publisher(t);
  await verifyDomainByOperator(t.runtime.deps, old.slug, keptDomain());
  [withWork, withoutWork, stranger] = [await signup(t), await signup(t), await signup(t)];
  moved.open = await openRequest(on('open'));
  moved.pending = await openRequest(on('pending'));
  moved.taken = await openRequest(on('taken'), 'fact_checker');
  keptRequest = await openRequest(`https://${keptDomain()}/kept`);
  expect((await withWork.client.post(`/api/v1/review-requests/${moved.pending}/take`)).status).toBe(200);
  const sub = await withWork.client.post('/api/v1/submissions', { request_id: moved.pending, summary: 'Reviewed', evidence: { reason: 'Read it', sources: [] } });
  expect(sub.status, sub.text).toBe(201);
  submissionId = sub.body.data.id;
  expect((await withoutWork.client.post(`/api/v1/review-requests/${moved.taken}/take`)).status).toBe(200);
  rival = await publisher(t);
  await verifyDomainByOperator(t.runtime.deps, rival.slug, old.domain);
});
afterAll(async () => t?.close());

describe('requests left on a domain that moved to another publication', () => {
  it('are cancelled by the move, open and taken alike; those on a domain the publication keeps stay', async () => {
    expect(await statusOf(moved.open)).toBe('cancelled');
    expect(await statusOf(moved.pending)).toBe('cancelled');
    expect(await statusOf(moved.taken)).toBe('cancelled');
    expect(await statusOf(keptRequest)).toBe('open');
    // The old publication sees them cancelled in its own list (GET /v1/requests).
    const listed = await old.api.get('/v1/requests');
    expect(listed.status, listed.text).toBe(200);
    const byId = new Map((listed.body.data as { id: string; status: string }[]).map((r) => [r.id, r.status]));
    expect(byId.get(`req_${moved.open}`)).toBe('cancelled');
    expect(byId.get(`req_${moved.taken}`)).toBe('cancelled');
    expect(byId.get(`req_${keptRequest}`)).toBe('open');
  });

  it('leaves the marketplace, and cannot be taken or worked on (409 saying why)', async () => {
    const market = await stranger.client.get('/api/v1/review-requests?per_page=100');
    expect(market.status, market.text).toBe(200);
    const ids = (market.body.data as { id: number }[]).map((r) => r.id);
    expect(ids).toContain(keptRequest);
    for (const id of Object.values(moved)) expect(ids).not.toContain(id);

    const take = await stranger.client.post(`/api/v1/review-requests/${moved.open}/take`);
    expect(take.status, take.text).toBe(409);
    expect(take.body.error.message).toContain('cancelled');
    const onRequest = await withoutWork.client.post('/api/v1/submissions', { request_id: moved.taken, summary: 'Checked', evidence: { reason: 'Read it', sources: [] } });
    expect(onRequest.status, onRequest.text).toBe(409);
    expect(onRequest.body.error.message).toContain('cancelled');
  });

  it('refuses new work on the old publication’s pages there (409 naming the field), single or batched', async () => {
    const single = await stranger.client.post('/api/v1/submissions', { url: on('open'), role: 'review', summary: 'Unasked', evidence: { reason: 'Read it', sources: [] } });
    expect(single.status, single.text).toBe(409);
    expect(single.body.error).toMatchObject({ code: 'conflict', details: [{ field: 'url' }] });
    expect(single.body.error.message).toContain('nobody can decide work on this page');
    const pageId = (await stranger.client.get(`/api/v1/pages/lookup?url=${encodeURIComponent(on('open'))}`)).body.data.id as number;
    const batch = await stranger.client.post('/api/v1/submissions', [
      { article_ref_id: pageId, role: 'source', summary: 'A source', evidence: { reason: 'Found it', sources: [] } },
      { url: `https://${keptDomain()}/kept`, role: 'review', summary: 'Kept', evidence: { reason: 'Read it', sources: [] } },
    ]);
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.data.results[0]).toMatchObject({ status: 'failed', error: { code: 'conflict', details: [{ field: 'article_ref_id' }] } });
    expect(batch.body.data.results[1]).toMatchObject({ status: 'created' });
    const stored = await t.runtime.deps.db.selectFrom('submissions').select('id').where('page_id', '=', pageId).execute();
    expect(stored).toEqual([]);
  });

  it('frees the takes, and tells each specialist who held one why', async () => {
    const mails = await t.runtime.deps.db
      .selectFrom('mail_outbox')
      .select(['account_id', 'facts', 'locale'])
      .where('kind', '=', 'take_cancelled')
      .where('to_address', 'in', [withWork.email, withoutWork.email])
      .execute();
    expect(mails).toHaveLength(2);
    for (const m of mails) {
      const facts = JSON.parse(m.facts) as Record<string, string>[];
      expect(facts[0]).toMatchObject({ why: 'moved', domain: old.domain, publisher: `The ${old.slug}`, holder: `The ${rival.slug}` });
      const text = render({ kind: 'take_cancelled', locale: 'en', siteUrl: 'https://credence.test', username: 'x', name: 'X', facts, unsubscribeUrl: null }).text;
      expect(text).toContain(`${old.domain} is now verified by The ${rival.slug}`);
      expect(text).not.toContain(`The ${old.slug} cancelled`);
    }
    // Neither holds the cancelled request any more: nothing of it is on their /me.
    for (const who of [withWork, withoutWork]) {
      const held = await t.runtime.deps.db.selectFrom('requests').select('id').where('status', '=', 'taken').where('taken_by', '=', who.id).execute();
      expect(held).toEqual([]);
    }
  });

  it('tells the old publication’s owners that the domain moved, to whom, and what it cancelled', async () => {
    const mails = await t.runtime.deps.db.selectFrom('mail_outbox').select('facts').where('kind', '=', 'domain_moved').execute();
    expect(mails).toHaveLength(1);
    const facts = JSON.parse(mails[0]!.facts) as Record<string, string | number>[];
    expect(facts[0]).toMatchObject({ domain: old.domain, publisher: `The ${old.slug}`, holder: `The ${rival.slug}`, cancelled: 3 });
    const rendered = render({ kind: 'domain_moved', locale: 'en', siteUrl: 'https://credence.test', username: 'x', name: 'X', facts, unsubscribeUrl: null });
    expect(rendered.text).toContain(`${old.domain} is now verified by The ${rival.slug}`);
    expect(rendered.text).toContain('3 requests open on them were cancelled');
    expect(rendered.link).toBe(`https://credence.test/dashboard/${old.slug}/domains`);
    const to = await t.runtime.deps.db.selectFrom('mail_outbox').select('to_address').where('kind', '=', 'domain_moved').executeTakeFirstOrThrow();
    expect(to.to_address).toBe(old.owner.email);
  });

  it('leaves work already sent pending, for its sender to withdraw; the withdrawal goes to the old publication only', async () => {
    expect((await withWork.client.get(`/api/v1/submissions/${submissionId}`)).body.data.status).toBe('pending');
    const withdrawn = await withWork.client.post(`/api/v1/submissions/${submissionId}/withdraw`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data.status).toBe('withdrawn');
    // Withdrawing does not reopen the cancelled request.
    expect(await statusOf(moved.pending)).toBe('cancelled');
    const rivalId = (await t.runtime.deps.db.selectFrom('publishers').select('id').where('slug', '=', rival.slug).executeTakeFirstOrThrow()).id;
    const events = await t.runtime.deps.db.selectFrom('events').select(['type', 'publisher_id']).where('type', '=', 'contribution.withdrawn').execute();
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.publisher_id === rivalId)).toEqual([]);
  });
});
