// Publisher requests (SPEC §4): open → taken → fulfilled; open/taken → cancelled. A specialist takes and releases;
// the publisher opens and cancels; accepting work fulfils (submission.service).
import { assertConfirmed } from '../accounts/account.service.js';
import { enqueueMail, noticeToOwners } from '../mail/mail.service.js';
import { DomainError, conflict, forbidden, invalid, invalidUrl, notFound } from '../errors.js';
import { assertHolds } from '../publishers/holding.js';
import { findAccountById, lockAccount } from '../accounts/account.store.js';
import { type BatchItem, type ItemResult, applyEach } from '../batch.js';
import { assertNoInterestIn, interestsOf } from '../interests/interest.service.js';
import { type Authorship, assertNotAuthorOf, pagesAuthoredBy } from '../consent/conflicts.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { appendEvent } from '../events/outbox.js';
import { findPageById, findPageByLookupKey } from '../pages/page.store.js';
import { registerPages } from '../pages/page.service.js';
import { parsePageUrl } from '../pages/url-keys.js';
import type { WorkKind } from '../work-kinds.js';
import * as store from './request.store.js';

export interface RequestInput {
  url?: string | undefined;
  article_ref_id?: number | undefined;
  kind: WorkKind;
  topic?: string | undefined;
  title?: string | undefined;
  brief?: string | undefined;
}

/** A publication acts only on pages whose domain it holds now: a page of a domain moved away is 403 `page_not_verified`. */
async function heldPage<P extends { host: string }>(deps: Deps, publisherId: number, page: P): Promise<P> {
  await assertHolds(deps.db, publisherId, page.host);
  return page;
}

/** The caller publisher's page for a URL (registered first when new) or an id. */
async function pageFor(deps: Deps, publisherId: number, input: RequestInput) {
  if (input.url !== undefined && input.article_ref_id !== undefined) {
    throw invalid('article_ref_id', 'name the page by url or by article_ref_id, not both');
  }
  if (input.article_ref_id !== undefined) {
    const page = await findPageById(deps.db, input.article_ref_id);
    // Another publisher's page is indistinguishable from a missing one.
    if (!page || page.publisher_id !== publisherId) throw notFound(`Page ${input.article_ref_id}`);
    return heldPage(deps, publisherId, page);
  }
  if (input.url === undefined) throw new DomainError('missing_parameter', 'url or article_ref_id is required', [{ field: 'url', message: 'url or article_ref_id is required' }]);
  const url = parsePageUrl(input.url);
  if (!url) throw invalidUrl();
  const existing = await findPageByLookupKey(deps.db, url.lookupKey);
  if (existing && existing.publisher_id === publisherId) return heldPage(deps, publisherId, existing);
  // A page first named by a request takes the request's topic, so work on it counts in that topic.
  const value = { url: input.url, ...(input.topic ? { topic: input.topic } : {}) };
  const [result] = await registerPages(deps, publisherId, [{ index: 0, ok: true, value }]);
  if (result?.error) throw result.error;
  return (await findPageById(deps.db, result!.id!))!;
}

/**
 * How many requests one publication may have open or taken at once: far above what an editor works through, low
 * enough that one publication cannot fill the marketplace (500 in one call, again and again).
 */
export const ACTIVE_REQUESTS_MAX = 1_000;

export async function openRequests(
  deps: Deps,
  publisherId: number,
  accountId: number,
  items: BatchItem<RequestInput>[],
): Promise<ItemResult[]> {
  // A soft cap, read once a batch: two batches at once may pass it by at most one batch.
  let active = await store.countActiveRequests(deps.db, publisherId);
  return applyEach(items, async (input) => {
    if (active >= ACTIVE_REQUESTS_MAX) {
      throw new DomainError('conflict', `A publication has at most ${ACTIVE_REQUESTS_MAX} requests open or taken at once; cancel or finish some first`);
    }
    const page = await pageFor(deps, publisherId, input);
    active += 1;
    const id = await store.insertRequest(deps.db, {
      publisher_id: publisherId,
      page_id: page.id,
      kind: input.kind,
      topic: input.topic?.trim().toLowerCase() || page.topic,
      title: input.title?.trim() || page.title,
      brief: input.brief?.trim() ?? '',
      created_by: accountId,
      now: isoNow(deps.clock),
    });
    return { status: 'created', id, url: page.url };
  });
}

export async function getRequest(deps: Deps, id: number) {
  const r = await store.findRequest(deps.db, id);
  if (!r) throw notFound('Request');
  return r;
}

export async function getPublisherRequest(deps: Deps, publisherIds: number[], id: number) {
  const r = await store.findRequest(deps.db, id);
  if (!r || !publisherIds.includes(r.publisher_id)) throw notFound('Request');
  return r;
}

export const listPublisherRequests = (deps: Deps, publisherIds: number[], page: number, perPage: number) =>
  store.listPublisherRequests(deps.db, publisherIds, perPage, (page - 1) * perPage);

export const marketplace = (
  deps: Deps,
  filter: { topic?: string | undefined; kind?: WorkKind | undefined },
  page: number,
  perPage: number,
) => store.listOpenRequests(deps.db, { ...filter, topic: filter.topic?.trim().toLowerCase() }, perPage, (page - 1) * perPage);

/**
 * The marketplace as one person sees it: with the pages among its requests that they are (or were, or are asked to
 * be) named an author of, and how, whose requests they cannot take
 * (docs/decisions/authors-do-not-check-their-own-pages.md). Nobody signed in: none.
 */
export async function marketplaceFor(
  deps: Deps,
  viewerId: number | null,
  filter: { topic?: string | undefined; kind?: WorkKind | undefined },
  page: number,
  perPage: number,
) {
  const result = await marketplace(deps, filter, page, perPage);
  if (viewerId === null) return { ...result, authored: new Map<number, Authorship>(), declared: new Map<number, string>() };
  const [authored, held] = await Promise.all([pagesAuthoredBy(deps.db, viewerId, result.rows.map((r) => r.page_id)), interestsOf(deps.db, [viewerId])]);
  // Publications the viewer declared an interest in: their requests cannot be taken (assertNoInterestIn), so they
  // are not offered.
  const declared = new Map(held.filter((i) => i.subject === 'publication' && i.publisher_id !== null).map((i) => [i.publisher_id!, i.name] as const));
  return { ...result, authored, declared };
}

export const listTakenRequests = (deps: Deps, accountId: number) => store.listTakenBy(deps.db, accountId);

function stateConflict(r: store.RequestRow, action: string): DomainError {
  return conflict(`The request is ${r.status}; it cannot be ${action}`);
}

/**
 * Take an open request. An account holds at most REQUESTS_HELD_PER_ACCOUNT requests at once, those with work pending
 * on them included (one fresh account took every open request of the marketplace; another submitted junk on each to
 * free its place): one more is 409 naming the limit, counted under the account's lock so that takes at once cannot
 * pass it. A place frees when the publisher decides the work, or the take is released, expires or is cancelled. A take
 * lasts REQUEST_TAKE_HOURS without work (`expireStaleTakes`).
 */
export async function takeRequest(deps: Deps, accountId: number, id: number) {
  // A take shows the taker's username in the marketplace, and leads only to submitting work.
  await assertConfirmed(deps.db, accountId);
  const now = isoNow(deps.clock);
  const taker = await findAccountById(deps.db, accountId);
  const cap = deps.config.requestsHeldPerAccount;
  await deps.db.transaction().execute(async (trx) => {
    const r = await store.findRequest(trx, id);
    if (!r) throw notFound('Request');
    // A declared interest in the publication rules its requests out.
    await assertNoInterestIn(trx, accountId, r.publisher_id);
    // Nobody checks a page they are named an author of.
    await assertNotAuthorOf(trx, accountId, r.page_id, r.kind);
    await lockAccount(trx, deps.dialect, accountId);
    if (r.status === 'open' && (await store.countHeld(trx, accountId)) >= cap) {
      throw new DomainError('conflict', `You hold ${cap} requests, the most an account may; a place frees when the publisher decides your work on one, or when you release one`, [
        { field: 'limit', message: `at most ${cap} requests held at once, work pending on them included (REQUESTS_HELD_PER_ACCOUNT)` },
      ]);
    }
    if (!(await store.moveRequest(trx, id, ['open'], { status: 'taken', taken_by: accountId, taken_at: now, updated_at: now }))) {
      throw stateConflict(r, 'taken');
    }
    await appendEvent(trx, {
      type: 'request.taken',
      publisherId: r.publisher_id,
      pageId: r.page_id,
      payload: {
        request: { id: r.id, kind: r.kind, status: 'taken', taken_by: taker?.username ?? null, topic: r.topic },
        page: { id: r.page_id, url: r.page_url, title: r.page_title },
      },
      now,
    });
    // The publication's owners hear of it; takes within a few minutes go as one mail.
    await noticeToOwners(trx, deps, r.publisher_id, {
      kind: 'request_taken',
      thread: `publisher:${r.publisher_id}`,
      fact: { username: taker?.username ?? '', url: r.page_url, link: `${deps.config.siteUrl}/dashboard` },
    });
  });
  return getRequest(deps, id);
}

export async function releaseRequest(deps: Deps, accountId: number, id: number) {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const r = await store.findRequest(trx, id);
    if (!r) throw notFound('Request');
    if (r.status !== 'taken') throw stateConflict(r, 'released');
    if (r.taken_by !== accountId) throw forbidden('Only the specialist who took the request can release it');
    const pending = await trx
      .selectFrom('submissions')
      .select('id')
      .where('request_id', '=', id)
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (pending) throw conflict(`Submission ${pending.id} on this request is pending; withdraw it first`);
    if (!(await store.moveRequest(trx, id, ['taken'], { status: 'open', taken_by: null, taken_at: null, updated_at: now }, accountId))) {
      throw stateConflict(r, 'released');
    }
  });
  return getRequest(deps, id);
}

export async function cancelRequest(deps: Deps, publisherIds: number[], id: number) {
  const r = await getPublisherRequest(deps, publisherIds, id);
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const current = await store.findRequest(trx, id);
    // A request on a page of a domain moved away stays as it is: the publication no longer acts there.
    const page = current ? await findPageById(trx, current.page_id) : undefined;
    if (page) await assertHolds(trx, current!.publisher_id, page.host);
    if (!current || !(await store.moveRequest(trx, id, ['open', 'taken'], { status: 'cancelled', updated_at: now }))) {
      throw stateConflict(r, 'cancelled');
    }
    // The specialist who held it hears of it.
    if (current.status === 'taken' && current.taken_by !== null) {
      const publisher = await trx.selectFrom('publishers').select('name').where('id', '=', current.publisher_id).executeTakeFirst();
      await enqueueMail(trx, deps, {
        accountId: current.taken_by,
        kind: 'take_cancelled',
        thread: `publisher:${current.publisher_id}`,
        fact: { publisher: publisher?.name ?? '', url: current.page_url, link: `${deps.config.siteUrl}/me/requests` },
      });
    }
  });
  return getRequest(deps, id);
}

/** When a take made now runs out without work. */
export const takeExpiresAt = (deps: Deps, takenAt: string): string =>
  new Date(Date.parse(takenAt) + deps.config.requestTakeHours * 3_600_000).toISOString();

/**
 * Reopen every take older than REQUEST_TAKE_HOURS with no work pending on it (Takes never expired), each
 * with a record of its expiry for the specialist's /me and the publisher's dashboard, in one transaction a take.
 * Safe to run twice and on several instances at once: each reopening names the take it ends (expireTake), so only
 * one run moves it and records it. Returns how many this run reopened.
 */
export async function expireStaleTakes(deps: Deps, batch = 100): Promise<number> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.config.requestTakeHours * 3_600_000).toISOString();
  let expired = 0;
  for (;;) {
    const stale = await store.findStaleTakes(deps.db, cutoff, batch);
    let moved = 0;
    for (const take of stale) {
      if (take.taken_by === null || take.taken_at === null) continue;
      const one = { id: take.id, publisher_id: take.publisher_id, taken_by: take.taken_by, taken_at: take.taken_at };
      if (await deps.db.transaction().execute((trx) => store.expireTake(trx, one, now.toISOString()))) moved++;
    }
    expired += moved;
    // A full batch of which none moved is another run's work, taken first: stop rather than read it again.
    if (stale.length < batch || moved === 0) return expired;
  }
}

/** Expiries in the last 30 days: the specialist's (its /me) or a publisher's (its dashboard). */
const NOTICE_DAYS = 30;
const noticeSince = (deps: Deps) => new Date(deps.clock.now().getTime() - NOTICE_DAYS * 86_400_000).toISOString();
export const myExpiredTakes = (deps: Deps, accountId: number) => store.listExpiriesOfAccount(deps.db, accountId, noticeSince(deps), 10);
export const publisherExpiredTakes = (deps: Deps, publisherId: number) => store.listExpiriesOfPublisher(deps.db, publisherId, noticeSince(deps), 10);
