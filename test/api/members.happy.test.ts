// Publication membership: consent by invitation, removal, leaving, transfer, a publication always
// keeps an owner, and owners manage every publication-level resource (webhooks, the /v1 one included, and keys).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
});
afterAll(async () => t?.close());

const base = (p: TestPublisher) => `/api/v1/account/publishers/${p.slug}`;

async function invitedEditor(p: TestPublisher, role: 'editor' | 'owner' = 'editor'): Promise<TestUser> {
  const u = await signup(t);
  const inv = await p.owner.client.post(`${base(p)}/members`, { username: u.username, role });
  expect(inv.status, inv.text).toBe(202);
  const mine = await u.client.get('/api/v1/account/publisher-invitations');
  const id = mine.body.data.find((i: { publisher: { slug: string } }) => i.publisher.slug === p.slug).id;
  expect((await u.client.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(200);
  return u;
}

describe('adding someone needs their consent', () => {
  it('invites; nothing changes for them until they accept (their next key stays a contributor key)', async () => {
    const p = await publisher(t);
    const u = await signup(t);
    const inv = await p.owner.client.post(`${base(p)}/members`, { username: u.username, role: 'editor' });
    expect(inv.status).toBe(202);
    expect(inv.body.data).toMatchObject({ username: u.username, role: 'editor', status: 'invited' });
    // Not a member yet: no publication, and a key made now is a contributor key.
    expect((await u.client.get('/api/v1/account')).body.data.publishers).toEqual([]);
    const key = await u.client.post('/api/v1/account/api-keys', { name: 'mine' });
    expect(key.body.data.kind).toBe('contributor');
    expect((await u.client.get(`${base(p)}/members`)).status).toBe(404);
    const members = await p.owner.client.get(`${base(p)}/members`);
    expect(members.body.data.map((m: { username: string }) => m.username)).not.toContain(u.username);
    const pending = await p.owner.client.get(`${base(p)}/invitations`);
    expect(pending.body.data).toMatchObject([{ username: u.username, role: 'editor', invited_by: p.owner.username }]);

    const mine = await u.client.get('/api/v1/account/publisher-invitations');
    expect(mine.body.data).toMatchObject([{ publisher: { slug: p.slug }, role: 'editor' }]);
    // Someone else cannot answer it.
    const stranger = await signup(t);
    expect((await stranger.client.post(`/api/v1/account/publisher-invitations/${mine.body.data[0].id}/accept`)).status).toBe(404);
    const ok = await u.client.post(`/api/v1/account/publisher-invitations/${mine.body.data[0].id}/accept`);
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual({ slug: p.slug, name: `The ${p.slug}`, role: 'editor' });
    expect((await u.client.get('/api/v1/account')).body.data.publishers).toEqual([{ slug: p.slug, name: `The ${p.slug}`, role: 'editor' }]);
    expect((await u.client.get('/api/v1/account/publisher-invitations')).body.data).toEqual([]);
  });

  it('can be declined or withdrawn', async () => {
    const p = await publisher(t);
    const u = await signup(t);
    await p.owner.client.post(`${base(p)}/members`, { username: u.username, role: 'editor' });
    const id = (await u.client.get('/api/v1/account/publisher-invitations')).body.data[0].id;
    expect((await u.client.post(`/api/v1/account/publisher-invitations/${id}/decline`)).status).toBe(200);
    expect((await u.client.get('/api/v1/account')).body.data.publishers).toEqual([]);
    await p.owner.client.post(`${base(p)}/members`, { username: u.username, role: 'owner' });
    expect((await p.owner.client.delete(`${base(p)}/invitations/${u.username}`)).status).toBe(200);
    expect((await u.client.get('/api/v1/account/publisher-invitations')).body.data).toEqual([]);
  });
});

describe('a publication always keeps an owner', () => {
  it('the only owner can neither demote nor remove themselves', async () => {
    const p = await publisher(t);
    const demote = await p.owner.client.post(`${base(p)}/members`, { username: p.owner.username, role: 'editor' });
    expect(demote.status).toBe(409);
    const leave = await p.owner.client.delete(`${base(p)}/members/${p.owner.username}`);
    expect(leave.status).toBe(409);
    expect((await p.owner.client.get(`${base(p)}/members`)).body.data).toMatchObject([{ username: p.owner.username, role: 'owner' }]);
  });

  it('transfers ownership, after which the former owner can leave', async () => {
    const p = await publisher(t);
    const ed = await invitedEditor(p);
    expect((await ed.client.post(`${base(p)}/transfer`, { username: p.owner.username })).status).toBe(403);
    const moved = await p.owner.client.post(`${base(p)}/transfer`, { username: ed.username });
    expect(moved.status).toBe(200);
    const roles = Object.fromEntries(moved.body.data.map((m: { username: string; role: string }) => [m.username, m.role]));
    expect(roles).toEqual({ [p.owner.username]: 'editor', [ed.username]: 'owner' });
    expect((await p.owner.client.delete(`${base(p)}/members/${p.owner.username}`)).status).toBe(200);
    expect((await ed.client.delete(`${base(p)}/members/${ed.username}`)).status).toBe(409);
  });
});

describe('removing a member', () => {
  it('is for owners; the member loses every way in: their publisher keys are revoked, their webhooks pass to the owner', async () => {
    const p = await publisher(t);
    const ed = await invitedEditor(p);
    const key = await ed.client.post('/api/v1/account/api-keys', { name: 'ed cms', publisher: p.slug });
    expect(key.body.data.kind).toBe('publisher');
    const hook = await ed.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/ed', publisher: p.slug });
    expect(hook.status, hook.text).toBe(201);
    const other = await invitedEditor(p);
    // An editor cannot remove another member.
    expect((await other.client.delete(`${base(p)}/members/${ed.username}`)).status).toBe(403);
    const removed = await p.owner.client.delete(`${base(p)}/members/${ed.username}`);
    expect(removed.status).toBe(200);
    expect((await new Client(t.baseUrl).as(key.body.data.key).get('/api/v1/pages')).status).toBe(401);
    expect((await ed.client.get(`/api/v1/account/webhooks/${hook.body.data.id}/deliveries`)).status).toBe(404);
    expect((await p.owner.client.get(`/api/v1/account/webhooks/${hook.body.data.id}/deliveries`)).status).toBe(200);
    expect((await ed.client.get(`${base(p)}/members`)).status).toBe(404);
    expect((await p.owner.client.delete(`${base(p)}/members/${ed.username}`)).status).toBe(404);
  });

  it('a member can leave on their own', async () => {
    const p = await publisher(t);
    const ed = await invitedEditor(p);
    expect((await ed.client.delete(`${base(p)}/members/${ed.username}`)).status).toBe(200);
    expect((await ed.client.get('/api/v1/account')).body.data.publishers).toEqual([]);
  });
});

describe('owners manage every publication-level resource', () => {
  it('an editor cannot take the /v1 webhook; the owner replaces or deletes any member’s webhook', async () => {
    const p = await publisher(t);
    const ed = await invitedEditor(p);
    const v1 = await ed.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/v1', format: 'v1', publisher: p.slug });
    expect(v1.status).toBe(403);
    const api = await ed.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/api', publisher: p.slug });
    expect(api.status).toBe(201);
    const listed = await p.owner.client.get('/api/v1/account/webhooks');
    expect(listed.body.data.map((w: { id: number }) => w.id)).toContain(api.body.data.id);
    const changed = await p.owner.client.patch(`/api/v1/account/webhooks/${api.body.data.id}`, { url: 'http://127.0.0.1:9/owner' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.url).toBe('http://127.0.0.1:9/owner');
    expect((await p.owner.client.delete(`/api/v1/account/webhooks/${api.body.data.id}`)).status).toBe(200);
    // The owner's own /v1 endpoint; a stranger owner of another publication sees none of it.
    expect((await p.owner.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/v1', format: 'v1', publisher: p.slug })).status).toBe(201);
    const q = await publisher(t);
    expect((await q.owner.client.get('/api/v1/account/webhooks')).body.data).toEqual([]);
  });

  it('the /v1 webhook an owner registered stays in reach of whoever owns the publication after a transfer', async () => {
    const p = await publisher(t);
    const heir = await invitedEditor(p);
    const v1 = await p.owner.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/v1-old', format: 'v1', publisher: p.slug });
    expect(v1.status, v1.text).toBe(201);
    expect((await p.owner.client.post(`${base(p)}/transfer`, { username: heir.username })).status).toBe(200);
    // The new owner cannot add a second /v1 endpoint (one per publication), but can change or delete the one there.
    const second = await heir.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/v1-new', format: 'v1', publisher: p.slug });
    expect(second.status).toBe(409);
    const changed = await heir.client.patch(`/api/v1/account/webhooks/${v1.body.data.id}`, { url: 'http://127.0.0.1:9/v1-new' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.url).toBe('http://127.0.0.1:9/v1-new');
    expect((await heir.client.delete(`/api/v1/account/webhooks/${v1.body.data.id}`)).status).toBe(200);
    expect((await heir.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/v1-mine', format: 'v1', publisher: p.slug })).status).toBe(201);
  });

  it('the owner lists and revokes every key of the publication; an editor cannot', async () => {
    const p = await publisher(t);
    const ed = await invitedEditor(p);
    const key = await ed.client.post('/api/v1/account/api-keys', { name: 'ed cms', publisher: p.slug });
    const contributorKey = await ed.client.post('/api/v1/account/api-keys', { name: 'own work', publisher: null });
    const list = await p.owner.client.get(`${base(p)}/publisher-keys`);
    expect(list.status).toBe(200);
    const ids = list.body.data.map((k: { id: number }) => k.id);
    expect(ids).toContain(key.body.data.id);
    expect(ids).toContain(p.keyId);
    expect(ids).not.toContain(contributorKey.body.data.id);
    const made = Object.fromEntries(list.body.data.map((k: { id: number; made_by: string }) => [k.id, k.made_by]));
    expect(made[key.body.data.id]).toBe(ed.username);
    expect(made[p.keyId]).toBe(p.owner.username);
    expect(list.text).not.toContain(key.body.data.key);
    expect((await ed.client.get(`${base(p)}/publisher-keys`)).status).toBe(403);
    expect((await ed.client.delete(`${base(p)}/publisher-keys/${p.keyId}`)).status).toBe(403);
    expect((await p.owner.client.delete(`${base(p)}/publisher-keys/${contributorKey.body.data.id}`)).status).toBe(404);
    const revoked = await p.owner.client.delete(`${base(p)}/publisher-keys/${key.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.status).toBe('revoked');
    expect((await new Client(t.baseUrl).as(key.body.data.key).get('/api/v1/pages')).status).toBe(401);
  });
});
