// With REDIS_URL, rate-limit buckets hold across instances and a commit wakes every instance's change follower
// (a wake-up only: followers read the change log on their own timer too, test/changes/).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeFollower } from '../src/domain/changes/follower.js';
import { shareWakeUps } from '../src/domain/changes/wake.redis.js';
import { RedisRateLimiter } from '../src/http/rate-limit.redis.js';
import { TestClock } from './harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
let reachable = false;
const clients: Redis[] = [];
const client = () => {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  clients.push(r);
  return r;
};

beforeAll(async () => {
  const probe = client();
  try {
    await probe.connect();
    reachable = (await probe.ping()) === 'PONG';
  } catch {
    reachable = false;
  }
  if (!reachable) {
    if (process.env.CI) throw new Error(`Redis is not reachable at ${REDIS_URL}`);
    console.warn(`\n!! Redis not reachable at ${REDIS_URL}: the Redis tests are SKIPPED.\n`);
  }
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
});

describe('Redis', () => {
  it('shares token buckets between instances, refilled by the clock', async (ctx) => {
    if (!reachable) return ctx.skip();
    const clock = new TestClock();
    const prefix = `credence:test:${randomBytes(4).toString('hex')}:`;
    const a = new RedisRateLimiter(client(), clock, prefix);
    const b = new RedisRateLimiter(client(), clock, prefix);
    const policy = { name: 'p', capacity: 3, rate: 1 };
    const results = [await a.limit('k', policy), await b.limit('k', policy), await a.limit('k', policy), await b.limit('k', policy)];
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]).toMatchObject({ remaining: 0, retryAfterSeconds: 1 });
    expect((await a.limit('other', policy)).allowed).toBe(true);
    clock.advance(2000);
    expect((await b.limit('k', policy)).allowed).toBe(true);
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
  });

  // A key's request spends from the key's bucket and its account's, all or none, across instances.
  it('takes from several buckets at once, all or none, shared between instances', async (ctx) => {
    if (!reachable) return ctx.skip();
    const clock = new TestClock();
    const prefix = `credence:test:${randomBytes(4).toString('hex')}:`;
    const a = new RedisRateLimiter(client(), clock, prefix);
    const b = new RedisRateLimiter(client(), clock, prefix);
    const key = { name: 'key', capacity: 2, rate: 1 };
    const account = { name: 'account', capacity: 3, rate: 1 };
    const take = (l: RedisRateLimiter, k: string) => l.limitAll([{ key: k, policy: key }, { key: 'acct', policy: account }]);
    expect((await take(a, 'k1')).map((r) => r.allowed)).toEqual([true, true]);
    expect((await take(b, 'k1')).map((r) => r.allowed)).toEqual([true, true]);
    // k1 is empty: refused, and the account's token is not spent.
    const refused = await take(a, 'k1');
    expect(refused.map((r) => r.allowed)).toEqual([false, false]);
    expect(refused[0]).toMatchObject({ remaining: 0, retryAfterSeconds: 1 });
    expect(refused[1]).toMatchObject({ remaining: 1, retryAfterSeconds: 0 });
    // Another key of the same account has the account's last token, then the account is empty for every key.
    expect((await take(b, 'k2')).map((r) => r.allowed)).toEqual([true, true]);
    const empty = await take(a, 'k3');
    expect(empty.map((r) => r.allowed)).toEqual([false, false]);
    expect(empty[0]).toMatchObject({ remaining: 2, retryAfterSeconds: 0 });
    expect(empty[1]).toMatchObject({ remaining: 0, retryAfterSeconds: 1 });
    clock.advance(1000);
    expect((await take(b, 'k3')).map((r) => r.allowed)).toEqual([true, true]);
    const keys = await clients[0]!.keys(`${prefix}*`);
    if (keys.length) await clients[0]!.del(...keys);
  });

  it('wakes every other instance’s change follower when one commits', async (ctx) => {
    if (!reachable) return ctx.skip();
    const channel = `credence:test:${randomBytes(4).toString('hex')}`;
    const reads = [0, 0];
    const followers = reads.map((_, i) => ({ wake: undefined as (() => void) | undefined, catchUp: async () => void reads[i]!++ }));
    for (const f of followers) await shareWakeUps(f as unknown as ChangeFollower, client(), client(), channel);
    followers[0]!.wake!();
    await expect.poll(() => reads[1], { timeout: 2000 }).toBe(1);
    expect(reads[0]).toBe(0);
  });
});

describe('two instances on one Redis', () => {
  it('share the /v1 per-IP bucket over HTTP', async (ctx) => {
    if (!reachable) return ctx.skip();
    const { startTestApp } = await import('./harness.js');
    const { Client, randomIp } = await import('./client.js');
    const a = await startTestApp({ redisUrl: REDIS_URL });
    const b = await startTestApp({ redisUrl: REDIS_URL });
    try {
      const ip = randomIp();
      const ca = new Client(a.baseUrl, ip);
      const cb = new Client(b.baseUrl, ip);
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await ca.get('/v1/pages/record?url=https://x.example/')).status);
      for (let i = 0; i < 31; i++) statuses.push((await cb.get('/v1/pages/record?url=https://x.example/')).status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      expect(statuses.slice(0, 59).every((s) => s === 404)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('Redis unreachable', () => {
  it('falls back to per-instance buckets', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 0, lazyConnect: true, enableOfflineQueue: false });
    clients.push(dead);
    const limiter = new RedisRateLimiter(dead, new TestClock());
    const policy = { name: 'p', capacity: 1, rate: 1 };
    expect((await limiter.limit('k', policy)).allowed).toBe(true);
    expect((await limiter.limit('k', policy)).allowed).toBe(false);
  });
});
