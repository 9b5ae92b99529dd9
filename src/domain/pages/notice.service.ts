// Notices on a page: a publisher attaches a retraction, an expression of concern, a reinstatement, ... to
// one of its pages. One transaction writes the notice, its change-log entry (`page.notice`) and its outbox event,
// so the record, the feed, the log and both webhook surfaces all learn of it together. Nothing is ever removed: a
// retracted page keeps its accepted work and every earlier notice (docs/decisions/page-notices.md).
import { appendChangesFrom, takeSeqs } from '../changes/change-log.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { DomainError, invalid, missing, notFound } from '../errors.js';
import { appendEvent } from '../events/outbox.js';
import { lockPublisher } from '../publishers/publisher.store.js';
import { assertHolds } from '../publishers/holding.js';
import { findPageById } from './page.store.js';
import { insertNotice, listNotices } from './notice.store.js';
import { NOTICE_TYPES, type NoticeType, type Standing, standingOf } from './notices.js';
import { parseSourceUrl } from './url-keys.js';
import { type PanelFlagReason, flagCitingStatements } from '../panels/review-flags.js';
import { characters } from '../text.js';

export const NOTICE_REASON_MAX = 2000;

/** The notices that put a page's content in doubt, and the review flag each raises on statements citing it. */
const FLAGGING: Partial<Record<NoticeType, PanelFlagReason>> = {
  retraction: 'source_retracted',
  partial_retraction: 'source_retracted',
  withdrawal: 'source_retracted',
  removal: 'source_retracted',
  expression_of_concern: 'source_concern',
};

export interface NoticeInput {
  type?: unknown;
  date?: unknown;
  reason?: unknown;
  url?: unknown;
}

/** What `page.notice` events carry in the outbox: the notice as published and the standing it left. */
export interface PageNoticeFacts {
  page: { id: number; url: string; title: string };
  publisher: { slug: string; name: string };
  notice: { id: number; type: NoticeType; date: string; reason: string; url: string | null };
  standing: Standing;
  previous_standing: Standing;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The notice's fields, checked; each refusal names its field. */
export function parseNotice(input: NoticeInput, today: string): { type: NoticeType; date: string; reason: string; url: string | null } {
  if (input.type === undefined) throw missing('type');
  if (typeof input.type !== 'string' || !(NOTICE_TYPES as readonly string[]).includes(input.type)) {
    throw invalid('type', `must be one of ${NOTICE_TYPES.join(', ')}`);
  }
  let date = today;
  if (input.date !== undefined) {
    if (typeof input.date !== 'string' || !DAY.test(input.date) || Number.isNaN(Date.parse(`${input.date}T00:00:00Z`)) || new Date(`${input.date}T00:00:00Z`).toISOString().slice(0, 10) !== input.date) {
      throw invalid('date', 'must be a date, YYYY-MM-DD');
    }
    if (input.date > today) throw invalid('date', 'must not be in the future');
    date = input.date;
  }
  if (input.reason === undefined) throw missing('reason');
  const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
  if (reason === '') throw invalid('reason', 'must say why, in at least one word');
  if (characters(reason) > NOTICE_REASON_MAX) throw invalid('reason', `must be at most ${NOTICE_REASON_MAX} characters`);
  let url: string | null = null;
  if (input.url !== undefined && input.url !== null) {
    const parsed = parseSourceUrl(input.url);
    if ('problem' in parsed) {
      throw new DomainError('invalid_url', 'url: must be an http(s) address of at most 2,048 characters, without a user name or password', [
        { field: 'url', message: 'must be an http(s) address of at most 2,048 characters, without a user name or password' },
      ]);
    }
    url = parsed.url;
  }
  return { type: input.type as NoticeType, date, reason, url };
}

/**
 * Attach a notice to a page of one of `publisherIds` (the caller's publications). Another publication's page is 404,
 * as if it did not exist; a page of a domain the publication no longer holds is 403 `page_not_verified`. A reinstatement of a page in good standing is 409: there is nothing to reinstate.
 */
export async function addNotice(
  deps: Deps,
  publisherIds: number[],
  pageId: number,
  input: NoticeInput,
): Promise<PageNoticeFacts & { published_at: string; log_seq: number }> {
  const now = isoNow(deps.clock);
  const notice = parseNotice(input, now.slice(0, 10));
  const page = await findPageById(deps.db, pageId);
  if (!page || !publisherIds.includes(page.publisher_id)) throw notFound('Page');
  const facts = await deps.db.transaction().execute(async (trx) => {
    // Notices of one publication one at a time, so each reads the standing the one before left.
    await lockPublisher(trx, deps.dialect, page.publisher_id);
    // A page of a domain moved to another publication: its standing is no longer this publication's to change.
    await assertHolds(trx, page.publisher_id, page.host);
    const before = standingOf(await listNotices(trx, [page.id]));
    if (notice.type === 'reinstatement' && before === 'current') {
      throw new DomainError('conflict', 'The page is in good standing: there is nothing to reinstate', [{ field: 'type', message: 'reinstatement needs a page that is not current' }]);
    }
    // A retraction (withdrawal, removal) or an expression of concern flags the panel statements citing the page.
    const flagReason = FLAGGING[notice.type];
    const flags = flagReason ? await flagCitingStatements(trx, { id: page.id, lookupKey: page.lookup_key }, flagReason, `/records/${page.id}`, now) : [];
    const first = await takeSeqs(trx);
    const id = await insertNotice(trx, {
      page_id: page.id,
      publisher_id: page.publisher_id,
      type: notice.type,
      notice_date: notice.date,
      reason: notice.reason,
      notice_url: notice.url,
      created_at: now,
      log_seq: first,
    });
    const standing = standingOf(await listNotices(trx, [page.id]));
    const out: PageNoticeFacts = {
      page: { id: page.id, url: page.url, title: page.title },
      publisher: { slug: page.publisher_slug, name: page.publisher_name },
      notice: { id, type: notice.type, date: notice.date, reason: notice.reason, url: notice.url },
      standing,
      previous_standing: before,
    };
    await appendEvent(trx, { type: 'page.notice', publisherId: page.publisher_id, pageId: page.id, payload: out, now });
    await appendChangesFrom(trx, first, [
      {
        kind: 'page.notice',
        ids: { pageId: page.id, publisherId: page.publisher_id },
        data: { page: out.page, publisher: out.publisher, notice: out.notice, standing, previous_standing: before },
        now,
      },
      ...flags,
    ]);
    return { ...out, published_at: now, log_seq: first };
  });
  await deps.changes.committed();
  return facts;
}
