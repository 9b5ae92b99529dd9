// Token buckets (SPEC §7) behind a small interface: one process keeps them in memory; with REDIS_URL a Redis
// implementation shares them across instances.
import type { Clock } from '../domain/clock.js';

export type { RateLimitPolicy, RateLimitResult, RateLimiter } from '../domain/rate-limiter.js';
import type { RateLimitPolicy, RateLimitResult, RateLimiter } from '../domain/rate-limiter.js';

/** Pure bucket arithmetic shared by every store: refill since `updatedMs`, then try to take one token. */
export function takeToken(
  bucket: { tokens: number; updatedMs: number } | undefined,
  policy: RateLimitPolicy,
  nowMs: number,
): { bucket: { tokens: number; updatedMs: number }; result: RateLimitResult } {
  const elapsed = bucket ? Math.max(0, nowMs - bucket.updatedMs) / 1000 : 0;
  const available = bucket ? Math.min(policy.capacity, bucket.tokens + elapsed * policy.rate) : policy.capacity;
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  return {
    bucket: { tokens, updatedMs: nowMs },
    result: {
      allowed,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((policy.capacity - tokens) / policy.rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / policy.rate)),
    },
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxBuckets = 100_000,
  ) {}

  async limit(key: string, policy: RateLimitPolicy): Promise<RateLimitResult> {
    const now = this.clock.now().getTime();
    const { bucket, result } = takeToken(this.buckets.get(key), policy, now);
    // Delete-then-set keeps the Map in least-recently-used order for eviction.
    if (!this.buckets.delete(key) && this.buckets.size >= this.maxBuckets) this.evict();
    this.buckets.set(key, bucket);
    return result;
  }

  // Memory stays bounded under a flood of distinct callers: drop the least recently used tenth. A bucket untouched
  // that long has usually refilled, so forgetting it rarely changes anything for its caller.
  private evict(): void {
    let n = Math.ceil(this.maxBuckets / 10);
    for (const key of this.buckets.keys()) {
      if (n-- <= 0) break;
      this.buckets.delete(key);
    }
  }

  async close(): Promise<void> {}
}

/** IETF httpapi rate-limit headers (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(policy: RateLimitPolicy, result: RateLimitResult): Record<string, string> {
  const window = Math.ceil(policy.capacity / policy.rate);
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${policy.name}";q=${policy.capacity};w=${window}`,
    RateLimit: `"${policy.name}";r=${result.remaining};t=${result.resetSeconds}`,
  };
  if (!result.allowed) headers['Retry-After'] = String(result.retryAfterSeconds);
  return headers;
}
