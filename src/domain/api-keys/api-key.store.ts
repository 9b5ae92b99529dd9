// All SQL about API keys. Reads of one account's keys take the account, so another's cannot be read by mistake.
import type { Db } from '../../db/schema.js';

export async function insertApiKey(
  db: Db,
  row: {
    account_id: number;
    publisher_id: number | null;
    name: string;
    key_hash: string;
    prefix: string;
    last4: string;
    created_at: string;
    expires_at: string | null;
  },
): Promise<number> {
  const r = await db.insertInto('api_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

const keyWithPublisher = (db: Db) =>
  db
    .selectFrom('api_keys as k')
    .leftJoin('publishers as p', 'p.id', 'k.publisher_id')
    .select([
      'k.id',
      'k.account_id',
      'k.publisher_id',
      'k.name',
      'k.prefix',
      'k.last4',
      'k.created_at',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'p.slug as publisher_slug',
      'p.name as publisher_name',
    ]);

export type ApiKeyRow = Awaited<ReturnType<typeof listApiKeys>>[number];

export const listApiKeys = (db: Db, accountId: number) =>
  keyWithPublisher(db).where('k.account_id', '=', accountId).orderBy('k.id', 'desc').execute();

/** One page of an account's keys, newest first (GET /api/v1/account/api-keys, SPEC §8). */
export const listApiKeysPage = (db: Db, accountId: number, limit: number, offset: number) =>
  keyWithPublisher(db).where('k.account_id', '=', accountId).orderBy('k.id', 'desc').limit(limit).offset(offset).execute();

export async function countApiKeys(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('account_id', '=', accountId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The account's keys that still act: neither revoked nor expired at `now`. */
export async function countActiveApiKeys(db: Db, accountId: number, now: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A publication's keys, whoever made them (`made_by`: the maker's username): for its owners. */
export const listPublisherKeys = (db: Db, publisherId: number) =>
  keyWithPublisher(db)
    .innerJoin('accounts as maker', 'maker.id', 'k.account_id')
    .select('maker.username as made_by')
    .where('k.publisher_id', '=', publisherId)
    .orderBy('k.id', 'desc')
    .execute();

export const findPublisherKey = (db: Db, publisherId: number, id: number) =>
  keyWithPublisher(db).where('k.publisher_id', '=', publisherId).where('k.id', '=', id).executeTakeFirst();

export const findApiKey = (db: Db, accountId: number, id: number) =>
  keyWithPublisher(db).where('k.account_id', '=', accountId).where('k.id', '=', id).executeTakeFirst();

/** Authentication: the only read by hash, and it returns no secret material. */
export const findApiKeyByHash = (db: Db, keyHash: string) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'publisher_id', 'expires_at', 'revoked_at', 'last_used_at'])
    .where('key_hash', '=', keyHash)
    .executeTakeFirst();

export async function revokeApiKey(db: Db, accountId: number, id: number, now: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revoke every live key of the account (a password change or "log out everywhere" that asks for it); how many. */
export async function revokeAllApiKeys(db: Db, accountId: number, now: string): Promise<number> {
  const r = await db.updateTable('api_keys').set({ revoked_at: now }).where('account_id', '=', accountId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function touchApiKey(db: Db, id: number, now: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Live keys that expire between `now` and `by` and whose owner was not told yet. */
export const keysExpiringBy = (db: Db, now: string, by: string, limit: number) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'name', 'expires_at'])
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('expires_at', '<=', by)
    .where('expiry_notice_at', 'is', null)
    .orderBy('expires_at')
    .limit(limit)
    .execute();

/** Mark a key's expiry as told; false when another run did it first. */
export async function markExpiryNoticed(db: Db, id: number, now: string): Promise<boolean> {
  const r = await db.updateTable('api_keys').set({ expiry_notice_at: now }).where('id', '=', id).where('expiry_notice_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
