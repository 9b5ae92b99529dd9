// Nothing is said in public about a person until they agree, and they can always take their name back.
// The story of the issue, on the real surfaces: a publisher names a contributor as an author; nothing public names
// them; they confirm and everything does; they withdraw and everything stops, the log keeping the withdrawal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { retractNotAsked } from '../../src/domain/consent/consent.service.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
let pub: TestPublisher;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  pub = await publisher(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

const lookup = (url: string) => anon.get(`/api/v1/pages/lookup?url=${encodeURIComponent(url)}`);
type FeedItem = { kind: string; contributor?: { username: string }; contribution?: Record<string, unknown>; openings?: Record<string, { value: { username: string } }> };
// Who an entry names is a commitment in its bytes, opened beside it: read the opened value.
const feed = async () =>
  ((await anon.get('/api/v1/changes?limit=1000')).body.data as FeedItem[]).map((e) => ({ ...e, contributor: e.openings?.['/contributor']?.value ?? e.contributor }));
const profile = (u: TestUser) => anon.get(`/api/v1/contributors/${u.username}`);

async function register(path: string, authors: string[]) {
  const res = await pub.api.post('/api/v1/pages', [{ url: `https://${pub.domain}/${path}`, title: `Page ${path}`, topic: 'health', authors }]);
  expect(res.status, res.text).toBe(200);
  return res.body.data.results[0] as { id: number; status: string; authors: { username: string; status: string }[] };
}

describe('a publisher naming an author', () => {
  it('makes a claim: nothing public names the person until they confirm', async () => {
    const person = await signup(t);
    const before = await profile(person);
    const feedBefore = (await feed()).length;
    const result = await register('story', [person.username]);
    expect(result.authors).toEqual([{ username: person.username, status: 'pending' }]);

    const look = await lookup(`https://${pub.domain}/story`);
    expect(look.body.data.has_record).toBe(false);
    expect(look.body.data.contributors).toEqual({});
    expect((await anon.get(`/api/v1/embed/article/${result.id}`)).text).not.toContain(person.username);
    expect((await profile(person)).body.data).toEqual(before.body.data);
    const entries = (await feed()).slice(feedBefore);
    expect(entries.map((e) => e.kind)).toEqual(['page.registered']);
    expect(JSON.stringify(entries)).not.toContain(person.username);

    // The publisher sees the claim as pending; the person sees it to answer.
    const theirs = await pub.api.get(`/api/v1/publisher-auth/claims?page_id=${result.id}`);
    expect(theirs.body.data).toMatchObject([{ username: person.username, state: 'pending', page: { id: result.id } }]);
    const mine = await person.client.get('/api/v1/account/claims');
    expect(mine.body.data).toMatchObject([{ state: 'pending', page: { id: result.id }, publisher: { slug: pub.slug } }]);

    // Confirmed: the record, the profile, the feed (and so the log) name them, with how they agreed.
    const confirmed = await person.client.post(`/api/v1/account/claims/${mine.body.data[0].id}/confirm`);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.state).toBe('confirmed');
    const after = await lookup(`https://${pub.domain}/story`);
    expect(after.body.data.contributors.author).toMatchObject([
      { username: person.username, provenance: { asserted_by: 'publisher', consent: 'confirmed' } },
    ]);
    expect((await profile(person)).body.data.accepted_count).toBe(before.body.data.accepted_count + 1);
    const accepted = (await feed()).filter((e) => e.kind === 'contribution.accepted' && e.contributor?.username === person.username);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.contribution).toMatchObject({ role: 'author', provenance: { asserted_by: 'publisher', consent: 'confirmed' } });

    // Withdrawn: gone from the record and the profile, and the feed says so.
    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/story`)}`);
    const contributionId = Number(String(record.body.contributions[0].id).replace('ctb_', ''));
    const withdrawn = await person.client.post(`/api/v1/account/contributions/${contributionId}/withdraw`);
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect((await lookup(`https://${pub.domain}/story`)).body.data.contributors).toEqual({});
    expect((await profile(person)).body.data.accepted_count).toBe(before.body.data.accepted_count);
    const last = (await feed()).filter((e) => e.kind === 'contribution.withdrawn');
    expect(last.at(-1)).toMatchObject({ contributor: { username: person.username }, contribution: { id: contributionId, role: 'author', reason: 'withdrawn' } });

    // The publication cannot name them on that page again.
    expect((await register('story', [person.username])).authors).toEqual([{ username: person.username, status: 'withdrawn' }]);
  });

  it('declined, it ends: nothing is published and the page cannot name them again', async () => {
    const person = await signup(t);
    const result = await register('declined', [person.username]);
    const [claim] = (await person.client.get('/api/v1/account/claims')).body.data;
    expect((await person.client.post(`/api/v1/account/claims/${claim.id}/decline`)).body.data.state).toBe('declined');
    expect((await person.client.post(`/api/v1/account/claims/${claim.id}/confirm`)).status).toBe(409);
    expect((await lookup(`https://${pub.domain}/declined`)).body.data.contributors).toEqual({});
    expect((await register('declined', [person.username])).authors[0]!.status).toBe('declined');
    expect(result.status).toBe('created');
  });

  it('a person can refuse all of a publication’s claims, or let one of theirs publish at once', async () => {
    const person = await signup(t);
    expect((await person.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'refuse' } })).status).toBe(200);
    expect((await register('refused', [person.username])).authors[0]!.status).toBe('refused');
    expect((await person.client.get('/api/v1/account/claims')).body.data).toEqual([]);

    // A standing permission is only for a publication they are a member of.
    const permit = await person.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'permit' } });
    expect(permit.status).toBe(403);
    await addMember(pub.owner.client, pub.slug, person);
    expect((await person.client.req('PUT', `/api/v1/account/claim-preferences/${pub.slug}`, { body: { preference: 'permit' } })).status).toBe(200);
    expect((await register('permitted', [person.username])).authors[0]!.status).toBe('published');
    expect((await lookup(`https://${pub.domain}/permitted`)).body.data.contributors.author).toMatchObject([
      { username: person.username, provenance: { asserted_by: 'publisher', consent: 'standing_permission' } },
    ]);

    // Leaving the publication ends the permission: back as a member, their next naming waits for them again.
    expect((await person.client.req('DELETE', `/api/v1/account/publishers/${pub.slug}/members/${person.username}`)).status).toBeLessThan(300);
    expect((await register('after-leaving', [person.username])).authors[0]!.status).toBe('pending');
    await addMember(pub.owner.client, pub.slug, person);
    expect((await register('rejoined', [person.username])).authors[0]!.status).toBe('pending');
    expect((await person.client.get('/api/v1/account/claim-preferences')).body.data).not.toContainEqual(expect.objectContaining({ preference: 'permit' }));
  });

  it('confirmClaims publishes every waiting claim (the factory later tests use)', async () => {
    const person = await signup(t);
    await register('factory', [person.username]);
    await confirmClaims(person);
    expect((await lookup(`https://${pub.domain}/factory`)).body.data.has_record).toBe(true);
  });
});

describe('only the person can answer or withdraw', () => {
  it('another person, the publisher’s key and no credential each get the surface’s error', async () => {
    const person = await signup(t);
    const other = await signup(t);
    await register('guarded', [person.username]);
    const [claim] = (await person.client.get('/api/v1/account/claims')).body.data;
    for (const action of ['confirm', 'decline']) {
      const path = `/api/v1/account/claims/${claim.id}/${action}`;
      expect((await other.client.post(path)).status).toBe(404);
      expect((await pub.api.post(path)).status).toBe(403);
      const none = await anon.post(path);
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    }
    await person.client.post(`/api/v1/account/claims/${claim.id}/confirm`);
    const record = await anon.get(`/v1/pages/record?url=${encodeURIComponent(`https://${pub.domain}/guarded`)}`);
    const id = Number(String(record.body.contributions[0].id).replace('ctb_', ''));
    const path = `/api/v1/account/contributions/${id}/withdraw`;
    expect((await other.client.post(path)).status).toBe(404);
    expect((await pub.api.post(path)).status).toBe(403);
    expect((await anon.post(path)).status).toBe(401);
    expect((await lookup(`https://${pub.domain}/guarded`)).body.data.has_record).toBe(true);
  });
});

describe('authorships named before consent existed (migration 0013)', () => {
  it('leave the public record with a public entry, and wait as claims their person can confirm', async () => {
    const person = await signup(t);
    await register('legacy', []);
    const page = await t.runtime.deps.db.selectFrom('pages').select('id').where('url', '=', `https://${pub.domain}/legacy`).executeTakeFirstOrThrow();
    // As the migration leaves such a row: public, named by the publisher, never asked.
    await t.runtime.deps.db
      .insertInto('contributions')
      .values({ page_id: page.id, account_id: person.id, role: 'author', summary: 'Wrote this page', change_from: null, change_to: null, accepted_at: '2026-01-01T00:00:00.000Z', created_at: '2026-01-01T00:00:00.000Z', submission_id: null, consent: 'not_asked' })
      .execute();
    expect(await retractNotAsked(t.runtime.deps)).toBe(1);
    expect(await retractNotAsked(t.runtime.deps)).toBe(0);
    expect((await lookup(`https://${pub.domain}/legacy`)).body.data.contributors).toEqual({});
    expect((await feed()).filter((e) => e.kind === 'contribution.withdrawn').at(-1)).toMatchObject({
      contributor: { username: person.username },
      contribution: { role: 'author', reason: 'unconfirmed' },
    });
    const [claim] = (await person.client.get('/api/v1/account/claims?state=pending')).body.data;
    expect(claim).toMatchObject({ page: { id: page.id } });
    await person.client.post(`/api/v1/account/claims/${claim.id}/confirm`);
    expect((await lookup(`https://${pub.domain}/legacy`)).body.data.contributors.author).toMatchObject([{ username: person.username, provenance: { consent: 'confirmed' } }]);
  });
});
