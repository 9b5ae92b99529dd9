// The contributor panel at /me over HTTP, as a browser without JavaScript uses it: take and release requests,
// submit work with errors next to the fields, withdraw, edit the profile, create and revoke API keys. Every form
// refuses a post without its CSRF token or from another origin and changes nothing; nobody withdraws another's work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';
import { makePagesWorld, type PagesWorld, signedInClient } from './pages.fixtures.js';

let t: TestApp;
let w: PagesWorld;

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  w = await makePagesWorld(t);
});
afterAll(async () => t?.close());

const db = () => t.runtime.deps.db;
const requestRow = (id: number) => db().selectFrom('requests').select(['status', 'taken_by']).where('id', '=', id).executeTakeFirstOrThrow();
const accountOf = (username: string) => db().selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirstOrThrow();
const submissionsOf = async (username: string) => {
  const a = await accountOf(username);
  return db().selectFrom('submissions').selectAll().where('account_id', '=', a.id).orderBy('id').execute();
};

/** A fresh open request on the fixture page, so tests do not share state. */
async function openRequest(kind = 'reviewer', title = 'Review the outbreak story'): Promise<number> {
  const res = await w.pub.api.post('/api/v1/requests', { url: w.page.url, request_type: kind, title, topic: 'health' });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id;
}

const validWork = (extra: Record<string, string> = {}) => ({
  summary: 'Checked every figure',
  before: '',
  after: '',
  reason: 'The numbers match the ministry dashboard of 3 March.',
  sources: 'https://ministry.example/dashboard\nhttps://archive.example/a',
  ...extra,
});

describe('signed-out visitors', () => {
  it('are sent to log in, and come back to the page they asked for', async () => {
    const b = new FormClient(t.baseUrl);
    for (const path of ['/me', '/me/requests', '/me/submit', '/me/submissions', '/me/profile', '/me/keys']) {
      const res = await b.get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location'), path).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('cannot post a form without a session, even with a valid token', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/login');
    const res = await b.post(`/me/requests/${w.requestIds[0]}/take`, {});
    expect(res.status).toBe(303);
    expect(res.location).toBe('/login?next=/me');
    expect((await requestRow(w.requestIds[0]!)).status).toBe('open');
  });
});

describe('the overview', () => {
  it('welcomes a new account, shows its scores, and is private', async () => {
    const { b } = await signedInClient(t, 'Grace Hopper');
    const res = await b.get('/me?done=welcome');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Welcome to Credence, Grace Hopper.');
    expect(res.text).toContain('<h1>Hello, Grace Hopper</h1>');
    expect(res.text).toContain('<nav class="tabs" aria-label="Your work"><a href="/me" aria-current="page">Overview</a>');
    expect(res.text).toContain('<meta name="robots" content="noindex">');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });
});

describe('the marketplace: take and release', () => {
  it('lists open requests with filters and a Take button', async () => {
    const { b } = await signedInClient(t);
    const res = await b.get('/me/requests?topic=climate');
    expect(res.text).toContain('Review the climate explainer');
    expect(res.text).not.toContain('Check the vaccination figures');
    expect(res.text).toContain(`action="/me/requests/${w.requestIds[1]}/take"`);
    // The public marketplace offers the same button once signed in.
    expect((await b.get('/requests')).text).toContain(`action="/me/requests/${w.requestIds[1]}/take"`);
  });

  it('takes a request, shows it as yours, and releases it', async () => {
    const id = await openRequest();
    const { b, username } = await signedInClient(t);
    const me = await accountOf(username);
    await b.get('/me/requests');
    const took = await b.post(`/me/requests/${id}/take`, {});
    expect(took.status).toBe(303);
    expect(took.location).toBe('/me/requests?done=taken');
    expect(await requestRow(id)).toEqual({ status: 'taken', taken_by: me.id });
    const page = await b.get('/me/requests?done=taken');
    expect(page.text).toContain('You took the request.');
    expect(page.text).toContain(`href="/me/submit?request=${id}"`);
    expect(page.text).toContain(`action="/me/requests/${id}/release"`);
    const released = await b.post(`/me/requests/${id}/release`, {});
    expect(released.location).toBe('/me/requests?done=released');
    expect(await requestRow(id)).toEqual({ status: 'open', taken_by: null });
  });

  it('says so when someone else took it first, and changes nothing', async () => {
    const id = await openRequest();
    const first = await signedInClient(t);
    const second = await signedInClient(t);
    await first.b.get('/me/requests');
    await first.b.post(`/me/requests/${id}/take`, {});
    await second.b.get('/me/requests');
    const res = await second.b.post(`/me/requests/${id}/take`, {});
    expect(res.status).toBe(409);
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain('The request is taken; it cannot be taken');
    const release = await second.b.post(`/me/requests/${id}/release`, {});
    expect(release.status).toBe(403);
    expect((await requestRow(id)).taken_by).toBe((await accountOf(first.username)).id);
  });
});

describe('submitting work', () => {
  it('shows the request being answered, and submits work on it', async () => {
    const id = await openRequest('fact_checker', 'Fact-check the outbreak dates');
    const { b, username } = await signedInClient(t);
    await b.get('/me/requests');
    await b.post(`/me/requests/${id}/take`, {});
    const form = await b.get(`/me/submit?request=${id}`);
    expect(form.text).toContain('Fact-check the outbreak dates');
    expect(form.text).toContain(`<input type="hidden" name="request_id" value="${id}">`);
    expect(form.text).not.toContain('id="f-url"');
    const res = await b.post('/me/submissions', { request_id: String(id), ...validWork() });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/me/submissions?done=submitted');
    const [s] = await submissionsOf(username);
    expect(s).toMatchObject({ request_id: id, kind: 'fact_check', status: 'pending', summary: 'Checked every figure' });
    expect(JSON.parse(s!.sources)).toEqual(['https://ministry.example/dashboard', 'https://archive.example/a']);
    const list = await b.get('/me/submissions?done=submitted');
    expect(list.text).toContain('Your work is submitted.');
    expect(list.text).toContain('Checked every figure');
  });

  it('offers to take an open request before submitting on it', async () => {
    const id = await openRequest();
    const { b } = await signedInClient(t);
    const form = await b.get(`/me/submit?request=${id}`);
    expect(form.text).toContain(`Take request ${id} before you submit work on it.`);
    expect(form.text).toContain(`action="/me/requests/${id}/take"`);
    expect((await b.get('/me/submit?request=999999')).status).toBe(404);
  });

  it('puts each problem next to its field, keeping what was typed', async () => {
    const { b, username } = await signedInClient(t);
    await b.get('/me/submit');
    const res = await b.post('/me/submissions', {
      url: w.page.url,
      role: 'correction',
      summary: '',
      before: '',
      after: 'The new <b>text</b>',
      reason: '',
      sources: 'https://fine.example/a\nnot a link',
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/id="f-summary"[^>]*aria-invalid="true"/);
    expect(res.text).toContain('<p class="field-error" id="f-summary-error">Required</p>');
    expect(res.text).toContain('<p class="field-error" id="f-reason-error">Required</p>');
    expect(res.text).toContain('The new &lt;b&gt;text&lt;/b&gt;</textarea>');
    expect(res.text).toContain(`value="${w.page.url}"`);
    expect(res.text).toContain('<option value="correction" selected>');
    // Past the schema, the service's own rules land on their fields too.
    const second = await b.post('/me/submissions', { url: w.page.url, role: 'correction', ...validWork({ sources: 'https://fine.example/a\nnot a link' }) });
    expect(second.status).toBe(400);
    expect(second.text).toContain('id="f-before-error">A correction needs the text before</p>');
    const third = await b.post('/me/submissions', { url: w.page.url, role: 'review', ...validWork({ sources: 'https://fine.example/a\nnot a link' }) });
    expect(third.status).toBe(400);
    expect(third.text).toContain('id="f-sources-error">Line 2: must be an http or https URL</p>');
    const unknown = await b.post('/me/submissions', { url: `https://${w.pub.domain}/never-registered`, role: 'review', ...validWork() });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('id="f-url-error">No registered page has this address');
    const noRole = await b.post('/me/submissions', { url: w.page.url, role: '', ...validWork() });
    expect(noRole.status).toBe(400);
    expect(noRole.text).toContain('id="f-role-error"');
    const blank = await b.post('/me/submissions', { url: '', role: '', summary: '', before: '', after: '', reason: '', sources: '' });
    expect(blank.status).toBe(400);
    for (const f of ['url', 'role', 'summary', 'reason']) expect(blank.text).toContain(`id="f-${f}-error">Required</p>`);
    // The form re-rendered under /me/submissions still marks its own section.
    expect(blank.text).toContain('<a href="/me/submit" aria-current="page">Submit work</a>');
    expect(await submissionsOf(username)).toEqual([]);
    const ok = await b.post('/me/submissions', { url: w.page.url, role: 'review', ...validWork() });
    expect(ok.status).toBe(303);
    expect(await submissionsOf(username)).toHaveLength(1);
  });
});

describe('my submissions', () => {
  it('lists them by status and withdraws a pending one, reopening its request', async () => {
    const id = await openRequest();
    const { b, username } = await signedInClient(t);
    await b.get('/me/requests');
    await b.post(`/me/requests/${id}/take`, {});
    await b.get('/me/submit');
    await b.post('/me/submissions', { request_id: String(id), ...validWork({ summary: 'To be withdrawn' }) });
    await b.post('/me/submissions', { url: w.page.url, role: 'source', ...validWork({ summary: 'Stays pending' }) });
    const [first] = await submissionsOf(username);
    const pending = await b.get('/me/submissions?status=pending');
    expect(pending.text).toContain('To be withdrawn');
    expect(pending.text).toContain(`action="/me/submissions/${first!.id}/withdraw"`);
    const res = await b.post(`/me/submissions/${first!.id}/withdraw`, {});
    expect(res.location).toBe('/me/submissions?done=withdrawn');
    expect((await submissionsOf(username))[0]!.status).toBe('withdrawn');
    expect((await requestRow(id)).status).toBe('open');
    const withdrawn = await b.get('/me/submissions?status=withdrawn');
    expect(withdrawn.text).toContain('To be withdrawn');
    expect(withdrawn.text).not.toContain('Stays pending');
    expect(withdrawn.text).not.toContain('/withdraw"');
    const again = await b.post(`/me/submissions/${first!.id}/withdraw`, {});
    expect(again.status).toBe(409);
    expect(again.text).toContain('is already withdrawn');
  });

  it('cannot withdraw another contributor’s submission', async () => {
    const victim = await signedInClient(t);
    await victim.b.get('/me/submit');
    await victim.b.post('/me/submissions', { url: w.page.url, role: 'review', ...validWork({ summary: 'Not yours' }) });
    const [theirs] = await submissionsOf(victim.username);
    const attacker = await signedInClient(t);
    await attacker.b.get('/me/submissions');
    const res = await attacker.b.post(`/me/submissions/${theirs!.id}/withdraw`, {});
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect((await submissionsOf(victim.username))[0]!.status).toBe('pending');
    expect((await attacker.b.get('/me/submissions')).text).not.toContain('Not yours');
  });
});

describe('the profile', () => {
  it('saves name, summary and topics, which the public profile shows', async () => {
    const { b, username, email } = await signedInClient(t);
    const form = await b.get('/me/profile');
    // The owner sees their own email here, and only here.
    expect(form.text).toContain(email);
    const res = await b.post('/me/profile', { name: 'Rosalind Franklin', summary: 'X-ray crystallography.', topics: 'Science, public health, science' });
    expect(res.location).toBe('/me/profile?done=saved');
    const account = await accountOf(username);
    expect(account).toMatchObject({ name: 'Rosalind Franklin', summary: 'X-ray crystallography.' });
    expect(JSON.parse(account.topics)).toEqual(['science', 'public-health']);
    const pub = await b.get(`/contributors/${username}`);
    expect(pub.text).toContain('Rosalind Franklin');
    expect(pub.text).toContain('X-ray crystallography.');
    expect(pub.text).toContain('public-health');
    expect(pub.text).not.toContain(email);
  });

  it('puts problems next to their fields and saves nothing', async () => {
    const { b, username } = await signedInClient(t, 'Kept Name');
    await b.get('/me/profile');
    const res = await b.post('/me/profile', { name: '', summary: 'x'.repeat(501), topics: `ok, ${'t'.repeat(51)}` });
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="f-name-error">Required</p>');
    expect(res.text).toContain('id="f-summary-error">Must be at most 500 characters</p>');
    expect(res.text).toContain('id="f-topics-error">Line 2: must be at most 50 characters</p>');
    expect((await accountOf(username)).name).toBe('Kept Name');
  });
});

describe('API keys', () => {
  it('shows a new key once, with a copy button, and lists it by prefix afterwards', async () => {
    const { b } = await signedInClient(t);
    await b.get('/me/keys');
    const res = await b.postFollow('/me/keys', { name: 'my scripts', expires: '30' });
    expect(res.status).toBe(200);
    expect(res.posted.location).toBe('/me/keys#new-key-h');
    expect(res.posted.text).not.toContain('cred_live_');
    const secret = /id="new-key" class="secret" readonly value="(cred_live_[0-9a-f]{64})"/.exec(res.text)?.[1];
    expect(secret).toBeDefined();
    expect(res.text).toContain('data-copy="new-key" hidden>Copy</button>');
    expect(res.text).toContain('it will not be shown again');
    // The key works as a contributor key.
    const who = await new Client(t.baseUrl).as(secret!).get('/api/v1/submissions');
    expect(who.status).toBe(200);
    const list = await b.get('/me/keys');
    expect(list.text).not.toContain(secret!);
    expect(list.text).toContain(`${secret!.slice(0, 14)}…${secret!.slice(-4)}`);
    expect(list.text).toContain('<time datetime="2026-12-31');
    expect(list.text).toContain('Me (contributor)');
  });

  it('refuses a key without a name, next to the field', async () => {
    const { b } = await signedInClient(t);
    await b.get('/me/keys');
    const res = await b.post('/me/keys', { name: '', expires: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('id="f-name-error">Required</p>');
    expect(res.text).not.toContain('cred_live_');
    const odd = await b.post('/me/keys', { name: 'x', expires: '99999' });
    expect(odd.status).toBe(400);
  });

  it('lets a publisher member choose what the key acts for', async () => {
    const b = new FormClient(t.baseUrl);
    await b.get('/login');
    await b.post('/login', { email: w.pub.owner.email, password: w.pub.owner.password });
    const page = await b.get('/me/keys');
    expect(page.text).toContain(`<option value="${w.pub.slug}">`);
    const res = await b.post('/me/keys', { name: 'cms two', expires: '', publisher: w.pub.slug });
    expect(res.status).toBe(303);
    expect((await b.get('/me/keys')).text).toContain(`The ${w.pub.slug}`);
    const stranger = await b.post('/me/keys', { name: 'x', expires: '', publisher: 'not-mine' });
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain('id="f-publisher-error"');
  });

  it('revokes a key: calls with it fail at once', async () => {
    const { b } = await signedInClient(t);
    await b.get('/me/keys');
    const created = await b.postFollow('/me/keys', { name: 'short-lived', expires: '' });
    const secret = /value="(cred_live_[0-9a-f]{64})"/.exec(created.text)![1]!;
    const id = /action="\/me\/keys\/(\d+)\/revoke"/.exec(created.text)![1]!;
    const res = await b.post(`/me/keys/${id}/revoke`, {});
    expect(res.location).toBe('/me/keys?done=revoked');
    expect((await new Client(t.baseUrl).as(secret).get('/api/v1/submissions')).body.error.code).toBe('key_revoked');
    expect((await b.get('/me/keys?done=revoked')).text).toContain('>revoked</span>');
  });

  it('cannot revoke another account’s key', async () => {
    const other = await signup(t);
    const key = await other.client.post('/api/v1/account/api-keys', { name: 'theirs', publisher: null });
    const { b } = await signedInClient(t);
    await b.get('/me/keys');
    const res = await b.post(`/me/keys/${key.body.data.id}/revoke`, {});
    expect(res.status).toBe(404);
    const row = await db().selectFrom('api_keys').select('revoked_at').where('id', '=', key.body.data.id).executeTakeFirstOrThrow();
    expect(row.revoked_at).toBeNull();
  });
});

describe('CSRF: a form without its token, or from another origin, changes nothing', () => {
  it('on every /me form', async () => {
    const { b, username } = await signedInClient(t);
    const me = await accountOf(username);
    const id = await openRequest();
    const taken = await openRequest();
    await b.get('/me/requests');
    await b.post(`/me/requests/${taken}/take`, {});
    await b.get('/me/submit');
    await b.post('/me/submissions', { url: w.page.url, role: 'review', ...validWork({ summary: 'Mine, pending' }) });
    const [mine] = await submissionsOf(username);
    await b.get('/me/keys');
    const created = await b.postFollow('/me/keys', { name: 'keep me', expires: '' });
    const keyId = /action="\/me\/keys\/(\d+)\/revoke"/.exec(created.text)![1]!;

    const snapshot = async () => ({
      requests: [await requestRow(id), await requestRow(taken)],
      submissions: (await submissionsOf(username)).map((s) => [s.id, s.status]),
      account: await accountOf(username).then((a) => [a.name, a.summary, a.topics]),
      keys: await db().selectFrom('api_keys').select(['id', 'name', 'revoked_at']).where('account_id', '=', me.id).orderBy('id').execute(),
    });
    const before = await snapshot();
    const forms: [string, Record<string, string>][] = [
      [`/me/requests/${id}/take`, {}],
      [`/me/requests/${taken}/release`, {}],
      ['/me/submissions', { url: w.page.url, role: 'review', ...validWork({ summary: 'Forged' }) }],
      [`/me/submissions/${mine!.id}/withdraw`, {}],
      ['/me/profile', { name: 'Forged', summary: 'Forged', topics: 'forged' }],
      ['/me/keys', { name: 'forged', expires: '' }],
      [`/me/keys/${keyId}/revoke`, {}],
    ];
    for (const [path, fields] of forms) {
      await b.get('/me');
      const noToken = await b.post(path, fields, { csrf: null });
      expect(noToken.status, `${path} without a token`).toBe(403);
      expect(noToken.text).toContain('came from another site');
      const wrongToken = await b.post(path, fields, { csrf: 'x'.repeat(32) });
      expect(wrongToken.status, `${path} with a wrong token`).toBe(403);
      const otherOrigin = await b.post(path, fields, { headers: { origin: 'https://evil.example' } });
      expect(otherOrigin.status, `${path} from another origin`).toBe(403);
      const otherReferer = await b.post(path, fields, { headers: { origin: '', referer: 'https://evil.example/page' } });
      expect(otherReferer.status, `${path} referred by another site`).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });
});
