// Author links: a CMS user (a WordPress author) named as a person only on that person's word. A publication asks
// to link user X of its site to a Credence username; the person is told (on /me, and by mail) which publication,
// which site and which display name, and confirms or declines in Credence; the CMS reads the answer and names the
// person as an author only once the link is confirmed. Each naming still makes a claim the person answers (or their
// standing answer decides): a link says who the user is, not that every post may be published under the name.
// A publication cannot ask one person again for one user: the person's answer stands, and only the person can
// change it (confirm what they declined or ended; end what they confirmed).
import type { AuthorLinkState } from '../../db/schema.js';
import { findAccountIdsByUsernames } from '../accounts/account.store.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { conflict, DomainError, invalid, notFound } from '../errors.js';
import { enqueueMail } from '../mail/mail.service.js';
import { parsePageUrl } from '../pages/url-keys.js';
import { lockPublisher } from '../publishers/publisher.store.js';
import { assertHolds } from '../publishers/holding.js';
import * as store from './author-links.store.js';

export type { AuthorLinkRow } from './author-links.store.js';

export interface LinkRequest {
  username: string;
  /** The site's address (its home page); kept as its origin and path. */
  site: string;
  user_id: string;
  display_name: string;
}

/** A site address as it is kept and compared: origin and path, no trailing slash, no query or fragment. */
export function siteOf(raw: string): { site: string; host: string } | null {
  const parsed = parsePageUrl(raw);
  if (!parsed) return null;
  const u = new URL(parsed.url);
  if (u.search || u.username || u.password) return null;
  return { site: `${u.origin}${u.pathname.replace(/\/+$/, '')}`, host: parsed.host };
}

/**
 * The publication asks to link one of its site's users to a person. A link already asked for (the same site, user
 * and person) is answered as it stands, whatever its state, and asks nobody again: 200 and `created: false`.
 */
export async function requestLink(deps: Deps, publisherId: number, input: LinkRequest): Promise<{ link: store.AuthorLinkRow; created: boolean }> {
  const where = siteOf(input.site);
  if (!where) throw invalid('site', 'must be the site’s http(s) address, without a query');
  const accountId = (await findAccountIdsByUsernames(deps.db, [input.username])).get(input.username);
  if (accountId === undefined) throw invalid('username', `no account is called ${input.username}`);
  const now = isoNow(deps.clock);
  const { pendingPerPublication, pendingPerPerson } = deps.config.authorLinkLimits;
  const id = await deps.db.transaction().execute(async (trx) => {
    // Counted under the publication's lock: two requests at once cannot both take the last place.
    await lockPublisher(trx, deps.dialect, publisherId);
    // Only a site on a domain the publication holds now (a domain moved away takes its users with it).
    await assertHolds(trx, publisherId, where.host);
    const existing = await store.findLink(trx, publisherId, where.site, input.user_id, accountId);
    if (existing) return null;
    if ((await store.countPending(trx, publisherId)) >= pendingPerPublication) {
      throw new DomainError('conflict', `A publication may have at most ${pendingPerPublication} link requests waiting for an answer; ask again once people answer`, [
        { field: 'limit', message: `at most ${pendingPerPublication} waiting link requests (AUTHOR_LINKS_PENDING_PER_PUBLICATION)` },
      ]);
    }
    if ((await store.countPending(trx, publisherId, accountId)) >= pendingPerPerson) {
      throw new DomainError('conflict', `This publication has ${pendingPerPerson} link requests waiting on ${input.username} already; ask again once they answer`, [
        { field: 'limit', message: `at most ${pendingPerPerson} waiting link requests to one person (AUTHOR_LINKS_PENDING_PER_PERSON)` },
      ]);
    }
    const publisher = (await trx.selectFrom('publishers').select('name').where('id', '=', publisherId).executeTakeFirstOrThrow()).name;
    const inserted = await store.insertLink(trx, { publisher_id: publisherId, account_id: accountId, site: where.site, user_id: input.user_id, display_name: input.display_name.trim(), created_at: now });
    // Requests from one publication within a few minutes go as one mail (the thread), and the kind can be turned off.
    await enqueueMail(trx, deps, {
      accountId,
      kind: 'author_link',
      thread: `publisher:${publisherId}`,
      fact: { publisher, site: where.site, display_name: input.display_name.trim(), link: `${deps.config.siteUrl}/me/author-links/${inserted}` },
    });
    return inserted;
  });
  if (id === null) return { link: (await store.findLink(deps.db, publisherId, where.site, input.user_id, accountId))!, created: false };
  return { link: (await store.publisherLink(deps.db, publisherId, id))!, created: true };
}

export async function publisherLink(deps: Deps, publisherId: number, id: number): Promise<store.AuthorLinkRow> {
  const link = await store.publisherLink(deps.db, publisherId, id);
  if (!link) throw notFound('Author link');
  return link;
}

export async function listPublisherLinks(deps: Deps, publisherId: number, filter: { site?: string; user_id?: string; state?: AuthorLinkState }, page: number, perPage: number) {
  let site: string | undefined;
  if (filter.site !== undefined) {
    site = siteOf(filter.site)?.site;
    if (site === undefined) throw invalid('site', 'must be the site’s http(s) address, without a query');
  }
  return store.listPublisherLinks(deps.db, publisherId, { site, userId: filter.user_id, state: filter.state }, page, perPage);
}

export const listMyLinks = (deps: Deps, accountId: number, state?: AuthorLinkState) => store.listOwnLinks(deps.db, accountId, state);

export async function myLink(deps: Deps, accountId: number, id: number): Promise<store.AuthorLinkRow> {
  // Another person's link is not found, as one that does not exist.
  const link = await store.ownLink(deps.db, accountId, id);
  if (!link) throw notFound('Author link');
  return link;
}

/** What each answer moves a link from: the person may always change their own answer, never the publication. */
const ANSWERS = {
  confirm: { from: ['pending', 'declined', 'ended'], to: 'confirmed' },
  decline: { from: ['pending'], to: 'declined' },
  unlink: { from: ['confirmed'], to: 'ended' },
} as const satisfies Record<string, { from: AuthorLinkState[]; to: AuthorLinkState }>;

export type LinkAnswer = keyof typeof ANSWERS;

export async function answerLink(deps: Deps, accountId: number, id: number, answer: LinkAnswer): Promise<store.AuthorLinkRow> {
  const link = await myLink(deps, accountId, id);
  const { from, to } = ANSWERS[answer];
  if (!(await store.settleLink(deps.db, accountId, id, [...from], to, isoNow(deps.clock)))) {
    throw conflict(link.state === to ? `This link is ${to} already` : `A ${link.state} link cannot be ${answer === 'unlink' ? 'unlinked' : `${answer}d`}`);
  }
  return myLink(deps, accountId, id);
}
