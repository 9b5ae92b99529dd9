// The dashboard's security cases: every form refuses a post without its CSRF token or from another origin and
// changes nothing (and, as a control, works with them); one publication's members cannot see or act on another's
// dashboard, inbox, pages, requests or keys (404, as if they did not exist); a signed-in person without a
// publication is offered to create one; an API key opens no page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { count, registerPage, submitCorrection, unique, type WebPublication, webPublication, webUser, type WebUser } from './dashboard.fixtures.js';

let t: TestApp;
let a: WebPublication;
let b: WebPublication;
let specialist: WebUser;
/** B's things, which A's members must not reach. */
let bPage: { id: number; url: string };
let bRequest: number;
let bSubmission: number;
let bKey: number;
let bInvitee: WebUser;

const db = () => t.runtime.deps.db;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  a = await webPublication(t);
  b = await webPublication(t);
  specialist = await webUser(t, 'Sam Specialist');
  bPage = await registerPage(t, b, 'secret/one');
  await b.owner.b.get(`${b.base}/requests`);
  await b.owner.b.post(`${b.base}/requests`, { article_ref_id: String(bPage.id), request_type: 'reviewer' });
  bRequest = (await db().selectFrom('requests').select('id').where('page_id', '=', bPage.id).executeTakeFirstOrThrow()).id;
  bSubmission = await submitCorrection(specialist, bPage.url);
  await b.owner.b.get(`${b.base}/keys`);
  await b.owner.b.post(`${b.base}/keys`, { name: 'b-key' });
  bKey = (await db().selectFrom('api_keys').select('id').where('name', '=', 'b-key').executeTakeFirstOrThrow()).id;
  bInvitee = await webUser(t, 'Bea Invited');
  expect((await b.owner.api.post(`/api/v1/account/publishers/${b.slug}/members`, { username: bInvitee.username, role: 'editor' })).status).toBe(202);
});
afterAll(async () => t?.close());

/** A form of A's owner: where it posts, what it sends, and a reading that changes when the post goes through. */
interface FormCase {
  name: string;
  path: () => string;
  fields: () => Record<string, string | string[]>;
  reading: () => Promise<unknown>;
  /** The page the form is on (for its CSRF token). */
  page: () => string;
}

const firstOf = async <T>(q: Promise<T[]>) => JSON.stringify(await q);

const forms: FormCase[] = [
  { name: 'create a publication', page: () => '/dashboard?all=1', path: () => '/dashboard', fields: () => ({ name: 'X', slug: `x-${unique()}` }), reading: () => count(t, 'publishers') },
  {
    // Adding someone invites them: the invitation is what the post makes.
    name: 'invite a member',
    page: () => a.base,
    path: () => `${a.base}/members`,
    fields: () => ({ username: specialist.username, role: 'editor' }),
    reading: () => count(t, 'publisher_invitations'),
  },
  {
    name: 'remove a member',
    page: () => a.base,
    path: () => `${a.base}/members/${aMember.username}/remove`,
    fields: () => ({}),
    reading: () => count(t, 'publisher_members'),
  },
  {
    name: 'withdraw an invitation',
    page: () => a.base,
    path: () => `${a.base}/invitations/${aInvitee.username}/withdraw`,
    fields: () => ({}),
    reading: () => count(t, 'publisher_invitations'),
  },
  { name: 'claim a domain', page: () => `${a.base}/domains`, path: () => `${a.base}/domains`, fields: () => ({ domain: `c-${unique()}.example` }), reading: () => count(t, 'domains') },
  {
    name: 'verify a domain',
    page: () => `${a.base}/domains`,
    path: () => `${a.base}/domains/dns-${a.slug}.example/verify`,
    fields: () => ({}),
    reading: () => firstOf(db().selectFrom('domains').select('status').where('domain', '=', `dns-${a.slug}.example`).execute()),
  },
  { name: 'register a page', page: () => `${a.base}/pages`, path: () => `${a.base}/pages`, fields: () => ({ url: `https://${a.domain}/${unique()}`, title: 'T' }), reading: () => count(t, 'pages') },
  { name: 'paste a list', page: () => `${a.base}/pages`, path: () => `${a.base}/pages/batch`, fields: () => ({ lines: `https://${a.domain}/${unique()}` }), reading: () => count(t, 'pages') },
  {
    name: 'open a request',
    page: () => `${a.base}/requests`,
    path: () => `${a.base}/requests`,
    fields: () => ({ url: `https://${a.domain}/${unique()}`, request_type: 'editor' }),
    reading: () => count(t, 'requests'),
  },
  {
    name: 'cancel a request',
    page: () => `${a.base}/requests`,
    path: () => `${a.base}/requests/${aRequest}/cancel`,
    fields: () => ({}),
    reading: () => firstOf(db().selectFrom('requests').select('status').where('id', '=', aRequest).execute()),
  },
  {
    name: 'decide a submission',
    page: () => `${a.base}/inbox`,
    path: () => `${a.base}/inbox/${aSubmission}/decide`,
    fields: () => ({ decision: 'accept', note: 'ok' }),
    reading: () => firstOf(db().selectFrom('submissions').select('status').where('id', '=', aSubmission).execute()),
  },
  { name: 'create an API key', page: () => `${a.base}/keys`, path: () => `${a.base}/keys`, fields: () => ({ name: 'k' }), reading: () => count(t, 'api_keys') },
  {
    name: 'revoke an API key',
    page: () => `${a.base}/keys`,
    path: () => `${a.base}/keys/${aKey}/revoke`,
    fields: () => ({}),
    reading: () => firstOf(db().selectFrom('api_keys').select('revoked_at').where('id', '=', aKey).execute()),
  },
  {
    name: 'register a webhook',
    page: () => `${a.base}/webhooks`,
    path: () => `${a.base}/webhooks`,
    fields: () => ({ url: `https://hooks-${unique()}.example.com/in`, format: 'api_v1' }),
    reading: () => count(t, 'webhooks'),
  },
];

let aRequest: number;
let aSubmission: number;
let aKey: number;
/** A member of A (invited and accepted) and a person invited to A, for the owner's remove and withdraw forms. */
let aMember: WebUser;
let aInvitee: WebUser;

describe('CSRF', () => {
  beforeAll(async () => {
    // Things for A's forms to act on: a member and an invitation, a claimed domain whose DNS record is right, a
    // request, a submission, a key.
    aMember = await webUser(t, 'Mo Member');
    aInvitee = await webUser(t, 'Ines Invited');
    for (const who of [aMember, aInvitee]) {
      const invited = await a.owner.api.post(`/api/v1/account/publishers/${a.slug}/members`, { username: who.username, role: 'editor' });
      expect(invited.status, invited.text).toBe(202);
    }
    const id = (await aMember.api.get('/api/v1/account/publisher-invitations')).body.data[0].id as number;
    expect((await aMember.api.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(200);
    await a.owner.b.get(`${a.base}/domains`);
    await a.owner.b.post(`${a.base}/domains`, { domain: `dns-${a.slug}.example` });
    const { token } = await db().selectFrom('domains').select('token').where('domain', '=', `dns-${a.slug}.example`).executeTakeFirstOrThrow();
    t.dns.txt.set(`dns-${a.slug}.example`, [[`credence-verification=${token}`]]);
    const page = await registerPage(t, a, 'csrf/one');
    await a.owner.b.get(`${a.base}/requests`);
    await a.owner.b.post(`${a.base}/requests`, { article_ref_id: String(page.id), request_type: 'reviewer' });
    aRequest = (await db().selectFrom('requests').select('id').where('page_id', '=', page.id).executeTakeFirstOrThrow()).id;
    aSubmission = await submitCorrection(specialist, page.url);
    await a.owner.b.get(`${a.base}/keys`);
    await a.owner.b.post(`${a.base}/keys`, { name: 'a-key' });
    aKey = (await db().selectFrom('api_keys').select('id').where('name', '=', 'a-key').executeTakeFirstOrThrow()).id;
  });

  it.each(forms.map((f) => [f.name, f] as const))('%s: refused without the token, with a wrong one, or from another origin; works with them', async (_name, f) => {
    const before = await f.reading();
    await a.owner.b.get(f.page());
    const noToken = await a.owner.b.post(f.path(), f.fields(), { csrf: null });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain('The form has expired or came from another site');
    const wrongToken = await a.owner.b.post(f.path(), f.fields(), { csrf: 'y'.repeat(32) });
    expect(wrongToken.status).toBe(403);
    await a.owner.b.get(f.page());
    const otherOrigin = await a.owner.b.post(f.path(), f.fields(), { headers: { origin: 'https://evil.example' } });
    expect(otherOrigin.status).toBe(403);
    expect(await f.reading()).toEqual(before);
    // The control: the same form from its own page goes through.
    await a.owner.b.get(f.page());
    const ok = await a.owner.b.post(f.path(), f.fields());
    expect([200, 201, 303], ok.text.slice(0, 2000)).toContain(ok.status);
    expect(await f.reading()).not.toEqual(before);
  });
});

describe('answering an invitation on /me (Membership needs consent)', () => {
  it('refuses an answer without the token, with a wrong one or from another origin; another person cannot answer it (404); works from the page', async () => {
    const invitee = await webUser(t, 'Ivy Invitee');
    const other = await webUser(t, 'Otto Other');
    const invited = await a.owner.api.post(`/api/v1/account/publishers/${a.slug}/members`, { username: invitee.username, role: 'editor' });
    expect(invited.status, invited.text).toBe(202);
    const id = (await invitee.api.get('/api/v1/account/publisher-invitations')).body.data[0].id as number;
    const reading = () => Promise.all([count(t, 'publisher_invitations'), count(t, 'publisher_members')]);
    const before = await reading();
    for (const answer of ['accept', 'decline']) {
      const path = `/me/invitations/${id}/${answer}`;
      await invitee.b.get('/me');
      expect((await invitee.b.post(path, {}, { csrf: null })).status, path).toBe(403);
      expect((await invitee.b.post(path, {}, { csrf: 'y'.repeat(32) })).status, path).toBe(403);
      await invitee.b.get('/me');
      expect((await invitee.b.post(path, {}, { headers: { origin: 'https://evil.example' } })).status, path).toBe(403);
      // Someone else, with a good form of their own: as if the invitation did not exist.
      await other.b.get('/me');
      expect((await other.b.post(path, {})).status, path).toBe(404);
    }
    expect(await reading()).toEqual(before);
    expect((await invitee.b.get(a.base)).status).toBe(404);
    // The control: the invitee's own form, from their page.
    const me = await invitee.b.get('/me');
    expect(me.text).toContain(`/me/invitations/${id}/accept`);
    const ok = await invitee.b.post(`/me/invitations/${id}/accept`, {});
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/me?done=joined');
    expect((await invitee.b.get(a.base)).status).toBe(200);
    // Answered once: a second answer finds nothing.
    await invitee.b.get('/me');
    expect((await invitee.b.post(`/me/invitations/${id}/decline`, {})).status).toBe(404);
  });
});

describe('one publication cannot reach another', () => {
  const sections = ['', '/domains', '/pages', '/requests', '/inbox', '/keys', '/webhooks', '/embed', `/pages/${0}`];

  it('shows a stranger 404 pages for every section of another publication', async () => {
    for (const s of sections) {
      const path = s === `/pages/${0}` ? `${b.base}/pages/${bPage.id}` : `${b.base}${s}`;
      const res = await a.owner.b.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).toContain('<h1>Not found</h1>');
      expect(res.text).not.toContain(b.slug.replace('pub-', 'The pub-'));
    }
    // Even its inbox's pending work stays unseen.
    expect((await a.owner.b.get(`${b.base}/inbox`)).text).not.toContain('Sam Specialist');
  });

  it('refuses (404) every form posted to another publication, and nothing changes', async () => {
    const before = await Promise.all([count(t, 'pages'), count(t, 'requests'), count(t, 'api_keys'), count(t, 'domains'), count(t, 'publisher_members'), count(t, 'publisher_invitations'), count(t, 'webhooks')]);
    const subBefore = await firstOf(db().selectFrom('submissions').select('status').where('id', '=', bSubmission).execute());
    await a.owner.b.get(a.base);
    const posts: [string, Record<string, string>][] = [
      [`${b.base}/members`, { username: a.owner.username, role: 'owner' }],
      [`${b.base}/members/${b.owner.username}/remove`, {}],
      [`${b.base}/invitations/${bInvitee.username}/withdraw`, {}],
      [`${b.base}/domains`, { domain: 'steal.example' }],
      [`${b.base}/domains/${b.domain}/verify`, {}],
      [`${b.base}/pages`, { url: `https://${b.domain}/injected` }],
      [`${b.base}/pages/batch`, { lines: `https://${b.domain}/injected` }],
      [`${b.base}/requests`, { article_ref_id: String(bPage.id), request_type: 'reviewer' }],
      [`${b.base}/requests/${bRequest}/cancel`, {}],
      [`${b.base}/inbox/${bSubmission}/decide`, { decision: 'reject' }],
      [`${b.base}/keys`, { name: 'stolen' }],
      [`${b.base}/webhooks`, { url: 'https://steal.example.com/in' }],
      // B's things through A's own addresses: as if they did not exist.
      [`${a.base}/requests/${bRequest}/cancel`, {}],
      [`${a.base}/inbox/${bSubmission}/decide`, { decision: 'accept' }],
      [`${a.base}/keys/${bKey}/revoke`, {}],
    ];
    for (const [path, fields] of posts) {
      const res = await a.owner.b.post(path, fields);
      expect(res.status, path).toBe(404);
    }
    expect((await a.owner.b.get(`${a.base}/pages/${bPage.id}`)).status).toBe(404);
    expect((await a.owner.b.get(`${a.base}/embed?page=${bPage.id}`)).text).not.toContain(bPage.url);
    expect(await Promise.all([count(t, 'pages'), count(t, 'requests'), count(t, 'api_keys'), count(t, 'domains'), count(t, 'publisher_members'), count(t, 'publisher_invitations'), count(t, 'webhooks')])).toEqual(before);
    expect(await firstOf(db().selectFrom('submissions').select('status').where('id', '=', bSubmission).execute())).toBe(subBefore);
    const req = await db().selectFrom('requests').select('status').where('id', '=', bRequest).executeTakeFirstOrThrow();
    expect(req.status).toBe('open');
    const key = await db().selectFrom('api_keys').select('revoked_at').where('id', '=', bKey).executeTakeFirstOrThrow();
    expect(key.revoked_at).toBeNull();
  });
});

describe('people without a publication, and keys', () => {
  it('offers a contributor without a publication to create one, and 404s another publication', async () => {
    const contributor = await webUser(t, 'Cora Contributor');
    const page = await contributor.b.get('/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Create your publication</h1>');
    expect(page.text).not.toContain(a.slug);
    expect((await contributor.b.get(a.base)).status).toBe(404);
    expect((await contributor.b.get(`${b.base}/inbox`)).status).toBe(404);
  });

  it('opens no page for an API key or a session token sent as a header: pages need the session cookie', async () => {
    const made = await specialist.api.post('/api/v1/account/api-keys', { name: 'contrib', publisher: null });
    const key = made.body.data.key as string;
    const ownerKey = await a.owner.api.post('/api/v1/account/api-keys', { name: 'pubkey', publisher: a.slug });
    for (const credential of [key, ownerKey.body.data.key as string, a.owner.b.cookie('credence_session')!]) {
      const res = await new FormClient(t.baseUrl).get(a.base, { authorization: `Bearer ${credential}` });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^\/login\?next=/);
    }
    // And the JSON API is unchanged by any of this.
    expect((await new Client(t.baseUrl).as(key).get('/api/v1/pages')).status).toBe(403);
  });

  it('logs out: the dashboard then sends to the log-in page', async () => {
    const u = await webUser(t);
    await u.b.get('/dashboard');
    await u.b.post('/logout', {});
    const res = await u.b.get('/dashboard');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdashboard');
  });
});
