// A page's trust record as data: the page, its publisher, whether its host is still verified, and every
// accepted contribution with the public face of its contributor. Surfaces' presenters shape it.
import type { FixedReader } from '../../db/client.js';
import type { Db } from '../../db/schema.js';
import { verifiedDomainsOf } from '../publishers/publisher.store.js';
import { type PageRow, type RecordContributionRow, type RecordLoadRow, listAcceptedContributions, loadRecordRows } from './page.store.js';
import { hostUnderDomain } from './url-keys.js';
import { listNotices } from './notice.store.js';
import { type Notice, type Standing, newestFirst, standingOf } from './notices.js';

export interface PageRecord {
  page: PageRow;
  /** The page's host is under a verified domain of its publisher (SPEC §4). */
  verified: boolean;
  contributions: RecordContributionRow[];
  /** Every notice on the page, newest first, and the standing they leave it in. */
  notices: Notice[];
  standing: Standing;
}

/**
 * A page "has a record" once it has accepted work (or named authors): both seeds' words, one rule. A registered page
 * without any is `has_record: false` on the /api/v1 lookup and 404 "no record yet" on /v1/pages/record.
 */
export const hasRecord = (record: PageRecord | null): record is PageRecord =>
  record !== null && (record.contributions.length > 0 || record.notices.length > 0);

/** A record's notices and standing from its notices in any order. */
function withNotices(notices: Notice[]): { notices: Notice[]; standing: Standing } {
  return { notices: newestFirst(notices), standing: standingOf(notices) };
}

/** Records for many pages in three queries, whatever the number of pages. */
export async function buildRecords(db: Db, pages: PageRow[]): Promise<PageRecord[]> {
  if (pages.length === 0) return [];
  const ids = pages.map((p) => p.id);
  const [contributions, domains, notices] = await Promise.all([
    listAcceptedContributions(db, ids),
    verifiedDomainsOf(db, [...new Set(pages.map((p) => p.publisher_id))]),
    listNotices(db, ids),
  ]);
  const noticesByPage = new Map<number, Notice[]>();
  for (const { page_id, ...n } of notices) noticesByPage.set(page_id, [...(noticesByPage.get(page_id) ?? []), n]);
  const byPage = new Map<number, RecordContributionRow[]>();
  for (const c of contributions) byPage.set(c.page_id, [...(byPage.get(c.page_id) ?? []), c]);
  return pages.map((page) => ({
    page,
    verified: (domains.get(page.publisher_id) ?? []).some((d) => hostUnderDomain(page.host, d)),
    contributions: byPage.get(page.id) ?? [],
    ...withNotices(noticesByPage.get(page.id) ?? []),
  }));
}

/** Records by lookup key, page id or embed key in one prepared statement (the cache-miss path), page id order. */
export async function loadRecords(read: FixedReader, by: 'lookup' | 'id' | 'embed', value: string | number): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  let current: PageRecord | undefined;
  for (const r of await loadRecordRows(read, by, value)) {
    if (!current || current.page.id !== r.id) {
      current = { page: pageOf(r), verified: Boolean(r.verified), contributions: [], ...withNotices(noticesOf(r.notices)) };
      out.push(current);
    }
    if (r.c_id !== null) current.contributions.push(contributionOf(r));
  }
  return out;
}

// Field by field, so the record holds exactly what the three-query path (buildRecords) gives.
const pageOf = (r: RecordLoadRow): PageRow => ({
  id: r.id,
  publisher_id: r.publisher_id,
  url: r.url,
  lookup_key: r.lookup_key,
  embed_key: r.embed_key,
  host: r.host,
  title: r.title,
  topic: r.topic,
  created_at: r.created_at,
  updated_at: r.updated_at,
  content_hash: r.content_hash,
  content_seen_at: r.content_seen_at,
  content_changed_at: r.content_changed_at,
  publisher_slug: r.publisher_slug,
  publisher_name: r.publisher_name,
});

/** The JSON array the record statement carries, field by field. */
function noticesOf(json: string | null): Notice[] {
  if (!json) return [];
  return (JSON.parse(json) as Notice[]).map((n) => ({
    id: Number(n.id),
    type: n.type,
    notice_date: n.notice_date,
    reason: n.reason,
    notice_url: n.notice_url ?? null,
    created_at: n.created_at,
    log_seq: n.log_seq === null ? null : Number(n.log_seq),
  }));
}

const contributionOf = (r: RecordLoadRow): RecordContributionRow => ({
  id: r.c_id!,
  page_id: r.id,
  role: r.role!,
  summary: r.summary!,
  change_from: r.change_from,
  change_to: r.change_to,
  accepted_at: r.accepted_at!,
  quote_exact: r.quote_exact,
  quote_prefix: r.quote_prefix,
  quote_suffix: r.quote_suffix,
  claim: r.claim,
  verdict: r.verdict,
  page_hash: r.page_hash,
  page_changed_at: r.page_changed_at,
  correction_missing: r.correction_missing!,
  log_seq: r.log_seq,
  asserted_by: r.asserted_by!,
  consent: r.consent!,
  account_id: r.account_id!,
  username: r.username!,
  name: r.name!,
  level: r.level!,
  trust_score: r.trust_score!,
});
