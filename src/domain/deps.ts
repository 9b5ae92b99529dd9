// What every service receives. Built once by app.ts (or the test harness); no module holds its own copy.
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Dialect, FixedReader } from '../db/client.js';
import type { DB, Db } from '../db/schema.js';
import type { ChangeFollower } from './changes/follower.js';
import type { Clock } from './clock.js';
import type { RecordCache } from './pages/record-cache.js';
import type { RateLimiter } from './rate-limiter.js';
import type { DomainVerifier } from './publishers/domain-verifier.js';
import type { LogKeys } from './transparency/signing-key.js';
import type { PageFetcher } from './pages/page-fetcher.js';
import type { Passwords } from './accounts/password.js';
import type { Resolve } from '../net/safe-fetch.js';

export interface Deps {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Fixed read-only statements of the hot read path, on what is committed (db/client.ts). */
  read: FixedReader;
  clock: Clock;
  config: Config;
  rateLimiter: RateLimiter;
  verifier: DomainVerifier;
  recordCache: RecordCache;
  /** The transparency log's origin and signing key (loaded when first used). */
  transparency: LogKeys;
  /** Fetches a publisher's own page when it asks (`fetch: true` on registration). */
  pageFetcher: PageFetcher;
  /** Password hashing and verification, a few at a time in fair lanes (accounts/password.ts). */
  passwords: Passwords;
  /** The resolver behind webhook address checks, at registration and at every attempt (default: the system's; tests play DNS with it). */
  resolve?: Resolve;
  /** This process's reader of the change log; a service calls `committed()` after a transaction that appended. */
  changes: Pick<ChangeFollower, 'committed' | 'catchUp' | 'onAdvance' | 'position' | 'entriesRead'>;
}

/** The database as every store takes it (defined beside the tables, so a store need not import this file). */
export type { Db };
