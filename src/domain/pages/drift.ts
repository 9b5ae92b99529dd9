// Work applies to one version of a page. When registration brings a new version (a hash, the text, or
// the text fetched), the page's accepted reviews, fact checks and corrections done on an older version are marked
// "changed since", a correction whose new text no longer appears is flagged, and `page.changed` goes to both
// webhook surfaces and the change log, all in the registering transaction. Docs: docs/decisions/page-versions-and-drift.md.
import { sql } from 'kysely';
import { appendChange, type PublicPublisher } from '../changes/change-log.js';
import type { Db } from '../../db/schema.js';
import { appendEvent } from '../events/outbox.js';
import { textStillAppears } from './page-text.js';
import { parsePageUrl } from './url-keys.js';
import { flagCitingStatements } from '../panels/review-flags.js';

/** The kinds of work a change of text can invalidate; authorship, edits and sources stay as they were. */
export const DRIFTING_ROLES = ['review', 'fact_check', 'correction'] as const;

export interface NewVersion {
  hash: string;
  /** The normalised-or-not text, when the publisher sent it or the service fetched it; never stored. */
  text: string | null;
}

export interface PageChangedFacts {
  page: { id: number; url: string; title: string };
  changed_at: string;
  /** Accepted work done on an older version, as it stands after this change. */
  work: { id: number; role: string; contributor: { username: string; name: string }; accepted_at: string; correction_missing: boolean | null }[];
}

/**
 * Record a version of the page. Returns true when the stored version moved (the record changed). The first version
 * the service learns anchors work accepted before it; a different later one is a change.
 */
export async function applyVersion(
  trx: Db,
  page: { id: number; publisherId: number; url: string; title: string; previousHash: string | null },
  version: NewVersion,
  publisher: PublicPublisher,
  now: string,
): Promise<boolean> {
  if (version.hash === page.previousHash) return false;
  const changed = page.previousHash !== null;
  await trx
    .updateTable('pages')
    .set({ content_hash: version.hash, content_seen_at: now, ...(changed ? { content_changed_at: now } : {}) })
    .where('id', '=', page.id)
    .execute();
  if (!changed) {
    // Work accepted while no version was known applies to the first one the service learns.
    await trx.updateTable('contributions').set({ page_hash: version.hash }).where('page_id', '=', page.id).where('page_hash', 'is', null).execute();
  } else {
    await trx
      .updateTable('contributions')
      .set({ page_changed_at: now })
      .where('page_id', '=', page.id)
      .where('role', 'in', [...DRIFTING_ROLES])
      .where('page_hash', 'is not', null)
      .where('page_hash', '!=', version.hash)
      .where('page_changed_at', 'is', null)
      .execute();
    // Back to the very version the work was done on: it holds again.
    await trx.updateTable('contributions').set({ page_changed_at: null }).where('page_id', '=', page.id).where('page_hash', '=', version.hash).execute();
  }
  await checkCorrections(trx, page.id, version.text);
  if (!changed) return true;
  const facts = await changedFacts(trx, page, now);
  await appendEvent(trx, { type: 'page.changed', publisherId: page.publisherId, pageId: page.id, payload: facts, now });
  // Panel statements issued on the older text and citing the page are flagged for review.
  const key = parsePageUrl(page.url)?.lookupKey;
  const flags = key ? await flagCitingStatements(trx, { id: page.id, lookupKey: key }, 'source_changed', `/records/${page.id}`, now, now) : [];
  await appendChange(trx, {
    kind: 'page.changed',
    ids: { pageId: page.id, publisherId: page.publisherId },
    data: { page: facts.page, publisher, changed_at: now, work: facts.work.map((w) => ({ id: w.id, role: w.role, correction_missing: w.correction_missing })) },
    now,
  });
  for (const f of flags) await appendChange(trx, f);
  return true;
}

/** With the text at hand, say for each accepted correction whether its new text still appears; without it, unknown. */
async function checkCorrections(trx: Db, pageId: number, text: string | null): Promise<void> {
  const corrections = await trx
    .selectFrom('contributions')
    .select(['id', 'change_to'])
    .where('page_id', '=', pageId)
    .where('role', '=', 'correction')
    .execute();
  if (corrections.length === 0) return;
  if (text === null) {
    await trx.updateTable('contributions').set({ correction_missing: null }).where('page_id', '=', pageId).where('role', '=', 'correction').execute();
    return;
  }
  const missing = corrections.filter((c) => c.change_to !== null && !textStillAppears(text, c.change_to)).map((c) => c.id);
  await trx
    .updateTable('contributions')
    .set({ correction_missing: sql<number>`case when id in (${sql.join(missing.length ? missing : [-1])}) then 1 else 0 end` })
    .where('page_id', '=', pageId)
    .where('role', '=', 'correction')
    .execute();
}

async function changedFacts(trx: Db, page: { id: number; url: string; title: string }, now: string): Promise<PageChangedFacts> {
  const rows = await trx
    .selectFrom('contributions as c')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .select(['c.id', 'c.role', 'c.accepted_at', 'c.correction_missing', 'a.username', 'a.name'])
    .where('c.page_id', '=', page.id)
    .where('c.page_changed_at', 'is not', null)
    .orderBy('c.id')
    .execute();
  return {
    page: { id: page.id, url: page.url, title: page.title },
    changed_at: now,
    work: rows.map((r) => ({
      id: r.id,
      role: r.role,
      contributor: { username: r.username, name: r.name },
      accepted_at: r.accepted_at,
      correction_missing: r.correction_missing === null ? null : r.correction_missing === 1,
    })),
  };
}
