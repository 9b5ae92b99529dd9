// A publication acts only on pages whose domain it holds now (seed 000 §4 rule 1, §5.3). A verified domain moves to
// whoever proves control of it (docs/decisions/domain-verification.md), and the pages keep the publication that
// registered them, for their history; so every write a publication makes on a page (registering it, naming its
// authors, opening or cancelling a request on it, deciding the work on it, a notice) asks this module first, and a
// page of a domain moved away is 403 `page_not_verified` whichever surface, key or session asks.
import type { Db } from '../../db/schema.js';
import { DomainError } from '../errors.js';
import { hostUnderDomain } from '../pages/url-keys.js';
import { verifiedDomainsOf } from './publisher.store.js';

/** Whether a host is under one of these verified domains. */
export const holdsHost = (domains: readonly string[], host: string): boolean => domains.some((d) => hostUnderDomain(host, d));

/** 403 `page_not_verified`: the host is under none of the publication's verified domains now. */
export const notHeld = (host: string) => new DomainError('page_not_verified', `${host} is not a verified site on this account`);

/** Throws `notHeld` unless the host is under one of these verified domains (a publication's, read once by the caller). */
export function assertHeldIn(domains: readonly string[], host: string): void {
  if (!holdsHost(domains, host)) throw notHeld(host);
}

/** Throws `notHeld` unless the publication holds a verified domain the host is under, now. */
export async function assertHolds(db: Db, publisherId: number, host: string): Promise<void> {
  assertHeldIn((await verifiedDomainsOf(db, [publisherId])).get(publisherId) ?? [], host);
}

/**
 * For a batch: the domains these publications hold, read once, and the check for one item (throws `notHeld`).
 * Read inside the batch's transaction, so a move committed meanwhile is seen by the whole batch or by none of it.
 */
export async function holdings(db: Db, publisherIds: number[]): Promise<(publisherId: number, host: string) => void> {
  const held = await verifiedDomainsOf(db, [...new Set(publisherIds)]);
  return (publisherId, host) => assertHeldIn(held.get(publisherId) ?? [], host);
}
