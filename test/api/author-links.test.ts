// Author links: a CMS user (a WordPress author) is named as a person only once that person confirms it in Credence.
// The publication asks with its publisher key; the person sees which publication, which site and which display
// name, on /me and by mail, and confirms, declines or later unlinks; the publication reads the answer. Asks are
// capped per publication and per person; nothing private reaches the publication; the links go with the account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Res } from '../client.js';
import { Client } from '../client.js';
import { addMember, contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { FormClient } from '../web/browser-client.js';

let t: TestApp;
let pub: TestPublisher;
let other: TestPublisher;
beforeAll(async () => {
  t = await startTestApp({ authorLinkLimits: { pendingPerPublication: 4, pendingPerPerson: 2 }, rateLimitAllowlist: ['127.0.0.1'] });
  pub = await publisher(t);
  other = await publisher(t);
});
afterAll(async () => t?.close());

let n = 0;
const ask = (p: TestPublisher, person: Pick<TestUser, 'username'>, over: Record<string, unknown> = {}, client: Client = p.api) =>
  client.post(`/api/v1/publishers/${p.slug}/author-links`, { username: person.username, site: `https://${p.domain}/`, user_id: String(++n), display_name: `WP Writer ${n}`, ...over });

function expectError(res: Res, status: number, code: string, field?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code, res.text).toBe(code);
  if (field) expect(res.body.error.details?.map((d: { field: string }) => d.field), res.text).toContain(field);
}

const mailsTo = (u: TestUser) =>
  t.runtime.deps.db.selectFrom('mail_outbox').select(['kind', 'facts']).where('to_address', '=', u.email).where('kind', '=', 'author_link').execute();

describe('a publication asks to link a user of its site to a person', () => {
  it('the person is told what asks (on /account and by mail); nothing private reaches the publication; asking again asks nobody', async () => {
    const person = await signup(t);
    const res = await ask(pub, person, { site: `https://www.${pub.domain}/blog/`, user_id: '7', display_name: 'Ida T.' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      state: 'pending',
      username: person.username,
      site: `https://www.${pub.domain}/blog`,
      user_id: '7',
      display_name: 'Ida T.',
      created_at: expect.any(String),
      decided_at: null,
    });
    expect(res.text).not.toContain(person.email);
    const mine = await person.client.get('/api/v1/account/author-links?state=pending');
    expect(mine.body.data).toEqual([
      expect.objectContaining({ id: res.body.data.id, publisher: { slug: pub.slug, name: `The ${pub.slug}` }, site: `https://www.${pub.domain}/blog`, user_id: '7', display_name: 'Ida T.', state: 'pending' }),
    ]);
    const mails = await mailsTo(person);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.facts).toContain('Ida T.');
    expect(mails[0]!.facts).toContain(`/me/author-links/${res.body.data.id}`);

    const again = await ask(pub, person, { site: `https://www.${pub.domain}/blog`, user_id: '7', display_name: 'Someone else' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ id: res.body.data.id, state: 'pending', display_name: 'Ida T.' });
    expect(await mailsTo(person)).toHaveLength(1);
  });

  it('the person confirms; the publication reads it by id and in its list; they can unlink, and the ask stays answered', async () => {
    const person = await signup(t);
    const { id } = (await ask(pub, person, { user_id: 'u-1' })).body.data;
    const done = await person.client.post(`/api/v1/account/author-links/${id}/confirm`);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ id, state: 'confirmed', decided_at: expect.any(String) });
    expect((await pub.api.get(`/api/v1/publishers/${pub.slug}/author-links/${id}`)).body.data).toMatchObject({ id, state: 'confirmed', username: person.username });
    const list = await pub.api.get(`/api/v1/publishers/${pub.slug}/author-links?state=confirmed&user_id=u-1&site=${encodeURIComponent(`https://${pub.domain}`)}`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((l: { id: number }) => l.id)).toEqual([id]);
    expect(list.body.meta).toEqual({ total: 1, page: 1, per_page: 20 });
    // A member's session reads the same.
    expect((await pub.owner.client.get(`/api/v1/publishers/${pub.slug}/author-links/${id}`)).status).toBe(200);

    expectError(await person.client.post(`/api/v1/account/author-links/${id}/confirm`), 409, 'conflict');
    expect((await person.client.post(`/api/v1/account/author-links/${id}/unlink`)).body.data.state).toBe('ended');
    const reask = await ask(pub, person, { user_id: 'u-1' });
    expect(reask.status).toBe(200);
    expect(reask.body.data).toMatchObject({ id, state: 'ended' });
  });

  it('a declined ask cannot be made again by the publication; only the person can change their answer', async () => {
    const person = await signup(t);
    const { id } = (await ask(pub, person, { user_id: 'd-1' })).body.data;
    expect((await person.client.post(`/api/v1/account/author-links/${id}/decline`)).body.data.state).toBe('declined');
    const reask = await ask(pub, person, { user_id: 'd-1' });
    expect(reask.body.data).toMatchObject({ id, state: 'declined' });
    expect(await mailsTo(person)).toHaveLength(1);
    expectError(await person.client.post(`/api/v1/account/author-links/${id}/unlink`), 409, 'conflict');
    expect((await person.client.post(`/api/v1/account/author-links/${id}/confirm`)).body.data.state).toBe('confirmed');
  });

  it('bad input is a 4xx naming the field: an unknown person, a site off the verified domains, a bad address', async () => {
    const person = await signup(t);
    expectError(await ask(pub, { username: 'nobody-here-at-all' }), 400, 'invalid_request', 'username');
    expectError(await ask(pub, person, { site: 'https://elsewhere.example/' }), 403, 'page_not_verified');
    expectError(await ask(pub, person, { site: `ftp://${pub.domain}/` }), 400, 'invalid_request', 'site');
    expectError(await ask(pub, person, { site: `https://${pub.domain}/?p=1` }), 400, 'invalid_request', 'site');
    expectError(await ask(pub, person, { user_id: '   ' }), 400, 'invalid_request', 'user_id');
    expectError(await ask(pub, person, { email: person.email }), 400, 'invalid_request');
    expect((await person.client.get('/api/v1/account/author-links')).body.data).toEqual([]);
  });
});

describe('a publication cannot flood anyone with asks', () => {
  it('waiting asks are capped per person (per publication) and per publication; an answer frees a place', async () => {
    const capped = await publisher(t);
    const person = await signup(t);
    const a = await ask(capped, person);
    expect(a.status).toBe(201);
    expect((await ask(capped, person)).status).toBe(201);
    expectError(await ask(capped, person), 409, 'conflict', 'limit');
    // Another publication still has its own room with that person.
    expect((await ask(other, person)).status).toBe(201);
    await person.client.post(`/api/v1/account/author-links/${a.body.data.id}/decline`);
    expect((await ask(capped, person)).status).toBe(201);
    // Per publication: 4 waiting in all, whoever they are.
    const more = await signup(t);
    expect((await ask(capped, more)).status).toBe(201);
    expect((await ask(capped, more)).status).toBe(201);
    expectError(await ask(capped, await signup(t)), 409, 'conflict', 'limit');
  });

  it('parallel asks cannot pass the cap', async () => {
    const capped = await publisher(t);
    const person = await signup(t);
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask(capped, person)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(2);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(4);
  });
});

describe('who may ask and answer', () => {
  it('no credential is 401; a revoked key is 401; a contributor key is 403; another publication’s key is 403 and its links are not found', async () => {
    const person = await signup(t);
    const { id } = (await ask(pub, person)).body.data;
    const anon = new Client(t.baseUrl);
    const base = `/api/v1/publishers/${pub.slug}/author-links`;
    expectError(await anon.post(base, { username: person.username, site: `https://${pub.domain}/`, user_id: 'x', display_name: 'x' }), 401, 'unauthorized');
    expectError(await anon.get(`${base}/${id}`), 401, 'unauthorized');
    expectError(await anon.get('/api/v1/account/author-links'), 401, 'unauthorized');
    expectError(await anon.post(`/api/v1/account/author-links/${id}/confirm`), 401, 'unauthorized');

    const victim = await publisher(t);
    const revoked = await victim.owner.client.delete(`/api/v1/account/api-keys/${victim.keyId}`);
    expect(revoked.status, revoked.text).toBe(200);
    expectError(await ask(victim, person), 401, 'key_revoked');

    const contributor = new Client(t.baseUrl).as(await contributorKey(person));
    expectError(await ask(pub, person, {}, contributor), 403, 'forbidden');
    expectError(await contributor.get(base), 403, 'forbidden');
    // The person's answers need their session: a key of theirs (either kind) is 403 session_required.
    expectError(await contributor.post(`/api/v1/account/author-links/${id}/confirm`), 403, 'session_required');
    expectError(await contributor.get('/api/v1/account/author-links'), 403, 'session_required');
    expectError(await pub.api.post(`/api/v1/account/author-links/${id}/confirm`), 403, 'session_required');

    // Another publication: its key cannot act under this one's name, nor read this one's links under its own.
    expectError(await other.api.get(base), 403, 'forbidden');
    expectError(await other.api.get(`${base}/${id}`), 403, 'forbidden');
    expectError(await ask(pub, person, {}, other.api), 403, 'forbidden');
    expectError(await other.api.get(`/api/v1/publishers/${other.slug}/author-links/${id}`), 404, 'not_found');
    // A session in no publication is 403; a member of another publication is told this one is not found.
    expectError(await person.client.get(base), 403, 'forbidden');
    expectError(await other.owner.client.get(base), 404, 'not_found');
    // A member who is not an owner may read and ask.
    const editor = await signup(t);
    await addMember(pub.owner.client, pub.slug, editor);
    expect((await editor.client.get(`${base}/${id}`)).status).toBe(200);
  });

  it('another person cannot see or answer someone’s link', async () => {
    const person = await signup(t);
    const stranger = await signup(t);
    const { id } = (await ask(pub, person)).body.data;
    for (const answer of ['confirm', 'decline', 'unlink']) expectError(await stranger.client.post(`/api/v1/account/author-links/${id}/${answer}`), 404, 'not_found');
    expect((await stranger.client.get('/api/v1/account/author-links')).body.data).toEqual([]);
    expect((await person.client.get('/api/v1/account/author-links')).body.data[0].state).toBe('pending');
  });
});

describe('leaving', () => {
  it('erasing the account deletes its links; the publication’s reads no longer name them', async () => {
    const person = await signup(t);
    const { id } = (await ask(pub, person)).body.data;
    await person.client.post(`/api/v1/account/author-links/${id}/confirm`);
    // The export carries them, as everything else the account holds.
    const exported = await person.client.get('/api/v1/account/export');
    expect(exported.body.data.author_links).toEqual([expect.objectContaining({ id, publisher: pub.slug, state: 'confirmed', site: `https://${pub.domain}` })]);
    const erased = await person.client.delete('/api/v1/account', { body: { password: person.password } });
    expect(erased.status, erased.text).toBe(200);
    expect(await t.runtime.deps.db.selectFrom('author_links').selectAll().where('id', '=', id).execute()).toEqual([]);
    expectError(await pub.api.get(`/api/v1/publishers/${pub.slug}/author-links/${id}`), 404, 'not_found');
  });
});

describe('on /me', () => {
  it('the ask is listed on /me/names, reviewed on its own page (publication, site, display name), and answered there; unlinking asks twice', async () => {
    const person = await signup(t);
    const { id } = (await ask(pub, person, { display_name: 'Nellie B.', user_id: '42' })).body.data;
    const b = new FormClient(t.baseUrl);
    const login = await b.get('/login');
    expect(login.status).toBe(200);
    expect((await b.post('/login', { email: person.email, password: person.password })).status).toBe(303);
    const names = await b.get('/me/names');
    expect(names.text).toContain('Nellie B.');
    expect(names.text).toContain(`href="/me/author-links/${id}"`);
    const review = await b.get(`/me/author-links/${id}`);
    expect(review.status).toBe(200);
    for (const fact of [`The ${pub.slug}`, `https://${pub.domain}`, 'Nellie B.', 'user 42']) expect(review.text).toContain(fact);
    const confirmed = await b.post(`/me/author-links/${id}/confirm`, {});
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/me/names?done=link-confirmed#author-links');
    expect((await pub.api.get(`/api/v1/publishers/${pub.slug}/author-links/${id}`)).body.data.state).toBe('confirmed');
    const after = await b.get('/me/names');
    expect(after.text).toMatch(new RegExp(`<details class="confirm">[\\s\\S]*action="/me/author-links/${id}/unlink"`));
    expect((await b.post(`/me/author-links/${id}/unlink`, {})).location).toBe('/me/names?done=link-ended#author-links');
    expect((await pub.api.get(`/api/v1/publishers/${pub.slug}/author-links/${id}`)).body.data.state).toBe('ended');
    // Another person's ask is not found.
    const theirs = (await ask(pub, await signup(t))).body.data.id;
    expect((await b.get(`/me/author-links/${theirs}`)).status).toBe(404);
  });
});
