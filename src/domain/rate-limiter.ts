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

export interface RateLimiter {
  limit(key: string, policy: RateLimitPolicy): Promise<RateLimitResult>;
  close(): Promise<void>;
  /** For /readyz: whether buckets are shared with the other instances right now (absent: one process, memory). */
  health?(): Promise<{ shared: boolean; detail: string }>;
}
