// Token buckets (SPEC §7) behind a small interface: one process keeps them in memory; with REDIS_URL a Redis
// implementation shares them across instances.
import type { Clock } from '../domain/clock.js';

export type { RateLimitPolicy, RateLimitResult, RateLimiter, RateLimitTake } from '../domain/rate-limiter.js';
import type { RateLimitPolicy, RateLimitResult, RateLimiter, RateLimitTake } from '../domain/rate-limiter.js';

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

  async limitAll(takes: readonly RateLimitTake[]): Promise<RateLimitResult[]> {
    const now = this.clock.now().getTime();
    const tries = takes.map((t) => takeToken(this.buckets.get(t.key), t.policy, now));
    const allowed = tries.every((t) => t.result.allowed);
    return takes.map((t, i) => {
      const { bucket, result } = tries[i]!;
      // Refused somewhere: the buckets that had a token keep it (refilled to now, nothing taken).
      const kept = allowed || !result.allowed ? bucket : { tokens: bucket.tokens + 1, updatedMs: now };
      if (!this.buckets.delete(t.key) && this.buckets.size >= this.maxBuckets) this.evict();
      this.buckets.set(t.key, kept);
      return allowed || !result.allowed ? result : { ...result, allowed: false, remaining: Math.floor(kept.tokens), retryAfterSeconds: 0 };
    });
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

/**
 * Of several buckets taken together, the one to report in the headers: a refused one (the longest wait), else the
 * one with the fewest tokens left (the first to refuse), the first of equals. A client then reads one policy, the one that binds it now.
 */
export function bindingBucket(results: readonly RateLimitResult[]): number {
  let best = 0;
  for (let i = 1; i < results.length; i++) {
    const r = results[i]!;
    const b = results[best]!;
    const refusedLonger = r.retryAfterSeconds > b.retryAfterSeconds;
    const emptier = r.retryAfterSeconds === b.retryAfterSeconds && r.remaining < b.remaining;
    if (refusedLonger || emptier) best = i;
  }
  return best;
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
