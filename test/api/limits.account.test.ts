// Keys multiplied limits. An account could make any number of API keys, each with its own bucket. Now an
// account holds at most API_KEYS_PER_ACCOUNT active keys (409 `conflict` naming the limit), and every request made
// with one of its keys or sessions spends from its account's bucket too (ACCOUNT_RATE_LIMIT_MULTIPLE times a key's),
// all or none. The limiter reads the test clock: every count is exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../src/http/rate-limit.js';
import { Client, type Res } from '../client.js';
import { contributorKey, signup } from '../factories.js';
import { startTestApp, TestClock, type TestApp } from '../harness.js';
import { signedInClient } from '../web/pages.fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ apiKeysPerAccount: 3 });
});
afterAll(async () => t?.close());

async function burst(n: number, send: () => Promise<Res>): Promise<Res[]> {
  const out: Res[] = [];
  for (let i = 0; i < n; i++) out.push(await send());
  return out;
}

describe('a cap on active API keys per account', () => {
  it('refuses the key past the cap with 409 naming the limit; a revoked or expired key frees its place', async () => {
    const u = await signup(t);
    const made = await burst(3, () => u.client.post('/api/v1/account/api-keys', { name: 'k', publisher: null }));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const refused = await u.client.post('/api/v1/account/api-keys', { name: 'one more', publisher: null });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'conflict', details: [{ field: 'limit' }] } });
    expect(refused.body.error.message).toContain('at most 3 active API keys');
    expect((await u.client.get('/api/v1/account/api-keys')).body.data).toHaveLength(3);

    expect((await u.client.delete(`/api/v1/account/api-keys/${made[0]!.body.data.id}`)).status).toBe(200);
    const expiring = await u.client.post('/api/v1/account/api-keys', { name: 'short', publisher: null, expires_in_days: 1 });
    expect(expiring.status).toBe(201);
    expect((await u.client.post('/api/v1/account/api-keys', { name: 'no room', publisher: null })).status).toBe(409);
    t.clock.advanceDays(2);
    expect((await u.client.post('/api/v1/account/api-keys', { name: 'after expiry', publisher: null })).status).toBe(201);
    // Another account is not affected by this one's keys.
    expect((await (await signup(t)).client.post('/api/v1/account/api-keys', { name: 'k', publisher: null })).status).toBe(201);
  });

  it('holds when several creations arrive at once', async () => {
    const u = await signup(t);
    const all = await Promise.all(Array.from({ length: 6 }, () => u.client.post('/api/v1/account/api-keys', { name: 'k', publisher: null })));
    expect(all.filter((r) => r.status === 201)).toHaveLength(3);
    expect(all.filter((r) => r.status === 409)).toHaveLength(3);
  });

  it('/me/keys says it next to the name, with 409', async () => {
    const { b } = await signedInClient(t);
    for (let i = 0; i < 3; i++) {
      await b.get('/me/keys');
      expect((await b.post('/me/keys', { name: `k${i}`, expires: '', publisher: '' })).status).toBe(303);
    }
    await b.get('/me/keys');
    const refused = await b.post('/me/keys', { name: 'k4', expires: '', publisher: '' });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('at most 3 active API keys');
  });
});

describe("an account's own bucket beside each key's", () => {
  it('keys of one account share it: with two keys spent, a third key is refused by the account bucket', async () => {
    // /api/v1: a key holds 60 (10/s); the account twice that (ACCOUNT_RATE_LIMIT_MULTIPLE = 2): 120 (20/s).
    const u = await signup(t);
    const keys = [await contributorKey(u), await contributorKey(u), await contributorKey(u)];
    const anon = new Client(t.baseUrl);
    expect((await burst(60, () => anon.as(keys[0]!).get('/api/v1/whoami'))).every((r) => r.status === 200)).toBe(true);
    // The session made the three keys: three of the account's 120 are spent, so the second key gets 57.
    const second = await burst(60, () => anon.as(keys[1]!).get('/api/v1/whoami'));
    expect(second.filter((r) => r.status === 200)).toHaveLength(57);
    expect(second.slice(57).map((r) => r.headers.get('ratelimit-policy'))).toEqual(Array(3).fill('"api-account";q=120;w=6'));
    const third = await anon.as(keys[2]!).get('/api/v1/whoami');
    expect(third.status, third.text).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(third.headers.get('ratelimit-policy')).toBe('"api-account";q=120;w=6');
    expect(third.headers.get('retry-after')).toBe('1');
    // A session of the account spends from it too.
    expect((await u.client.get('/api/v1/account')).status).toBe(429);
    // Another account's key is not touched.
    const other = await contributorKey(await signup(t));
    expect((await anon.as(other).get('/api/v1/whoami')).status).toBe(200);
    t.clock.advance(1000);
    const after = await anon.as(keys[2]!).get('/api/v1/whoami');
    expect(after.status).toBe(200);
    // The headers name the bucket with the fewest tokens left: the account's, refilled by 20 in that second.
    expect(after.headers.get('ratelimit')).toBe('"api-account";r=19;t=6');
    // A fresh account's one key meets its own bucket first, and the headers name it.
    const lone = await contributorKey(await signup(t));
    expect((await anon.as(lone).get('/api/v1/whoami')).headers.get('ratelimit-policy')).toBe('"api-key";q=60;w=6');
  });

  it('/v1 too: the account bucket is named there when it binds', async () => {
    const u = await signup(t);
    const keys = [await contributorKey(u), await contributorKey(u)];
    const anon = new Client(t.baseUrl);
    // /v1: a key holds 600; the account 1200. Empty the account's bucket with the limiter itself (the same one the
    // app uses, same key), then a request with either key is refused by it.
    const policy = { name: 'v1-account', capacity: 1200, rate: 20 };
    for (let i = 0; i < 1200; i++) await t.runtime.deps.rateLimiter.limit(`v1:account-all:${u.id}`, policy);
    const refused = await anon.as(keys[0]!).get('/v1/requests');
    expect(refused.status, refused.text).toBe(429);
    expect(refused.body).toEqual({ error: expect.objectContaining({ code: 'rate_limited' }) });
    expect(refused.headers.get('ratelimit-policy')).toBe('"v1-account";q=1200;w=60');
  });
});

describe('the memory limiter takes several buckets all or none', () => {
  it('a refusal by one bucket spends nothing from the other', async () => {
    const clock = new TestClock();
    const l = new MemoryRateLimiter(clock);
    const key = { name: 'key', capacity: 1, rate: 1 };
    const account = { name: 'account', capacity: 2, rate: 1 };
    const take = (k: string) => l.limitAll([{ key: k, policy: key }, { key: 'acct', policy: account }]);
    expect((await take('a')).map((r) => r.allowed)).toEqual([true, true]);
    const refused = await take('a');
    expect(refused.map((r) => r.allowed)).toEqual([false, false]);
    expect(refused[1]).toMatchObject({ remaining: 1, retryAfterSeconds: 0 });
    expect((await take('b')).map((r) => r.allowed)).toEqual([true, true]);
    const empty = await take('c');
    expect(empty[1]).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(empty[0]).toMatchObject({ allowed: false, remaining: 1 });
  });
});
