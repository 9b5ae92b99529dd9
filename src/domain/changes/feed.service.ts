// The public change feed: the log's entries after a cursor, oldest first. Entries are public by construction
// (appendChange is only given public fields), so the feed reads them as stored.
import type { Deps } from '../deps.js';
import { listChangesAfter, type OpenedChange } from './change.store.js';

export const FEED_DEFAULT_LIMIT = 100;
/** Larger limits are capped, not refused, as `per_page` is (SPEC §8). */
export const FEED_MAX_LIMIT = 500;

export async function readFeed(deps: Pick<Deps, 'db'>, after: number, limit: number): Promise<{ rows: OpenedChange[]; hasMore: boolean }> {
  const capped = Math.min(Math.max(1, limit), FEED_MAX_LIMIT);
  const rows = await listChangesAfter(deps.db, after, capped + 1);
  return { rows: rows.slice(0, capped), hasMore: rows.length > capped };
}
