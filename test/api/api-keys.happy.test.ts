// API keys (SPEC §5): format, shown once, hash only, prefix and last 4, expiry, revocation, kinds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/domain/tokens.js';
import { Client } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('API keys', () => {
  it('returns the secret once and keeps only its SHA-256 hash', async () => {
    const u = await signup(t);
    const res = await u.client.post('/api/v1/account/api-keys', { name: 'CMS', expires_in_days: 30 });
    expect(res.status).toBe(201);
    const key: string = res.body.data.key;
    expect(key).toMatch(/^cred_live_[0-9a-f]{64}$/);
    expect(res.body.data).toMatchObject({
      name: 'CMS',
      prefix: key.slice(0, 14),
      last4: key.slice(-4),
      status: 'active',
      kind: 'contributor',
      expires_at: '2026-12-21T10:00:00.000Z',
    });
    const list = await u.client.get('/api/v1/account/api-keys');
    expect(list.text).not.toContain(key);
    expect(list.body.data[0]).toMatchObject({ id: res.body.data.id, prefix: key.slice(0, 14), last4: key.slice(-4) });
    const row = await t.runtime.deps.db.selectFrom('api_keys').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256(key));
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('lists keys newest first, with meta and paging (SPEC §8)', async () => {
    const u = await signup(t);
    for (const name of ['one', 'two', 'three']) expect((await u.client.post('/api/v1/account/api-keys', { name, publisher: null })).status).toBe(201);
    const all = await u.client.get('/api/v1/account/api-keys');
    expect(all.body.meta).toEqual({ total: 3, page: 1, per_page: 20 });
    expect(all.body.data.map((k: { name: string }) => k.name)).toEqual(['three', 'two', 'one']);
    const second = await u.client.get('/api/v1/account/api-keys?page=2&per_page=2');
    expect(second.body).toMatchObject({ success: true, meta: { total: 3, page: 2, per_page: 2 } });
    expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['one']);
    expect((await u.client.get('/api/v1/account/api-keys?per_page=500')).body.meta.per_page).toBe(100);
    expect((await u.client.get('/api/v1/account/api-keys?page=0')).status).toBe(400);
  });

  it('makes a publisher key for the only publication, a contributor key on request', async () => {
    const u = await signup(t);
    await u.client.post('/api/v1/account/publishers', { name: 'Solo', slug: `solo-${u.id}` });
    const implicit = await u.client.post('/api/v1/account/api-keys', { name: 'a' });
    expect(implicit.body.data).toMatchObject({ kind: 'publisher', publisher: { slug: `solo-${u.id}` } });
    const contributor = await u.client.post('/api/v1/account/api-keys', { name: 'b', publisher: null });
    expect(contributor.body.data).toMatchObject({ kind: 'contributor', publisher: null });
    const foreign = await u.client.post('/api/v1/account/api-keys', { name: 'c', publisher: 'someone-elses' });
    expect(foreign.status).toBe(404);
  });

  it('revokes at once: the next use is 401 key_revoked', async () => {
    const u = await signup(t);
    const created = await u.client.post('/api/v1/account/api-keys', { name: 'x' });
    const api = new Client(t.baseUrl).as(created.body.data.key);
    expect((await api.get('/api/v1/whoami')).status).toBe(200);
    const del = await u.client.delete(`/api/v1/account/api-keys/${created.body.data.id}`);
    expect(del.status).toBe(200);
    expect(del.body.data.status).toBe('revoked');
    const after = await api.get('/api/v1/whoami');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('key_revoked');
  });

  it('expires keys: checked on every use', async () => {
    const u = await signup(t);
    const created = await u.client.post('/api/v1/account/api-keys', { name: 'x', expires_in_days: 1 });
    const api = new Client(t.baseUrl).as(created.body.data.key);
    expect((await api.get('/api/v1/whoami')).status).toBe(200);
    t.clock.advanceDays(1);
    const after = await api.get('/api/v1/whoami');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('key_expired');
    const list = await u.client.get('/api/v1/account/api-keys');
    expect(list.body.data.find((k: { id: number }) => k.id === created.body.data.id).status).toBe('expired');
  });

  it('records the last use', async () => {
    const u = await signup(t);
    const created = await u.client.post('/api/v1/account/api-keys', { name: 'x' });
    await new Client(t.baseUrl).as(created.body.data.key).get('/api/v1/whoami');
    const list = await u.client.get('/api/v1/account/api-keys');
    expect(list.body.data[0].last_used_at).toBe(t.clock.now().toISOString());
  });

  it('cannot be made or managed with a key', async () => {
    const u = await signup(t);
    const created = await u.client.post('/api/v1/account/api-keys', { name: 'x' });
    const res = await new Client(t.baseUrl).as(created.body.data.key).post('/api/v1/account/api-keys', { name: 'y' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('session_required');
  });

  it.each([{ name: '' }, { name: 'x', expires_in_days: 0 }, { name: 'x', expires_in_days: 1.5 }, { name: 'x', expires_in_days: '3' }])(
    'refuses %j',
    async (body) => {
      const u = await signup(t);
      const res = await u.client.post('/api/v1/account/api-keys', body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.length).toBeGreaterThan(0);
    },
  );
});
