// The public change feed: the log's entries after a cursor, oldest first. Entries are public by construction
// (appendChange is only given public fields), so the feed reads them as stored.
import type { Deps } from '../deps.js';
import { type FeedFilter, type OpenedChange, accountIdByUsername, listChangesAfter, publisherIdBySlug } from './change.store.js';
import { notFound } from '../errors.js';

export type { FeedFilter };

export const FEED_DEFAULT_LIMIT = 100;
/** Larger limits are capped, not refused, as `per_page` is (SPEC §8). */
export const FEED_MAX_LIMIT = 500;

export async function readFeed(deps: Pick<Deps, 'db'>, after: number, limit: number, filter?: FeedFilter): Promise<{ rows: OpenedChange[]; hasMore: boolean }> {
  const capped = Math.min(Math.max(1, limit), FEED_MAX_LIMIT);
  const rows = await listChangesAfter(deps.db, after, capped + 1, filter);
  return { rows: rows.slice(0, capped), hasMore: rows.length > capped };
}

export interface WatchQuery {
  contributor?: string | undefined;
  publication?: string | undefined;
  domain?: string | undefined;
}

/**
 * What a watcher names, as the ids the feed filters on: a contributor by username, a publication by slug (each a 404
 * naming it when unknown), a domain as given (lower case; one nobody registered yet simply has no entries so far).
 * Null when nothing is named.
 */
export async function resolveWatch(deps: Pick<Deps, 'db'>, q: WatchQuery): Promise<FeedFilter | null> {
  const filter: FeedFilter = {};
  if (q.contributor !== undefined) {
    const id = await accountIdByUsername(deps.db, q.contributor);
    if (id === undefined) throw notFound('Contributor');
    filter.accountId = id;
  }
  if (q.publication !== undefined) {
    const id = await publisherIdBySlug(deps.db, q.publication);
    if (id === undefined) throw notFound('Publication');
    filter.publisherId = id;
  }
  if (q.domain !== undefined) filter.domain = q.domain.toLowerCase().replace(/\.$/, '');
  return Object.keys(filter).length > 0 ? filter : null;
}
