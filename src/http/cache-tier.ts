// What a cacheable public answer tells the cache tier in front (docs/cache.md): its surrogate keys (`xkey`, the record
// cache's tags of the answer, digested: domain/pages/cache-tags.ts), how long the tier may keep it (`Surrogate-Control`,
// which browsers and other caches ignore: the tier keeps an answer until a change purges it) and, for answers that
// name no Cache-Control of their own, that browsers must ask again but anyone may show the last answer while the
// service is down (`stale-if-error`, RFC 5861). Only with CACHE_PURGE_URLS set: a tier nobody purges must not be told
// to keep answers longer than their Cache-Control says. Without it, the headers a route passes are sent as they are.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../domain/deps.js';
import { surrogateKey } from '../domain/pages/cache-tags.js';
import { carriesCredential } from './security-headers.js';

/** How long the tier keeps a purged-by-key answer: a day bounds what a purge lost in transit can cost. */
export const SURROGATE_MAX_AGE = 86_400;
/** How long an answer may be shown past its age while the service is down. */
export const STALE_IF_ERROR = 86_400;
/** For answers that carry no Cache-Control of their own (lookups, records): browsers ask again each time. */
export const REVALIDATED = `public, max-age=0, stale-if-error=${STALE_IF_ERROR}`;

const SURROGATE_CONTROL = `max-age=${SURROGATE_MAX_AGE}`;

/**
 * `headers` plus the tier's for the answer the record cache holds under `cacheKey`, or `headers` as they are when
 * there is no tier or the cache cannot vouch for what it sent (nothing kept: then the tier must not keep it either).
 */
export function tierHeaders(
  deps: Pick<Deps, 'config' | 'recordCache'>,
  req: FastifyRequest,
  cacheKey: string,
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  // An answer to a credential keeps its `no-store` (security-headers.ts); the tier never keeps it anyway.
  if (deps.config.cachePurgeUrls.length === 0 || carriesCredential(req)) return headers;
  const keys = deps.recordCache.surrogateKeys(cacheKey);
  if (keys === undefined) return headers;
  return { 'cache-control': REVALIDATED, ...headers, xkey: keys, 'surrogate-control': SURROGATE_CONTROL };
}

/**
 * The tier's headers for an answer built outside the record cache (a profile, a panel statement) from what it
 * depends on (`tags`, cache-tags.ts), to set on the reply; none without a tier or with a credential. Such an answer
 * may be read just before a change commits and sent after its first purge: the purger's second purge is for that.
 */
export function surrogateHeaders(deps: Pick<Deps, 'config'>, req: FastifyRequest, tags: Iterable<string>): Record<string, string> {
  if (deps.config.cachePurgeUrls.length === 0 || carriesCredential(req)) return {};
  const keys = [...new Set(tags)].map(surrogateKey).join(' ');
  return keys === '' ? {} : { 'cache-control': REVALIDATED, xkey: keys, 'surrogate-control': SURROGATE_CONTROL };
}
