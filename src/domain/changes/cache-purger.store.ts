// All SQL of the cache tier's purger (jobs/cache-purger.ts): its one row, a lease and a cursor.
import type { Db } from '../../db/schema.js';

/**
 * Take the purger's lease for `owner` until `until` when nobody holds it, it ran out (before `now`) or `owner` holds
 * it already; the seq purged through, or null when another holds it.
 */
export async function claimPurger(db: Db, owner: string, now: string, until: string): Promise<number | null> {
  const r = await db
    .updateTable('cache_purger')
    .set({ holder: owner, lease_until: until })
    .where('id', '=', 1)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now), eb('holder', '=', owner)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  const row = await db.selectFrom('cache_purger').select('seq').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.seq);
}

/** Record that every entry through `seq` was purged, and extend the lease; false when `owner` lost it meanwhile. */
export async function advancePurger(db: Db, owner: string, seq: number, until: string): Promise<boolean> {
  const r = await db
    .updateTable('cache_purger')
    .set({ seq, lease_until: until })
    .where('id', '=', 1)
    .where('holder', '=', owner)
    .where('seq', '<=', seq)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Give the lease up (a clean stop): the next process takes over at once. */
export async function releasePurger(db: Db, owner: string): Promise<void> {
  await db.updateTable('cache_purger').set({ holder: null, lease_until: null }).where('id', '=', 1).where('holder', '=', owner).execute();
}
