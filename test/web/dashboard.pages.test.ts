// The publisher dashboard over HTTP, as a browser without JavaScript uses it: every page and form, on the same
// services as the APIs. Forms post and redirect with ?done=…; refusals re-render with errors next to the fields.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { startTestApp, type TestApp } from '../harness.js';
import { confirmClaims } from '../factories.js';
import { FormClient } from './browser-client.js';
import { count, registerPage, submitCorrection, unique, type WebPublication, webPublication, webUser, type WebUser } from './dashboard.fixtures.js';

let t: TestApp;
let files: Map<string, { status: number; body: string }>;
let fileServer: http.Server;

beforeAll(async () => {
  // Every page request comes from 127.0.0.1 with a fixed test clock: without the allowlist the per-address bucket
  // of the web pages would run dry in the first few tests.
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  files = new Map();
  fileServer = http.createServer((req, res) => {
    const f = files.get(req.url ?? '') ?? { status: 404, body: 'not found' };
    res.writeHead(f.status, { 'content-type': 'text/plain' }).end(f.body);
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  t.setWellKnownBase(`http://127.0.0.1:${(fileServer.address() as AddressInfo).port}`);
});
afterAll(async () => {
  fileServer?.close();
  await t?.close();
});

describe('the way in', () => {
  it('sends visitors who are not signed in to the log-in page, and back afterwards', async () => {
    const b = new FormClient(t.baseUrl);
    const res = await b.get('/dashboard/anything/pages');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fdashboard%2Fanything%2Fpages');
  });

  it('offers a user without a publication to create one, with errors next to the fields', async () => {
    const u = await webUser(t);
    const page = await u.b.get('/dashboard');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Create your publication</h1>');
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const bad = await u.b.post('/dashboard', { name: '', slug: 'Not A Slug!' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-name-error"');
    expect(bad.text).toContain('id="f-slug-error"');
    expect(bad.text).toContain('value="not a slug!"');
    const slug = `mine-${unique()}`;
    const ok = await u.b.post('/dashboard', { name: 'My <Gazette>', slug });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/dashboard/${slug}?done=created`);
    const landing = await u.b.get('/dashboard');
    expect(landing.status).toBe(303);
    expect(landing.headers.get('location')).toBe(`/dashboard/${slug}`);
    const overview = await u.b.get(`/dashboard/${slug}?done=created`);
    expect(overview.text).toContain('<h1>My &lt;Gazette&gt;</h1>');
    expect(overview.text).toContain('Your publication is ready');
    expect(overview.text).toContain('Getting started');
    // A taken slug is refused beside the field.
    const other = await webUser(t);
    await other.b.get('/dashboard');
    const taken = await other.b.post('/dashboard', { name: 'Copycat', slug });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('id="f-slug-error"');
    expect(taken.text).toContain(`The slug ${slug} is taken`);
  });

  it('lists several publications to pick from, and each one switches to the others', async () => {
    const u = await webUser(t);
    const a = await webPublication(t, u);
    const b = await webPublication(t, u);
    const list = await u.b.get('/dashboard');
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/dashboard/${a.slug}"`);
    expect(list.text).toContain(`href="/dashboard/${b.slug}"`);
    expect(list.text).toContain('Create another publication');
    expect((await u.b.get(a.base)).text).toContain('Switch publication');
  });
});

describe('overview and members', () => {
  it('shows where things stand, and lets an owner add an editor who then sees it too', async () => {
    const pub = await webPublication(t);
    const editor = await webUser(t, 'Eddie Editor');
    const page = await pub.owner.b.get(pub.base);
    expect(page.text).toContain('<strong>1</strong> verified domain');
    expect(page.text).toContain('aria-current="page">Overview');
    expect(page.text).toContain(pub.owner.username);
    const unknown = await pub.owner.b.post(`${pub.base}/members`, { username: 'no-such-person', role: 'editor' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('no account is called no-such-person');
    const badRole = await pub.owner.b.post(`${pub.base}/members`, { username: editor.username, role: 'boss' });
    expect(badRole.status).toBe(400);
    expect(badRole.text).toContain('id="f-role-error"');
    const ok = await pub.owner.b.post(`${pub.base}/members`, { username: editor.username, role: 'editor' });
    expect(ok.location).toBe(`${pub.base}?done=invited`);
    // Nothing changes for them until they accept, on their own page.
    expect((await editor.b.get(pub.base)).status).toBe(404);
    const me = await editor.b.get('/me');
    expect(me.text).toContain('Invitations');
    const accept = /action="(\/me\/invitations\/\d+\/accept)"/.exec(me.text)![1]!;
    expect((await editor.b.post(accept, {})).location).toBe('/me?done=joined');
    const seen = await editor.b.get(pub.base);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('Eddie Editor');
    expect(seen.text).toContain('Owners add members.');
    expect(seen.text).not.toContain(`action="${pub.base}/members"`);
    // An editor asking for an owner's action gets a 403 page; nothing changes.
    const before = await count(t, 'publisher_members');
    const refused = await editor.b.post(`${pub.base}/members`, { username: editor.username, role: 'owner' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only an owner');
    expect(await count(t, 'publisher_members')).toBe(before);
  });
});

describe('removing, leaving and withdrawing', () => {
  /** `who` joins `pub` as `role`: the owner invites on the dashboard, they accept on /me. */
  async function join(pub: WebPublication, who: WebUser, role: 'editor' | 'owner' = 'editor') {
    await pub.owner.b.get(pub.base);
    expect((await pub.owner.b.post(`${pub.base}/members`, { username: who.username, role })).location).toBe(`${pub.base}?done=invited`);
    const me = await who.b.get('/me');
    const accept = /action="(\/me\/invitations\/\d+\/accept)"/.exec(me.text)![1]!;
    expect((await who.b.post(accept, {})).location).toBe('/me?done=joined');
  }

  it('an owner removes a member and withdraws an invitation; the last owner can neither leave nor demote themselves', async () => {
    const pub = await webPublication(t);
    const editor = await webUser(t, 'Rita Removed');
    const invitee = await webUser(t, 'Wanda Withdrawn');
    await join(pub, editor);
    await pub.owner.b.post(`${pub.base}/members`, { username: invitee.username, role: 'owner' });
    const page = await pub.owner.b.get(pub.base);
    expect(page.text).toContain('<h3>Invited</h3>');
    expect(page.text).toContain('Wanda Withdrawn');
    expect(page.text).toContain(`action="${pub.base}/members/${editor.username}/remove"`);
    // An editor sees the invitation, but no owner's button.
    const seen = await editor.b.get(pub.base);
    expect(seen.text).toContain('Wanda Withdrawn');
    expect(seen.text).not.toContain(`/invitations/${invitee.username}/withdraw`);
    expect(seen.text).not.toContain(`/members/${pub.owner.username}/remove`);
    expect((await editor.b.post(`${pub.base}/invitations/${invitee.username}/withdraw`, {})).status).toBe(403);
    expect((await editor.b.post(`${pub.base}/members/${pub.owner.username}/remove`, {})).status).toBe(403);

    await pub.owner.b.get(pub.base);
    expect((await pub.owner.b.post(`${pub.base}/invitations/${invitee.username}/withdraw`, {})).location).toBe(`${pub.base}?done=withdrawn`);
    expect((await invitee.b.get('/me')).text).not.toContain('/me/invitations/');
    await pub.owner.b.get(pub.base);
    expect((await pub.owner.b.post(`${pub.base}/members/${editor.username}/remove`, {})).location).toBe(`${pub.base}?done=member-removed`);
    expect((await editor.b.get(pub.base)).status).toBe(404);

    // Alone now: leaving or stepping down is refused, with the reason on the page.
    await pub.owner.b.get(pub.base);
    const leave = await pub.owner.b.post(`${pub.base}/members/${pub.owner.username}/remove`, {});
    expect(leave.status).toBe(409);
    expect(leave.text).toContain('A publication always keeps an owner');
    await pub.owner.b.get(pub.base);
    const demote = await pub.owner.b.post(`${pub.base}/members`, { username: pub.owner.username, role: 'editor' });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('A publication always keeps an owner');
    expect((await pub.owner.b.get(pub.base)).status).toBe(200);
  });

  it("an owner sees and revokes the keys other members made for the publication; an editor cannot", async () => {
    const pub = await webPublication(t);
    const editor = await webUser(t, 'Kim Keys');
    await join(pub, editor);
    const made = await editor.api.post('/api/v1/account/api-keys', { name: 'Editor CMS', publisher: pub.slug });
    expect(made.status, made.text).toBe(201);
    const ownerKey = await pub.owner.api.post('/api/v1/account/api-keys', { name: 'Owner CMS', publisher: pub.slug });
    const page = await pub.owner.b.get(`${pub.base}/keys`);
    expect(page.text).toContain('Other members’ keys');
    expect(page.text).toContain('Editor CMS');
    expect(page.text).toContain(editor.username);
    expect(page.text).not.toContain(made.body.data.key);
    // The editor sees only their own keys, and cannot revoke the owner's.
    const theirs = await editor.b.get(`${pub.base}/keys`);
    expect(theirs.text).not.toContain('Other members’ keys');
    expect(theirs.text).not.toContain('Owner CMS');
    expect((await editor.b.post(`${pub.base}/keys/${ownerKey.body.data.id}/revoke`, {})).status).toBe(403);
    await pub.owner.b.get(`${pub.base}/keys`);
    const revoked = await pub.owner.b.post(`${pub.base}/keys/${made.body.data.id}/revoke`, {});
    expect(revoked.location).toBe(`${pub.base}/keys?done=revoked`);
    expect((await new Client(t.baseUrl).as(made.body.data.key).get('/api/v1/pages')).status).toBe(401);
    expect((await new Client(t.baseUrl).as(ownerKey.body.data.key).get('/api/v1/pages')).status).toBe(200);
  });

  it('a member leaves on their own', async () => {
    const pub = await webPublication(t);
    const editor = await webUser(t, 'Lee Leaving');
    await join(pub, editor);
    const page = await editor.b.get(pub.base);
    expect(page.text).toContain(`action="${pub.base}/members/${editor.username}/remove"`);
    const left = await editor.b.post(`${pub.base}/members/${editor.username}/remove`, {});
    expect(left.location).toBe('/dashboard?all=1');
    expect((await editor.b.get(pub.base)).status).toBe(404);
  });
});

describe('domains', () => {
  it('claims a domain, shows both ways to verify, says what the check found, then verifies by the file', async () => {
    const u = await webUser(t);
    const slug = `dom-${unique()}`;
    await u.b.get('/dashboard');
    await u.b.post('/dashboard', { name: 'Domain Test', slug });
    const base = `/dashboard/${slug}`;
    await u.b.get(`${base}/domains`);
    const bad = await u.b.post(`${base}/domains`, { domain: 'localhost' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-domain-error"');
    const claim = await u.b.post(`${base}/domains`, { domain: 'News.Example-Web.test' });
    expect(claim.location).toBe(`${base}/domains?done=claimed`);
    const page = await u.b.get(`${base}/domains?done=claimed`);
    const token = (await t.runtime.deps.db.selectFrom('domains').select('token').where('domain', '=', 'news.example-web.test').executeTakeFirstOrThrow()).token;
    expect(page.text).toContain(`credence-verification=${token}`);
    expect(page.text).toContain('https://news.example-web.test/.well-known/credence-verification.txt');
    expect(page.text).toContain('data-copy="txt-0"');
    expect(page.text).toContain('not verified yet');

    const early = await u.b.post(`${base}/domains/news.example-web.test/verify`, {});
    expect(early.status).toBe(400);
    expect(early.text).toContain('role="alert"');
    expect(early.text).toContain('DNS: no TXT records');
    expect(early.text).toContain('File: answered HTTP 404');

    files.set('/.well-known/credence-verification.txt', { status: 200, body: `${token}\n` });
    const ok = await u.b.post(`${base}/domains/news.example-web.test/verify`, {});
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`${base}/domains?done=verified`);
    files.clear();
    const after = await u.b.get(`${base}/domains?done=verified`);
    expect(after.text).toContain('Verified');
    expect(after.text).toContain('by well-known file');
    expect(after.text).not.toContain('/verify"');
  });

  it('verifies by the DNS record', async () => {
    const u = await webUser(t);
    const slug = `dns-${unique()}`;
    await u.b.get('/dashboard');
    await u.b.post('/dashboard', { name: 'DNS Test', slug });
    await u.b.get(`/dashboard/${slug}/domains`);
    await u.b.post(`/dashboard/${slug}/domains`, { domain: `${slug}.example` });
    const { token } = await t.runtime.deps.db.selectFrom('domains').select('token').where('domain', '=', `${slug}.example`).executeTakeFirstOrThrow();
    t.dns.txt.set(`${slug}.example`, [[`credence-verification=${token}`]]);
    await u.b.get(`/dashboard/${slug}/domains`);
    const ok = await u.b.post(`/dashboard/${slug}/domains/${slug}.example/verify`, {});
    expect(ok.location).toBe(`/dashboard/${slug}/domains?done=verified`);
    expect((await u.b.get(`/dashboard/${slug}/domains`)).text).toContain('by DNS record');
  });
});

describe('pages', () => {
  let pub: WebPublication;
  beforeAll(async () => {
    pub = await webPublication(t);
  });

  it('registers one page, refusing one off the verified domains beside the URL field', async () => {
    await pub.owner.b.get(`${pub.base}/pages`);
    const off = await pub.owner.b.post(`${pub.base}/pages`, { url: 'https://elsewhere.example/a', title: 'A', topic: '' });
    expect(off.status).toBe(403);
    expect(off.text).toContain('id="f-url-error"');
    expect(off.text).toContain('elsewhere.example is not a verified site');
    expect(off.text).toContain('value="https://elsewhere.example/a"');
    const badUrl = await pub.owner.b.post(`${pub.base}/pages`, { url: 'ftp://x', title: '' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.text).toContain('must be an http or https URL');
    const noAuthor = await pub.owner.b.post(`${pub.base}/pages`, { url: `https://${pub.domain}/a`, authors: 'nobody-here' });
    expect(noAuthor.status).toBe(400);
    expect(noAuthor.text).toContain('id="f-authors-error"');

    const author = await webUser(t, 'Nellie Bly');
    const ok = await pub.owner.b.post(`${pub.base}/pages`, { url: `https://${pub.domain}/a`, title: 'The <A> story', topic: 'Health', authors: author.username });
    expect(ok.location).toBe(`${pub.base}/pages?done=created`);
    await confirmClaims(author);
    const again = await pub.owner.b.post(`${pub.base}/pages`, { url: `https://${pub.domain}/a/`, title: 'The <A> story', topic: 'health', authors: '' });
    expect(again.location).toBe(`${pub.base}/pages?done=skipped`);
    const list = await pub.owner.b.get(`${pub.base}/pages?done=created`);
    expect(list.text).toContain('The page is registered.');
    expect(list.text).toContain('The &lt;A&gt; story');
    expect(list.text).toContain('On record (1)');
    const { id } = await t.runtime.deps.db.selectFrom('pages').select('id').where('lookup_key', '=', `${pub.domain}/a`).executeTakeFirstOrThrow();
    const detail = await pub.owner.b.get(`${pub.base}/pages/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('Nellie Bly');
    expect(detail.text).toContain('Author');
    expect(detail.text).toContain(`href="/records/${id}"`);
    expect(detail.text).toContain(`href="${pub.base}/embed?page=${id}"`);
    expect((await pub.owner.b.get(`${pub.base}/pages/999999`)).status).toBe(404);
    expect((await pub.owner.b.get(`${pub.base}/pages/abc`)).status).toBe(404);
  });

  it('registers a pasted list through the batch service, with each line’s result', async () => {
    await pub.owner.b.get(`${pub.base}/pages`);
    const lines = [
      `https://${pub.domain}/list/one | First of the list | health`,
      '',
      `https://${pub.domain}/list/two`,
      'not a url',
      'https://unverified.example/x | Elsewhere',
      `https://${pub.domain}/list/one | First of the list | health`,
    ].join('\n');
    const res = await pub.owner.b.post(`${pub.base}/pages/batch`, { lines });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Your list: 2 created, 1 skipped, 2 failed');
    const rows = [...res.text.matchAll(/<td role="cell" data-label="Line">(\d+)<\/td><td role="cell" data-label="URL" class="wrap">([^<]*)<\/td><td role="cell" data-label="Result"><span class="badge[^"]*">(\w+)<\/span>/g)].map((m) => [Number(m[1]), m[3]]);
    expect(rows).toEqual([
      [1, 'created'],
      [3, 'created'],
      [4, 'failed'],
      [5, 'failed'],
      [6, 'skipped'],
    ]);
    expect(res.text).toContain('unverified.example is not a verified site');
    const page = await t.runtime.deps.db.selectFrom('pages').select(['title', 'topic']).where('lookup_key', '=', `${pub.domain}/list/one`).executeTakeFirstOrThrow();
    expect(page).toEqual({ title: 'First of the list', topic: 'health' });

    const empty = await pub.owner.b.post(`${pub.base}/pages/batch`, { lines: '  \n ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Paste at least one URL');
    const tooMany = await pub.owner.b.post(`${pub.base}/pages/batch`, { lines: Array.from({ length: 501 }, (_, i) => `https://${pub.domain}/n/${i}`).join('\n') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.text).toContain('At most 500 lines at once; this list has 501');
  });
});

describe('requests', () => {
  it('opens a request on a registered page or a new URL, lists it with its status, and cancels it', async () => {
    const pub = await webPublication(t);
    const page = await registerPage(t, pub, 'req/one', 'Measles story');
    const form = await pub.owner.b.get(`${pub.base}/requests?for=${page.id}`);
    // One field for the page: started on the page asked for, the publication's pages offered as one types.
    expect(form.text).toContain(`list="your-pages" value="${page.url}"`);
    expect(form.text).toContain(`<datalist id="your-pages"><option value="${page.url}">Measles story</option></datalist>`);
    expect(form.text).not.toContain('<select id="f-article_ref_id"');
    const none = await pub.owner.b.post(`${pub.base}/requests`, { url: '', request_type: 'reviewer' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Give the page’s address: one of yours, or a new one');
    const byAddress = await pub.owner.b.post(`${pub.base}/requests`, { url: page.url, request_type: 'editor', title: 'Tighten the lede' });
    expect(byAddress.location).toBe(`${pub.base}/requests?done=opened`);
    const badKind = await pub.owner.b.post(`${pub.base}/requests`, { article_ref_id: String(page.id), request_type: 'astrologer' });
    expect(badKind.status).toBe(400);
    expect(badKind.text).toContain('id="f-request_type-error"');
    const both = await pub.owner.b.post(`${pub.base}/requests`, { article_ref_id: String(page.id), url: `https://${pub.domain}/x`, request_type: 'reviewer' });
    expect(both.status).toBe(400);
    expect(both.text).toContain('not both');

    const ok = await pub.owner.b.post(`${pub.base}/requests`, { article_ref_id: String(page.id), request_type: 'fact_checker', title: 'Check the numbers', brief: 'Use the CDC tables', topic: '' });
    expect(ok.location).toBe(`${pub.base}/requests?done=opened`);
    const byUrl = await pub.owner.b.post(`${pub.base}/requests`, { article_ref_id: '', url: `https://${pub.domain}/req/new`, request_type: 'correction', topic: 'science' });
    expect(byUrl.location).toBe(`${pub.base}/requests?done=opened`);
    const list = await pub.owner.b.get(`${pub.base}/requests?done=opened`);
    expect(list.text).toContain('Check the numbers');
    expect(list.text).toContain('Fact check');
    expect(list.text).toMatch(/<span class="badge warn">open<\/span>/);
    expect(list.text).toContain('All requests (3)');

    // A specialist takes one: the list says who.
    const specialist = await webUser(t, 'Ida Wells');
    const [first] = await t.runtime.deps.db.selectFrom('requests').select('id').where('title', '=', 'Check the numbers').execute();
    expect((await specialist.api.post(`/api/v1/review-requests/${first!.id}/take`)).status).toBe(200);
    const taken = await pub.owner.b.get(`${pub.base}/requests`);
    expect(taken.text).toContain(`href="/contributors/${specialist.username}"`);

    const cancel = await pub.owner.b.post(`${pub.base}/requests/${first!.id}/cancel`, {});
    expect(cancel.location).toBe(`${pub.base}/requests?done=cancelled`);
    const after = await pub.owner.b.get(`${pub.base}/requests?done=cancelled`);
    expect(after.text).toContain('<span class="badge bad">cancelled</span>');
    const again = await pub.owner.b.post(`${pub.base}/requests/${first!.id}/cancel`, {});
    expect(again.status).toBe(409);
  });
});

describe('the inbox', () => {
  it('shows the evidence, escaped, with the change as a diff, and accepts with a note', async () => {
    const pub = await webPublication(t);
    const page = await registerPage(t, pub, 'inbox/one', 'Vaccines story');
    const specialist = await webUser(t, 'Ida <b>Wells</b>');
    const id = await submitCorrection(specialist, page.url, {
      evidence: {
        before: 'Rates fell to 70% last year.',
        after: 'Rates fell to 79% last year.',
        reason: 'The <script>alert(1)</script> CDC table says 79%.',
        sources: ['https://www.cdc.gov/table?a=1&b=2'],
      },
    });
    const inbox = await pub.owner.b.get(`${pub.base}/inbox`);
    expect(inbox.status).toBe(200);
    expect(inbox.text).toMatch(/Inbox <span class="count" aria-label="1 pending">1<\/span>/);
    expect(inbox.text).toContain('Rates fell to <del>70</del><ins>79</ins>% last year.');
    expect(inbox.text).toContain('The &lt;script&gt;alert(1)&lt;/script&gt; CDC table says 79%.');
    expect(inbox.text).not.toContain('<script>alert(1)');
    expect(inbox.text).toContain('Ida &lt;b&gt;Wells&lt;/b&gt;');
    expect(inbox.text).toContain('href="https://www.cdc.gov/table?a=1&amp;b=2"');
    expect(inbox.text).toContain(`action="${pub.base}/inbox/${id}/decide"`);

    const bad = await pub.owner.b.post(`${pub.base}/inbox/${id}/decide`, { decision: 'maybe', note: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('must be one of: accept, reject');

    const ok = await pub.owner.b.post(`${pub.base}/inbox/${id}/decide`, { decision: 'accept', note: 'Thanks, <well> spotted' });
    expect(ok.status).toBe(303);
    const proof = /proof=(\d+)$/.exec(ok.location ?? '')?.[1];
    expect(ok.location).toBe(`${pub.base}/inbox?done=accepted&proof=${proof}`);
    const done = await pub.owner.b.get(ok.location!);
    expect(done.text).toContain(`<a href="/proofs/${proof}">see its proof</a>`);
    expect(done.text).toContain('Nothing waiting for a decision.');
    const accepted = await pub.owner.b.get(`${pub.base}/inbox?status=accepted`);
    expect(accepted.text).toContain('“Thanks, &lt;well&gt; spotted”');
    expect(accepted.text).toContain(`href="/records/${page.id}"`);
    // The record has it, and deciding again is refused with the reason beside the submission.
    const record = await new Client(t.baseUrl).get(`/api/v1/articles/${page.id}`);
    expect(record.body.data.contributors.correction[0]).toMatchObject({ username: specialist.username, proof_url: `https://credence.test/proofs/${proof}` });
    const twice = await pub.owner.b.post(`${pub.base}/inbox/${id}/decide`, { decision: 'reject' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain(`Submission ${id} is already accepted`);
  });

  it('rejects with a note, reopening the request; a member’s own work has no buttons', async () => {
    const pub = await webPublication(t);
    const page = await registerPage(t, pub, 'inbox/two');
    const specialist = await webUser(t, 'Sam Specialist');
    await pub.owner.b.get(`${pub.base}/requests`);
    await pub.owner.b.post(`${pub.base}/requests`, { article_ref_id: String(page.id), request_type: 'correction' });
    const { id: requestId } = await t.runtime.deps.db.selectFrom('requests').select('id').where('page_id', '=', page.id).executeTakeFirstOrThrow();
    await specialist.api.post(`/api/v1/review-requests/${requestId}/take`);
    const id = await submitCorrection(specialist, page.url, { request_id: requestId });
    const inbox = await pub.owner.b.get(`${pub.base}/inbox`);
    expect(inbox.text).toContain(`answers request #${requestId}`);
    const no = await pub.owner.b.post(`${pub.base}/inbox/${id}/decide`, { decision: 'reject', note: 'The table says 70%.' });
    expect(no.location).toBe(`${pub.base}/inbox?done=rejected`);
    const request = await t.runtime.deps.db.selectFrom('requests').select('status').where('id', '=', requestId).executeTakeFirstOrThrow();
    expect(request.status).toBe('open');
    const rejected = await pub.owner.b.get(`${pub.base}/inbox?status=rejected`);
    expect(rejected.text).toContain('“The table says 70%.”');

    // The owner's own submission on their own page: another member decides it.
    const own = await submitCorrection(pub.owner, page.url);
    const mine = await pub.owner.b.get(`${pub.base}/inbox`);
    expect(mine.text).toContain('This is your own work');
    expect(mine.text).not.toContain(`action="${pub.base}/inbox/${own}/decide"`);
    const forced = await pub.owner.b.post(`${pub.base}/inbox/${own}/decide`, { decision: 'accept' });
    expect(forced.status).toBe(403);
    expect(forced.text).toContain('Nobody decides their own submission');
  });
});

describe('API keys', () => {
  it('shows a new key’s secret once, on the page answering the post, and revokes it', async () => {
    const pub = await webPublication(t);
    const keys = await pub.owner.b.get(`${pub.base}/keys`);
    expect(keys.text).toContain('No keys yet.');
    const bad = await pub.owner.b.post(`${pub.base}/keys`, { name: '', expires_in_days: '99999' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="f-name-error"');
    expect(bad.text).toContain('id="f-expires_in_days-error"');
    const made = await pub.owner.b.postFollow(`${pub.base}/keys`, { name: 'CMS <prod>', expires_in_days: '90' });
    expect(made.posted.location).toBe(`${pub.base}/keys#secret`);
    expect(made.status).toBe(200);
    const secret = /cred_live_[0-9a-f]{64}/.exec(made.text)?.[0];
    expect(secret).toBeDefined();
    // Post/Redirect/Get: the POST's own answer holds no secret, and a reload shows it no more and makes no key.
    expect(made.posted.text).not.toContain('cred_live_');
    expect((await pub.owner.b.get(`${pub.base}/keys`)).text).not.toContain(secret!);
    expect(made.text).toContain('shown only this once');
    expect(made.text).toContain('data-copy="secret-value"');
    expect(made.text).toContain('CMS &lt;prod&gt;');
    // The key acts for this publication on the API.
    const api = new Client(t.baseUrl).as(secret!);
    const reg = await api.post('/api/v1/pages', { url: `https://${pub.domain}/by-key`, title: 'By key' });
    expect(reg.status, reg.text).toBe(201);
    // Listed by prefix and last four, never again in full; last use shows.
    const list = await pub.owner.b.get(`${pub.base}/keys`);
    expect(list.text).not.toContain(secret!);
    expect(list.text).toContain(`${secret!.slice(0, 14)}…${secret!.slice(-4)}`);
    expect(list.text).toContain('<time datetime="2026-11-21T10:00:00.000Z">21 Nov 2026, 10:00 UTC</time>');
    expect(list.text).toContain('<span class="badge ok">active</span>');
    const { id } = await t.runtime.deps.db.selectFrom('api_keys').select('id').where('name', '=', 'CMS <prod>').executeTakeFirstOrThrow();
    const revoke = await pub.owner.b.post(`${pub.base}/keys/${id}/revoke`, {});
    expect(revoke.location).toBe(`${pub.base}/keys?done=revoked`);
    expect((await pub.owner.b.get(`${pub.base}/keys?done=revoked`)).text).toContain('<span class="badge bad">revoked</span>');
    expect((await api.get('/api/v1/pages')).status).toBe(401);
  });
});

describe('the embed generator', () => {
  it('shows the snippet and the three styles rendered by the embed renderer', async () => {
    const pub = await webPublication(t);
    const author = await webUser(t, 'Nellie Bly');
    const empty = await pub.owner.b.get(`${pub.base}/embed`);
    expect(empty.text).toContain('Register a page first.');
    await pub.owner.b.get(`${pub.base}/pages`);
    await pub.owner.b.post(`${pub.base}/pages`, { url: `https://${pub.domain}/e`, title: 'Embedded', authors: author.username });
    await confirmClaims(author);
    const { id } = await t.runtime.deps.db.selectFrom('pages').select('id').where('lookup_key', '=', `${pub.domain}/e`).executeTakeFirstOrThrow();
    const page = await pub.owner.b.get(`${pub.base}/embed?page=${id}&style=compact&lang=de`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `&lt;script async src=&quot;https://credence.test/embed.js&quot; data-page=&quot;https://${pub.domain}/e&quot; data-style=&quot;compact&quot; data-lang=&quot;de&quot;&gt;&lt;/script&gt;`,
    );
    expect(page.text).toContain('data-page=&quot;auto&quot;');
    expect(page.text).toContain('class="credence credence--full"');
    expect(page.text).toContain('class="credence credence--compact"');
    expect(page.text).toContain('class="credence credence--badge"');
    expect(page.text).toContain('Geschrieben von Nellie Bly');
    expect(page.text).toContain('<input type="radio" name="style" value="compact" checked>');
    expect(page.text).toContain(`<script async src="/embed.js" data-page="https://${pub.domain}/e" data-style="compact" data-lang="de"></script>`);
    // Unknown choices fall back rather than fail.
    const odd = await pub.owner.b.get(`${pub.base}/embed?page=nope&style=huge&lang=xx`);
    expect(odd.status).toBe(200);
    expect(odd.text).toContain('<input type="radio" name="style" value="full" checked>');
  });
});
