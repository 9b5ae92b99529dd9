// Panels that reopen themselves: a statement version cites pages (its `sources`). When a cited page gets
// an accepted correction, a retraction (or withdrawal, removal) or an expression of concern, or its text changes
// after the version was issued, the current version is flagged for review at once, in the transaction of that change:
// a flag row (reason and link), `panel.updated` to the /v1 webhooks of the topic's publishers, and a `panel.flagged`
// change-log entry for the feed and every process's cache. Issuing the next version clears it (flags belong to the
// version they were raised on). docs/decisions/panel-review-flags.md.
import { appendChange, type Change } from '../changes/change-log.js';
import type { Db, Deps } from '../deps.js';
import { appendEvent } from '../events/outbox.js';
import type { PanelFlagReason } from '../../db/schema.js';
import * as store from './panel.store.js';

export type { PanelFlagReason };
export const FLAG_REASONS = ['source_corrected', 'source_retracted', 'source_concern', 'source_changed'] as const satisfies readonly PanelFlagReason[];
/** The version's revisit date has passed: shown from the date at once, stored (and told) by `flagDueRevisits`. */
export const REVISIT_DUE = 'revisit_due';

/**
 * Flag every current version citing the page (by lookup key); `issuedBefore` keeps only versions issued before the
 * change (a text change concerns what was issued on the older text). Writes the flags and their events; returns the
 * change-log entries for the caller to append with its own, last (docs/changes.md).
 */
export async function flagCitingStatements(
  trx: Db,
  page: { id: number; lookupKey: string },
  reason: PanelFlagReason,
  /** A path on this site: the correction's proof (`/proofs/12`) or the page's record (`/records/3`). */
  link: string,
  now: string,
  issuedBefore?: string,
): Promise<Change[]> {
  const versions = await store.currentVersionsCiting(trx, page.lookupKey, issuedBefore);
  const entries: Change[] = [];
  for (const v of versions) {
    await store.insertFlag(trx, { version_id: v.id, reason, source_url: v.url, page_id: page.id, link, flagged_at: now });
    const flag = { reason, source: v.url, link, flagged_at: now };
    await appendEvent(trx, {
      type: 'panel.updated',
      publisherId: null,
      pageId: null,
      payload: { panel_id: v.slug, version: v.version, previous_version: v.version, topic: v.topic, changes: { review: { from: null, to: flag } } },
      now,
    });
    entries.push({ kind: 'panel.flagged', ids: { panelId: v.slug, pageId: page.id }, data: { panel: { id: v.slug, version: v.version, topic: v.topic }, flag }, now });
  }
  return entries;
}

/**
 * Current versions whose revisit date has passed and that were not told yet: each gets a stored `revisit_due` flag,
 * `panel.updated` and a `panel.flagged` entry, once (one transaction a version; the flag row is the "told" mark, so
 * a second pass or process finds nothing). Run by `serve` with the service's other clock (jobs/take-expiry.ts).
 */
export async function flagDueRevisits(deps: Deps): Promise<number> {
  const now = deps.clock.now().toISOString();
  const due = await store.dueRevisits(deps.db, now.slice(0, 10));
  let flagged = 0;
  for (const v of due) {
    const told = await deps.db.transaction().execute(async (trx) => {
      if (!(await store.claimRevisit(trx, v.id))) return false;
      const flag = { reason: REVISIT_DUE, source: null, link: `/panels/${v.slug}`, flagged_at: now };
      await store.insertFlag(trx, { version_id: v.id, reason: REVISIT_DUE, source_url: '', page_id: null, link: flag.link, flagged_at: now });
      await appendEvent(trx, {
        type: 'panel.updated',
        publisherId: null,
        pageId: null,
        payload: { panel_id: v.slug, version: v.version, previous_version: v.version, topic: v.topic, changes: { review: { from: null, to: flag } } },
        now,
      });
      await appendChange(trx, { kind: 'panel.flagged', ids: { panelId: v.slug }, data: { panel: { id: v.slug, version: v.version, topic: v.topic }, flag }, now });
      return true;
    });
    if (told) flagged++;
  }
  if (flagged > 0) await deps.changes.committed();
  return flagged;
}
