// Token buckets in Redis, shared by every instance (REDIS_URL). One Lua script per take keeps refill-and-take
// atomic across instances; the caller's clock is passed in so a test clock drives it as it drives the memory one.
import type { Redis } from 'ioredis';
import type { Clock } from '../domain/clock.js';
import { MemoryRateLimiter, type RateLimiter, type RateLimitPolicy, type RateLimitResult, type RateLimitTake } from './rate-limit.js';

// KEYS[1] bucket; ARGV: capacity, rate (tokens/s), now (ms). Returns {allowed, tokens*1000}.
const TAKE = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - ts) / 1000 * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate * 1000) + 1000)
return {allowed, math.floor(tokens * 1000)}
`;

// KEYS: the buckets; ARGV: now (ms), then capacity and rate of each. All or none: a token is taken from every bucket
// only when each has one. Returns {allowed, then tokens*1000 and has-a-token of each}.
const TAKE_ALL = `
local now = tonumber(ARGV[1])
local tokens = {}
local all = 1
for i, key in ipairs(KEYS) do
  local capacity = tonumber(ARGV[i * 2])
  local rate = tonumber(ARGV[i * 2 + 1])
  local b = redis.call('HMGET', key, 'tokens', 'ts')
  local t = tonumber(b[1])
  if t == nil then
    t = capacity
  else
    t = math.min(capacity, t + math.max(0, now - tonumber(b[2])) / 1000 * rate)
  end
  tokens[i] = t
  if t < 1 then all = 0 end
end
local out = {all}
for i, key in ipairs(KEYS) do
  local capacity = tonumber(ARGV[i * 2])
  local rate = tonumber(ARGV[i * 2 + 1])
  local t = tokens[i]
  local had = 0
  if t >= 1 then had = 1 end
  if all == 1 then t = t - 1 end
  redis.call('HSET', key, 'tokens', tostring(t), 'ts', tostring(now))
  redis.call('PEXPIRE', key, math.ceil((capacity - t) / rate * 1000) + 1000)
  table.insert(out, math.floor(t * 1000))
  table.insert(out, had)
end
return out
`;

export interface LimiterLog {
  warn(msg: string): void;
  info(msg: string): void;
}

export class RedisRateLimiter implements RateLimiter {
  // While Redis cannot be reached, each instance limits on its own rather than refusing or unlimiting everyone.
  private readonly fallback: MemoryRateLimiter;
  /** Whether the last take went to Redis; a change either way is logged once. */
  private sharing = true;

  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix = 'credence:rl:',
    private readonly log: LimiterLog = { warn: (m) => console.error(m), info: (m) => console.error(m) },
  ) {
    redis.defineCommand('credenceTake', { numberOfKeys: 1, lua: TAKE });
    redis.defineCommand('credenceTakeAll', { lua: TAKE_ALL });
    this.fallback = new MemoryRateLimiter(clock);
  }

  async limit(key: string, policy: RateLimitPolicy): Promise<RateLimitResult> {
    // Not connected: straight to the local buckets, so no request waits on a reconnecting client.
    // ('wait': a lazy client not connected yet; its first command connects it.)
    if (this.redis.status !== 'ready' && this.redis.status !== 'wait') {
      this.switchTo(false, `Redis is ${this.redis.status}`);
      return this.fallback.limit(key, policy);
    }
    try {
      const result = await this.shared(key, policy);
      this.switchTo(true, '');
      return result;
    } catch (err) {
      this.switchTo(false, (err as Error).message);
      return this.fallback.limit(key, policy);
    }
  }

  async limitAll(takes: readonly RateLimitTake[]): Promise<RateLimitResult[]> {
    if (this.redis.status !== 'ready' && this.redis.status !== 'wait') {
      this.switchTo(false, `Redis is ${this.redis.status}`);
      return this.fallback.limitAll(takes);
    }
    try {
      const results = await this.sharedAll(takes);
      this.switchTo(true, '');
      return results;
    } catch (err) {
      this.switchTo(false, (err as Error).message);
      return this.fallback.limitAll(takes);
    }
  }

  private async sharedAll(takes: readonly RateLimitTake[]): Promise<RateLimitResult[]> {
    const args: (string | number)[] = [takes.length, ...takes.map((t) => `${this.prefix}${t.policy.name}:${t.key}`), this.clock.now().getTime()];
    for (const t of takes) args.push(t.policy.capacity, t.policy.rate);
    const run = (this.redis as unknown as { credenceTakeAll(...a: (string | number)[]): Promise<number[]> }).credenceTakeAll;
    const out = await run.apply(this.redis, args);
    const all = out[0] === 1;
    return takes.map((t, i) => {
      const tokens = out[1 + i * 2]! / 1000;
      const had = out[2 + i * 2] === 1;
      return {
        allowed: all,
        remaining: Math.floor(tokens),
        resetSeconds: Math.ceil((t.policy.capacity - tokens) / t.policy.rate),
        retryAfterSeconds: had ? 0 : Math.max(1, Math.ceil((1 - tokens) / t.policy.rate)),
      };
    });
  }

  private switchTo(shared: boolean, why: string): void {
    if (shared === this.sharing) return;
    this.sharing = shared;
    if (shared) this.log.info('credence: Redis is back; rate limits are shared by every instance again');
    else this.log.warn(`credence: Redis cannot be reached (${why}); rate limits are per instance until it is back`);
  }

  async health(): Promise<{ shared: boolean; detail: string }> {
    if (this.redis.status !== 'ready') return { shared: false, detail: `Redis is ${this.redis.status}; rate limits are per instance` };
    try {
      await this.redis.ping();
      return { shared: true, detail: 'rate limits shared through Redis' };
    } catch (err) {
      return { shared: false, detail: `Redis ping failed (${(err as Error).message}); rate limits are per instance` };
    }
  }

  private async shared(key: string, policy: RateLimitPolicy): Promise<RateLimitResult> {
    const take = (this.redis as unknown as { credenceTake(k: string, c: number, r: number, n: number): Promise<[number, number]> }).credenceTake;
    const [allowed, milli] = await take.call(this.redis, `${this.prefix}${policy.name}:${key}`, policy.capacity, policy.rate, this.clock.now().getTime());
    const tokens = milli / 1000;
    return {
      allowed: allowed === 1,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((policy.capacity - tokens) / policy.rate),
      retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / policy.rate)),
    };
  }

  async close(): Promise<void> {}
}
