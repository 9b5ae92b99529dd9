// Membership's security cases beyond the credential checks every route gets from the route table (no credential,
// revoked or expired key, a key on these session-only routes): another publication's members, invitations, keys
// and webhooks are out of reach (404, as if they did not exist), an editor cannot do an owner's part (403), an
// invitation is answered only by the person invited, and no refused attempt changes anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../client.js';
import { addMember, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
/** Two publications; B's things are what A's owner must not reach. */
let a: TestPublisher;
let b: TestPublisher;
/** An editor of B (and nothing of A). */
let bEditor: TestUser;
/** Owner of A, editor of B: owning one publication gives nothing over another. */
let both: TestUser;
let bKeyId: number;
let bKey: string;
let bHookId: number;
let bInvitee: TestUser;
let bInvitationId: number;

const base = (p: TestPublisher) => `/api/v1/account/publishers/${p.slug}`;
const db = () => t.runtime.deps.db;

beforeAll(async () => {
  t = await startTestApp({ webhookAllowPrivate: true });
  a = await publisher(t);
  b = await publisher(t);
  bEditor = await signup(t);
  await addMember(b.owner.client, b.slug, bEditor);
  both = await signup(t);
  await addMember(a.owner.client, a.slug, both, 'owner');
  await addMember(b.owner.client, b.slug, both, 'editor');
  const key = await b.owner.client.post('/api/v1/account/api-keys', { name: 'b cms', publisher: b.slug });
  expect(key.status, key.text).toBe(201);
  bKeyId = key.body.data.id;
  bKey = key.body.data.key;
  const hook = await b.owner.client.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/b', format: 'v1', publisher: b.slug });
  expect(hook.status, hook.text).toBe(201);
  bHookId = hook.body.data.id;
  bInvitee = await signup(t);
  expect((await b.owner.client.post(`${base(b)}/members`, { username: bInvitee.username, role: 'editor' })).status).toBe(202);
  bInvitationId = (await bInvitee.client.get('/api/v1/account/publisher-invitations')).body.data[0].id;
});
afterAll(async () => t?.close());

/** Everything a refused attempt could have changed. */
async function snapshot() {
  const [members, invitations, keys, hooks] = await Promise.all([
    db().selectFrom('publisher_members').select(['publisher_id', 'account_id', 'role']).orderBy('publisher_id').orderBy('account_id').execute(),
    db().selectFrom('publisher_invitations').select(['id', 'publisher_id', 'account_id', 'role']).orderBy('id').execute(),
    db().selectFrom('api_keys').select(['id', 'revoked_at']).orderBy('id').execute(),
    db().selectFrom('webhooks').select(['id', 'account_id', 'url', 'enabled']).orderBy('id').execute(),
  ]);
  return { members, invitations, keys, hooks };
}

describe("another publication's membership, keys and webhooks", () => {
  it("A's owner gets 404 for everything of B, as for a publication that does not exist, and nothing changes", async () => {
    const before = await snapshot();
    const as = a.owner.client;
    const attempts: [string, () => Promise<{ status: number; body: any }>][] = [
      ['list B members', () => as.get(`${base(b)}/members`)],
      ['invite to B', () => as.post(`${base(b)}/members`, { username: a.owner.username, role: 'owner' })],
      ['remove B owner', () => as.delete(`${base(b)}/members/${b.owner.username}`)],
      ['transfer B', () => as.post(`${base(b)}/transfer`, { username: a.owner.username })],
      ['list B invitations', () => as.get(`${base(b)}/invitations`)],
      ['withdraw a B invitation', () => as.delete(`${base(b)}/invitations/${bInvitee.username}`)],
      ['list B keys', () => as.get(`${base(b)}/publisher-keys`)],
      ['revoke a B key', () => as.delete(`${base(b)}/publisher-keys/${bKeyId}`)],
      // B's key through A's own address: as if it did not exist.
      ['revoke a B key through A', () => as.delete(`${base(a)}/publisher-keys/${bKeyId}`)],
      ['read B webhook', () => as.get(`/api/v1/account/webhooks/${bHookId}`)],
      ['change B webhook', () => as.patch(`/api/v1/account/webhooks/${bHookId}`, { url: 'http://127.0.0.1:9/stolen' })],
      ['delete B webhook', () => as.delete(`/api/v1/account/webhooks/${bHookId}`)],
      ['B webhook deliveries', () => as.get(`/api/v1/account/webhooks/${bHookId}/deliveries`)],
      ['accept B invitation of someone else', () => as.post(`/api/v1/account/publisher-invitations/${bInvitationId}/accept`)],
      ['decline B invitation of someone else', () => as.post(`/api/v1/account/publisher-invitations/${bInvitationId}/decline`)],
    ];
    for (const [name, attempt] of attempts) {
      const res = await attempt();
      expect(res.status, name).toBe(404);
      expect(res.body.error.code, name).toBe('not_found');
    }
    const missing = '/api/v1/account/publishers/no-such-publication';
    expect((await as.get(`${missing}/publisher-keys`)).body).toEqual((await as.get(`${base(b)}/publisher-keys`)).body);
    expect((await as.get(`${missing}/invitations`)).body).toEqual((await as.get(`${base(b)}/invitations`)).body);
    expect((await as.get('/api/v1/account/webhooks')).body.data.map((w: { id: number }) => w.id)).not.toContain(bHookId);
    expect(await snapshot()).toEqual(before);
    expect((await new Client(t.baseUrl).as(bKey).get('/api/v1/pages')).status).toBe(200);
  });

  it("owning A gives nothing over B, where the same person is an editor: B's owner's webhook and keys stay out of reach", async () => {
    const before = await snapshot();
    expect((await both.client.get('/api/v1/account/webhooks')).body.data.map((w: { id: number }) => w.id)).not.toContain(bHookId);
    expect((await both.client.get(`/api/v1/account/webhooks/${bHookId}`)).status).toBe(404);
    expect((await both.client.patch(`/api/v1/account/webhooks/${bHookId}`, { enabled: false })).status).toBe(404);
    expect((await both.client.delete(`/api/v1/account/webhooks/${bHookId}`)).status).toBe(404);
    expect((await both.client.get(`${base(b)}/publisher-keys`)).status).toBe(403);
    expect((await both.client.delete(`${base(b)}/publisher-keys/${bKeyId}`)).status).toBe(403);
    expect((await both.client.delete(`${base(a)}/publisher-keys/${bKeyId}`)).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });
});

describe("an editor cannot do an owner's part", () => {
  it('403 forbidden to invite, change a role, remove another member, transfer, withdraw an invitation, list or revoke keys, or take the /v1 webhook', async () => {
    const before = await snapshot();
    const ed = bEditor.client;
    const attempts: [string, () => Promise<{ status: number; body: any }>][] = [
      ['invite', () => ed.post(`${base(b)}/members`, { username: a.owner.username, role: 'editor' })],
      ['promote self', () => ed.post(`${base(b)}/members`, { username: bEditor.username, role: 'owner' })],
      ['demote the owner', () => ed.post(`${base(b)}/members`, { username: b.owner.username, role: 'editor' })],
      ['remove the owner', () => ed.delete(`${base(b)}/members/${b.owner.username}`)],
      ['transfer to self', () => ed.post(`${base(b)}/transfer`, { username: bEditor.username })],
      ['withdraw', () => ed.delete(`${base(b)}/invitations/${bInvitee.username}`)],
      ['list keys', () => ed.get(`${base(b)}/publisher-keys`)],
      ['revoke a key', () => ed.delete(`${base(b)}/publisher-keys/${bKeyId}`)],
      ['register the /v1 webhook', () => ed.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/mine', format: 'v1', publisher: b.slug })],
    ];
    for (const [name, attempt] of attempts) {
      const res = await attempt();
      expect(res.status, name).toBe(403);
      expect(res.body.error.code, name).toBe('forbidden');
    }
    // Members may read who is a member and who is invited.
    expect((await ed.get(`${base(b)}/members`)).status).toBe(200);
    expect((await ed.get(`${base(b)}/invitations`)).status).toBe(200);
    // The owner's webhook is not the editor's to see.
    expect((await ed.get(`/api/v1/account/webhooks/${bHookId}`)).status).toBe(404);
    expect(await snapshot()).toEqual(before);
  });
});

describe('an invitation needs the consent of the person invited', () => {
  it('until they accept, they are not a member: no publication, no publisher key, 404 on its routes', async () => {
    const before = await snapshot();
    const u = bInvitee.client;
    expect((await u.get('/api/v1/account')).body.data.publishers).toEqual([]);
    expect((await u.get(`${base(b)}/members`)).status).toBe(404);
    expect((await u.post('/api/v1/account/api-keys', { name: 'try', publisher: b.slug })).status).toBe(404);
    expect((await u.post('/api/v1/account/webhooks', { url: 'http://127.0.0.1:9/x', publisher: b.slug })).status).toBe(404);
    expect((await u.delete(`${base(b)}/members/${bInvitee.username}`)).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    // Their next key without `publisher` stays a contributor key.
    const key = await u.post('/api/v1/account/api-keys', { name: 'mine' });
    expect(key.status, key.text).toBe(201);
    expect(key.body.data.kind).toBe('contributor');
  });

  it('a withdrawn invitation cannot be accepted; an answered one cannot be answered again', async () => {
    const u = await signup(t);
    expect((await b.owner.client.post(`${base(b)}/members`, { username: u.username, role: 'owner' })).status).toBe(202);
    const id = (await u.client.get('/api/v1/account/publisher-invitations')).body.data[0].id;
    expect((await b.owner.client.delete(`${base(b)}/invitations/${u.username}`)).status).toBe(200);
    expect((await u.client.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(404);
    expect((await u.client.get('/api/v1/account')).body.data.publishers).toEqual([]);
    expect((await b.owner.client.post(`${base(b)}/members`, { username: u.username, role: 'editor' })).status).toBe(202);
    const again = (await u.client.get('/api/v1/account/publisher-invitations')).body.data[0].id;
    expect((await u.client.post(`/api/v1/account/publisher-invitations/${again}/decline`)).status).toBe(200);
    expect((await u.client.post(`/api/v1/account/publisher-invitations/${again}/accept`)).status).toBe(404);
    expect((await u.client.get('/api/v1/account')).body.data.publishers).toEqual([]);
  });

  it('shows nobody else an invitee’s email, nor the inviter’s', async () => {
    const list = await b.owner.client.get(`${base(b)}/invitations`);
    const mine = await bInvitee.client.get('/api/v1/account/publisher-invitations');
    for (const text of [list.text, mine.text]) {
      expect(text).not.toContain(bInvitee.email);
      expect(text).not.toContain(b.owner.email);
    }
  });
});

// An invitation is only as good as its inviter's standing. Co-owner A invites B as owner; another owner
// removes A; B must not then be able to accept (the invitation still named A) and remove the remaining owner.
describe("an invitation lapses with its inviter's standing", () => {
  const members = (p: TestPublisher) => `${base(p)}/members`;
  const pendingId = async (u: TestUser, p: TestPublisher) =>
    ((await u.client.get('/api/v1/account/publisher-invitations')).body.data as { id: number; publisher: { slug: string } }[]).find((i) => i.publisher.slug === p.slug)?.id;
  const roles = async (p: TestPublisher) =>
    Object.fromEntries(((await p.owner.client.get(members(p))).body.data as { username: string; role: string }[]).map((m) => [m.username, m.role]));

  /** A publication whose founder `o` has a co-owner `coOwner`, who invites `invitee` as owner. */
  async function story() {
    const p = await publisher(t);
    const coOwner = await signup(t);
    await addMember(p.owner.client, p.slug, coOwner, 'owner');
    const invitee = await signup(t);
    expect((await coOwner.client.post(members(p), { username: invitee.username, role: 'owner' })).status).toBe(202);
    const id = await pendingId(invitee, p);
    expect(id).toBeDefined();
    return { p, coOwner, invitee, id: id! };
  }

  it('the exact story: A invites B as owner, another owner removes A, B cannot accept, nor remove the remaining owner', async () => {
    const { p, coOwner, invitee, id } = await story();
    expect((await p.owner.client.delete(`${members(p)}/${coOwner.username}`)).status).toBe(200);
    // Withdrawn with its inviter: gone from both lists, and accepting it is 404 like any withdrawn invitation.
    expect(await pendingId(invitee, p)).toBeUndefined();
    expect((await p.owner.client.get(`${base(p)}/invitations`)).body.data).toEqual([]);
    const accept = await invitee.client.post(`/api/v1/account/publisher-invitations/${id}/accept`);
    expect(accept.status, accept.text).toBe(404);
    expect((await invitee.client.delete(`${members(p)}/${p.owner.username}`)).status).toBe(404);
    expect(await roles(p)).toEqual({ [p.owner.username]: 'owner' });
  });

  it('the inviter leaving, being demoted to editor, or transferring ownership withdraws their invitations too', async () => {
    const left = await story();
    expect((await left.coOwner.client.delete(`${members(left.p)}/${left.coOwner.username}`)).status).toBe(200);
    expect((await left.invitee.client.post(`/api/v1/account/publisher-invitations/${left.id}/accept`)).status).toBe(404);

    const demoted = await story();
    expect((await demoted.p.owner.client.post(members(demoted.p), { username: demoted.coOwner.username, role: 'editor' })).status).toBe(200);
    expect((await demoted.invitee.client.post(`/api/v1/account/publisher-invitations/${demoted.id}/accept`)).status).toBe(404);

    const transferred = await story();
    const heir = await signup(t);
    await addMember(transferred.coOwner.client, transferred.p.slug, heir, 'editor');
    expect((await transferred.coOwner.client.post(`${base(transferred.p)}/transfer`, { username: heir.username })).status).toBe(200);
    expect((await transferred.invitee.client.post(`/api/v1/account/publisher-invitations/${transferred.id}/accept`)).status).toBe(404);
    for (const s of [left, demoted, transferred]) expect(Object.keys(await roles(s.p))).not.toContain(s.invitee.username);
  });

  it("acceptance checks the inviter's standing again under the lock, even for an invitation left from before the rule", async () => {
    const { p, coOwner, invitee, id } = await story();
    // As a row written before invitations were withdrawn with their inviter: the inviter is gone, the invitation stays.
    const pub = await db().selectFrom('publishers').select('id').where('slug', '=', p.slug).executeTakeFirstOrThrow();
    await db().deleteFrom('publisher_members').where('publisher_id', '=', pub.id).where('account_id', '=', coOwner.id).execute();
    expect(await pendingId(invitee, p)).toBe(id);
    expect((await invitee.client.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(404);
    expect(await pendingId(invitee, p)).toBeUndefined();
    expect(Object.keys(await roles(p))).not.toContain(invitee.username);
  });

  it('an invitation from an owner who stays an owner is still good', async () => {
    const { p, invitee, id } = await story();
    expect((await invitee.client.post(`/api/v1/account/publisher-invitations/${id}/accept`)).status).toBe(200);
    expect((await roles(p))[invitee.username]).toBe('owner');
  });
});
