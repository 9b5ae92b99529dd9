// Requests a domain's move leaves behind (docs/decisions/domain-verification.md): apart from request.service, which
// reaches page registration, so that the move (publisher.service) can call it without a cycle.
import type { Db, Deps } from '../deps.js';
import { enqueueMail } from '../mail/mail.service.js';
import { hostUnderDomain } from '../pages/url-keys.js';
import { holdsHost } from '../publishers/holding.js';
import { verifiedDomainsOf } from '../publishers/publisher.store.js';
import * as store from './request.store.js';

/**
 * A domain moved to another publication (publisher.service, in the move's transaction): the requests the old
 * publication left open or taken on its pages there are cancelled, since nobody could decide the work on them any
 * more (it no longer acts there, and the pages stay its own). A page whose host the old publication still holds
 * through another of its domains keeps its requests. Each specialist who held one is told why, as a cancelled take
 * (`take_cancelled`); the publication sees them `cancelled` in its lists. Returns how many were cancelled.
 */
export async function cancelStrandedRequests(
  trx: Db,
  deps: Pick<Deps, 'clock' | 'config' | 'dialect'>,
  move: { publisherId: number; publisherName: string; domain: string; holder: string },
  now: string,
): Promise<number> {
  const held = (await verifiedDomainsOf(trx, [move.publisherId])).get(move.publisherId) ?? [];
  let cancelled = 0;
  for (const r of await store.activeRequestsWithHost(trx, move.publisherId)) {
    if (!hostUnderDomain(r.host, move.domain) || holdsHost(held, r.host)) continue;
    if (!(await store.moveRequest(trx, r.id, ['open', 'taken'], { status: 'cancelled', updated_at: now }))) continue;
    cancelled++;
    if (r.status === 'taken' && r.taken_by !== null) {
      await enqueueMail(trx, deps, {
        accountId: r.taken_by,
        kind: 'take_cancelled',
        thread: `publisher:${move.publisherId}`,
        fact: { why: 'moved', publisher: move.publisherName, url: r.url, domain: move.domain, holder: move.holder, link: `${deps.config.siteUrl}/me/requests` },
      });
    }
  }
  return cancelled;
}
