// Scores cannot be bought by owning more publications. Diminishing returns were counted per publication: one account
// made 29 publications, verified three domains, and a sock's accepted fact checks went 9 → 18 → 27 accepted,
// `trusted`, trust 0.88. Now publications sharing an owner or member, present or past, or verified domains under one
// registrable domain (the Public Suffix List's), directly or through others, are one source; and one account owns at
// most PUBLICATIONS_OWNED_PER_ACCOUNT publications (409 naming the limit, on /api/v1 and the web form). Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';

let t: TestApp;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());

let n = 0;
/** `count` fact checks by `sock` on fresh pages of `p`, all accepted by `p`. */
async function acceptedChecks(p: TestPublisher, sock: TestUser, count: number): Promise<void> {
  const urls = Array.from({ length: count }, () => `https://${p.domain}/claim-${++n}`);
  const reg = await p.api.post('/api/v1/pages', urls.map((url, i) => ({ url, title: `Claim ${i}`, topic: 'health' })));
  expect(reg.status, reg.text).toBe(200);
  const sub = await sock.client.post('/api/v1/submissions', urls.map((url) => ({ url, role: 'fact_check', summary: 'Checked', evidence: { reason: 'Because', sources: [] } })));
  expect(sub.status, sub.text).toBe(200);
  const ids = (sub.body.data.results as { submission_id?: number; id?: number }[]).map((r) => r.submission_id ?? r.id);
  const decided = await p.api.post('/api/v1/submissions/decide', ids.map((id) => ({ submission_id: id, decision: 'accept' })));
  expect(decided.status, decided.text).toBe(200);
  expect((decided.body.data.results as { status: string }[]).every((r) => r.status === 'created'), decided.text).toBe(true);
}
const face = async (u: TestUser) => {
  const res = await anon.get(`/api/v1/contributors/${u.username}`);
  expect(res.status, res.text).toBe(200);
  const d = res.body.data;
  return { accepted: d.accepted_count, level: d.level, trust: d.trust_score, score: d.contribution_score };
};

describe('diminishing returns count independent sources, not publications', () => {
  it('one owner with three publications accepting a sock’s work scores like one publication', async () => {
    const owner = await signup(t);
    const pubs = [await publisher(t, { owner }), await publisher(t, { owner }), await publisher(t, { owner })];
    const sock = await signup(t);
    for (const p of pubs) await acceptedChecks(p, sock, 9);

    const alone = await publisher(t);
    const control = await signup(t);
    await acceptedChecks(alone, control, 9);

    const sockFace = await face(sock);
    expect(sockFace).toEqual(await face(control));
    expect(sockFace.accepted).toBe(9);
    expect(sockFace.score).toBe(3 * 8 + 6 * 4);
    expect(sockFace.level).not.toBe('trusted');
    // The explanation agrees: the 10th work onwards counts nothing, across the three publications.
    const why = await anon.get(`/api/v1/contributors/${sock.username}/scores`);
    expect(why.status, why.text).toBe(200);
    expect(JSON.stringify(why.body)).toContain('shares an owner or member');
  });

  it('publications linked through a shared member, owned by different people, are one source too', async () => {
    const a = await publisher(t);
    const b = await publisher(t);
    const c = await publisher(t);
    // b's owner is an editor of a, and c's owner an editor of b: a, b and c are one source.
    await addMember(a.owner.client, a.slug, b.owner);
    await addMember(b.owner.client, b.slug, c.owner);
    const sock = await signup(t);
    for (const p of [a, b, c]) await acceptedChecks(p, sock, 4);
    expect((await face(sock)).accepted).toBe(9);
  });

  it('a past owner still links: handing a publication over and leaving it does not make it independent', async () => {
    const owner = await signup(t);
    const first = await publisher(t, { owner });
    const sock = await signup(t);
    await acceptedChecks(first, sock, 9);
    // The owner hands the first publication to someone else and leaves it, then starts another.
    const heir = await signup(t);
    await addMember(owner.client, first.slug, heir);
    expect((await owner.client.post(`/api/v1/account/publishers/${first.slug}/transfer`, { username: heir.username })).status).toBe(200);
    const left = await heir.client.delete(`/api/v1/account/publishers/${first.slug}/members/${owner.username}`);
    expect(left.status, left.text).toBe(200);
    const members = await heir.client.get(`/api/v1/account/publishers/${first.slug}/members`);
    expect(JSON.stringify(members.body)).not.toContain(owner.username);
    const second = await publisher(t, { owner });
    await acceptedChecks(second, sock, 9);
    expect((await face(sock)).accepted).toBe(9);
    // The owner's export shows the membership they left, remembered.
    const exported = await owner.client.get('/api/v1/account/export');
    expect(exported.status, exported.text).toBe(200);
    const slugs = (list: { publisher: string }[]) => list.map((m) => m.publisher).sort();
    expect(slugs(exported.body.data.memberships)).toEqual([second.slug]);
    expect(slugs(exported.body.data.membership_history)).toEqual([first.slug, second.slug].sort());
  });

  it('domains under one registrable domain link publications of different owners; two github.io sites do not', async () => {
    const base = `shared-${++n}.co.uk`;
    const sock = await signup(t);
    for (const sub of ['news', 'health', 'sport']) await acceptedChecks(await publisher(t, { domain: `${sub}.${base}` }), sock, 4);
    expect((await face(sock)).accepted).toBe(9);

    // The Public Suffix List's private section: github.io is a suffix, so alice's and bob's sites are two registrants.
    const other = await signup(t);
    for (const who of [`alice${n}`, `bob${n}`]) await acceptedChecks(await publisher(t, { domain: `${who}.github.io` }), other, 9);
    expect((await face(other)).accepted).toBe(18);
  });

  it('independent publications still count each in full', async () => {
    const sock = await signup(t);
    for (const p of [await publisher(t), await publisher(t), await publisher(t)]) await acceptedChecks(p, sock, 9);
    const f = await face(sock);
    expect(f.accepted).toBe(27);
    expect(f.level).toBe('trusted');
  });
});

describe('a cap on the publications one account owns', () => {
  const create = (u: TestUser, slug: string) => u.client.post('/api/v1/account/publishers', { name: `The ${slug}`, slug });
  const limit = (res: { status: number; body: unknown; text: string }) => {
    expect(res.status, res.text).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: { code: 'conflict', details: [{ field: 'limit', message: expect.stringContaining('PUBLICATIONS_OWNED_PER_ACCOUNT') }] } });
  };

  it('creates five, refuses the sixth; nor can a sixth come by invitation, promotion or transfer', async () => {
    const u = await signup(t);
    for (let i = 0; i < 5; i++) expect((await create(u, `cap-${u.id}-${i}`)).status).toBe(201);
    const sixth = await create(u, `cap-${u.id}-5`);
    limit(sixth);
    expect((sixth.body as { error: { message: string } }).error.message).toContain('You own 5 publications');

    const other = await publisher(t);
    // An owner's invitation: accepting it is refused.
    const inv = await other.owner.client.post(`/api/v1/account/publishers/${other.slug}/members`, { username: u.username, role: 'owner' });
    expect(inv.status, inv.text).toBe(202);
    const mine = await u.client.get('/api/v1/account/publisher-invitations');
    const id = (mine.body.data as { id: number; publisher: { slug: string } }[]).find((i) => i.publisher.slug === other.slug)!.id;
    limit(await u.client.post(`/api/v1/account/publisher-invitations/${id}/accept`));
    // As an editor they may join; made owner, or handed ownership, they may not.
    await addMember(other.owner.client, other.slug, u);
    limit(await other.owner.client.post(`/api/v1/account/publishers/${other.slug}/members`, { username: u.username, role: 'owner' }));
    limit(await other.owner.client.post(`/api/v1/account/publishers/${other.slug}/transfer`, { username: u.username }));
  });

  it('the web form says so in words', async () => {
    const u = await signup(t);
    for (let i = 0; i < 5; i++) expect((await create(u, `web-${u.id}-${i}`)).status).toBe(201);
    const b = new FormClient(t.baseUrl);
    await b.get('/login');
    expect((await b.post('/login', { email: u.email, password: u.password })).status).toBe(303);
    await b.get('/dashboard?all');
    const res = await b.post('/dashboard', { name: 'One Too Many', slug: `web-${u.id}-5` });
    expect(res.status).toBe(409);
    expect(res.text).toContain('You own 5 publications, the most an account may');
    const owned = await t.runtime.deps.db.selectFrom('publisher_members').select('publisher_id').where('account_id', '=', u.id).where('role', '=', 'owner').execute();
    expect(owned).toHaveLength(5);
  });
});
