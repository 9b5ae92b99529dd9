// What the domain needs of a rate limiter (the login throttle): take a token from a named bucket. The
// implementations (memory, Redis) live in http/rate-limit.ts and are passed in through Deps.
export interface RateLimitPolicy {
  /** Shown in the RateLimit-Policy header. */
  name: string;
  capacity: number;
  /** Tokens added per second. */
  rate: number;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available (0 when allowed). */
  retryAfterSeconds: number;
}

/** One bucket a request spends from. */
export interface RateLimitTake {
  key: string;
  policy: RateLimitPolicy;
}

export interface RateLimiter {
  limit(key: string, policy: RateLimitPolicy): Promise<RateLimitResult>;
  /**
   * Take one token from each bucket, all or none: allowed only when every bucket has one, and a refusal takes from
   * none of them (a key's request spends from the key's bucket and its account's). One result a bucket.
   */
  limitAll(takes: readonly RateLimitTake[]): Promise<RateLimitResult[]>;
  close(): Promise<void>;
  /** For /readyz: whether buckets are shared with the other instances right now (absent: one process, memory). */
  health?(): Promise<{ shared: boolean; detail: string }>;
}
