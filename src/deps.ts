// Wiring: the one place that turns a Config into live dependencies (database, limiter, cache, verifier).
import { existsSync, readFileSync } from 'node:fs';
import { parseErasureList, reapplyErasures } from './domain/privacy/erasure.service.js';
import path from 'node:path';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { retractNotAsked } from './domain/consent/consent.service.js';
import { migrate } from './db/migrate.js';
import { type Clock, systemClock } from './domain/clock.js';
import type { Deps } from './domain/deps.js';
import { Passwords } from './domain/accounts/password.js';
import { MemoryRecordCache } from './domain/pages/record-cache.js';
import { type DomainVerifier, systemVerifier } from './domain/publishers/domain-verifier.js';
import { type PageFetcher, systemPageFetcher } from './domain/pages/page-fetcher.js';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { RedisRateLimiter } from './http/rate-limit.redis.js';
import { defaultOrigin, defaultWitnessName, logKeys } from './domain/transparency/signing-key.js';
import { ChangeFollower } from './domain/changes/follower.js';
import { shareWakeUps } from './domain/changes/wake.redis.js';

/** A cached answer is served only while the change log was read completely less than this long ago. */
const CACHE_STALE_AFTER_MS = 1000;
/** How often every process reads the change log (one indexed read; a Redis wake-up can make it sooner). */
const CHANGES_POLL_MS = 250;

export interface Runtime {
  deps: Deps;
  database: Database;
  close(): Promise<void>;
}

export async function createRuntime(
  config: Config,
  overrides: { clock?: Clock; verifier?: DomainVerifier; database?: Database; pageFetcher?: PageFetcher } = {},
): Promise<Runtime> {
  const database =
    overrides.database ??
    openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: path.join(config.dataDir, 'credence.sqlite') });
  await migrate(database);
  const clock = overrides.clock ?? systemClock;
  const recordCache = new MemoryRecordCache(config.recordCacheEntries, CACHE_STALE_AFTER_MS);
  const changes = new ChangeFollower(database.db, recordCache, { pollMs: CHANGES_POLL_MS });
  await changes.start();
  let rateLimiter: RateLimiter = new MemoryRateLimiter(clock);
  const redisClients: Redis[] = [];
  if (config.redisUrl) {
    // Two connections: a subscribed connection can do nothing else.
    // Commands fail at once while Redis is away (no offline queue) and within a second if it hangs: each instance
    // then limits on its own; the clients reconnect in the background, at most 2 s apart.
    const retryStrategy = (times: number) => Math.min(times * 100, 2000);
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 1000, retryStrategy });
    const subscriber = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, retryStrategy });
    // ioredis reports connection errors as events; without a listener each one would be an unhandled 'error'.
    for (const r of [redis, subscriber]) r.on('error', () => {});
    // A normal start shares limits from the first request: wait for the connection, but at most 2 s (Redis down at
    // start does not stop the service; it limits per instance until Redis answers).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    redisClients.push(redis, subscriber);
    rateLimiter = new RedisRateLimiter(redis, clock);
    await shareWakeUps(changes, redis, subscriber);
  }
  const deps: Deps = {
    db: database.db,
    dialect: database.dialect,
    read: database.read,
    clock,
    config,
    rateLimiter,
    verifier: overrides.verifier ?? systemVerifier({ allowPrivate: config.webhookAllowPrivate }),
    recordCache,
    transparency: logKeys({
      origin: config.logOrigin ?? defaultOrigin(config.siteUrl),
      signingKey: config.logSigningKey,
      dataDir: config.dataDir,
      witnessName: config.witnessName ?? defaultWitnessName(config.siteUrl),
      witnessSigningKey: config.witnessSigningKey,
    }),
    pageFetcher: overrides.pageFetcher ?? systemPageFetcher({ allowPrivate: config.webhookAllowPrivate }),
    passwords: new Passwords(config.scryptLogN),
    changes,
  };
  // Authorships named before consent existed leave the public record until their person confirms: done
  // once, through the domain's path, by whichever process starts first after the migration.
  await retractNotAsked(deps);
  // A backup restored from before an erasure brings the person back: the erasure list (kept outside the database)
  // names them, and they are erased again before anything is served.
  if (config.erasureList && existsSync(config.erasureList)) await reapplyErasures(deps, parseErasureList(readFileSync(config.erasureList, 'utf8')));
  return {
    deps,
    database,
    async close() {
      changes.stop();
      await rateLimiter.close();
      await Promise.all(redisClients.map((r) => r.quit().catch(() => r.disconnect())));
      await database.close();
    },
  };
}
