// API keys (SPEC §5): `cred_live_` + 64 hex, shown once, kept as a SHA-256 hash. A key is a publisher key or a
// contributor key, fixed when it is made.
import { assertConfirmed } from '../accounts/account.service.js';
import { enqueueMail } from '../mail/mail.service.js';
import { DomainError, notFound } from '../errors.js';
import { addDays, isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { lockAccount } from '../accounts/account.store.js';
import { listMemberships } from '../publishers/publisher.store.js';
import { requireMember } from '../publishers/publisher.service.js';
import { API_KEY_PREFIX, newApiKey, sha256 } from '../tokens.js';
import * as store from './api-key.store.js';

export type KeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(key: { revoked_at: string | null; expires_at: string | null }, now: Date): KeyStatus {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && key.expires_at <= now.toISOString()) return 'expired';
  return 'active';
}

export interface CreateKeyInput {
  name: string;
  expires_in_days?: number;
  /** A publisher's slug: the key acts for it. `null` asks for a contributor key explicitly. */
  publisher?: string | null;
}

export async function createApiKey(deps: Deps, accountId: number, input: CreateKeyInput) {
  await assertConfirmed(deps.db, accountId);
  let publisherId: number | null = null;
  if (typeof input.publisher === 'string') {
    publisherId = (await requireMember(deps, accountId, input.publisher)).publisher.id;
  } else if (input.publisher === undefined) {
    const memberships = await listMemberships(deps.db, accountId);
    if (memberships.length === 1) publisherId = memberships[0]!.id;
  }
  const secret = newApiKey();
  const now = deps.clock.now();
  const cap = deps.config.apiKeysPerAccount;
  const id = await deps.db.transaction().execute(async (trx) => {
    // A cap on the keys that act: each key had its own rate-limit bucket, so keys were a way to more
    // requests (there is an account bucket now too), and a leaked session could mint keys without end. Counted
    // under the account's lock, so two requests at once cannot both take the last place.
    await lockAccount(trx, deps.dialect, accountId);
    if ((await store.countActiveApiKeys(trx, accountId, now.toISOString())) >= cap) {
      throw new DomainError('conflict', `An account holds at most ${cap} active API keys; revoke one first`, [
        { field: 'limit', message: `at most ${cap} active API keys (API_KEYS_PER_ACCOUNT)` },
      ]);
    }
    return store.insertApiKey(trx, {
      account_id: accountId,
      publisher_id: publisherId,
      name: input.name.trim(),
      key_hash: sha256(secret),
      prefix: secret.slice(0, API_KEY_PREFIX.length + 4),
      last4: secret.slice(-4),
      created_at: now.toISOString(),
      expires_at: input.expires_in_days ? addDays(now, input.expires_in_days).toISOString() : null,
    });
  });
  const row = await store.findApiKey(deps.db, accountId, id);
  return { key: row!, secret };
}

export const listApiKeys = (deps: Deps, accountId: number) => store.listApiKeys(deps.db, accountId);

export async function pageApiKeys(deps: Deps, accountId: number, page: number, perPage: number) {
  const [total, items] = await Promise.all([
    store.countApiKeys(deps.db, accountId),
    store.listApiKeysPage(deps.db, accountId, perPage, (page - 1) * perPage),
  ]);
  return { total, items };
}

/** Every key that acts for a publication, whoever made it: its owners manage them. */
export async function listPublicationKeys(deps: Deps, accountId: number, slug: string) {
  const { publisher } = await requireMember(deps, accountId, slug, 'owner');
  return store.listPublisherKeys(deps.db, publisher.id);
}

export async function revokePublicationKey(deps: Deps, accountId: number, slug: string, id: number) {
  const { publisher } = await requireMember(deps, accountId, slug, 'owner');
  const key = await store.findPublisherKey(deps.db, publisher.id, id);
  if (!key) throw notFound('API key');
  await store.revokeApiKey(deps.db, key.account_id, id, isoNow(deps.clock));
  return (await store.findPublisherKey(deps.db, publisher.id, id))!;
}

export async function revokeApiKey(deps: Deps, accountId: number, id: number) {
  const key = await store.findApiKey(deps.db, accountId, id);
  if (!key) throw notFound('API key');
  await store.revokeApiKey(deps.db, accountId, id, isoNow(deps.clock));
  return (await store.findApiKey(deps.db, accountId, id))!;
}

export interface KeyPrincipal {
  keyId: number;
  accountId: number;
  publisherId: number | null;
}

// Writing last_used_at on every call would turn every read into a write; once a minute is enough to show it.
const TOUCH_EVERY_MS = 60_000;

/** Who a presented key acts as; 401 with the reason when it cannot act at all. Expiry is checked on every use. */
export async function authenticateKey(deps: Deps, secret: string): Promise<KeyPrincipal> {
  const key = await store.findApiKeyByHash(deps.db, sha256(secret));
  if (!key) throw new DomainError('unauthorized', 'The API key is not valid');
  const now = deps.clock.now();
  const status = keyStatus(key, now);
  if (status === 'revoked') throw new DomainError('key_revoked', 'The API key has been revoked');
  if (status === 'expired') throw new DomainError('key_expired', 'The API key has expired');
  if (!key.last_used_at || now.getTime() - Date.parse(key.last_used_at) > TOUCH_EVERY_MS) {
    await store.touchApiKey(deps.db, key.id, now.toISOString());
  }
  return { keyId: key.id, accountId: key.account_id, publisherId: key.publisher_id };
}

/** How long before a key expires its owner is told. */
export const EXPIRY_NOTICE_DAYS = 7;

/**
 * Tell the owners of keys that expire within 7 days (once a key; run by the mail job). Each key is marked in the
 * transaction that queues its notice, so two runs at once tell nobody twice. Returns how many were told.
 */
export async function noticeExpiringKeys(deps: Deps, batch = 100): Promise<number> {
  const now = deps.clock.now();
  const soon = new Date(now.getTime() + EXPIRY_NOTICE_DAYS * 86_400_000).toISOString();
  const keys = await store.keysExpiringBy(deps.db, now.toISOString(), soon, batch);
  let told = 0;
  for (const k of keys) {
    const marked = await deps.db.transaction().execute(async (trx) => {
      if (!(await store.markExpiryNoticed(trx, k.id, now.toISOString()))) return false;
      await enqueueMail(trx, deps, {
        accountId: k.account_id,
        kind: 'api_key_expiring',
        thread: `key:${k.id}`,
        fact: { name: k.name, expires_at: k.expires_at!.slice(0, 10), link: `${deps.config.siteUrl}/me/keys` },
      });
      return true;
    });
    if (marked) told++;
  }
  return told;
}
