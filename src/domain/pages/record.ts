// A page's trust record as data: the page, its publisher, whether its host is still verified, and every
// accepted contribution with the public face of its contributor. Surfaces' presenters shape it.
import type { Db } from '../deps.js';
import { verifiedDomainsOf } from '../publishers/publisher.store.js';
import { type PageRow, type RecordContributionRow, listAcceptedContributions } from './page.store.js';
import { hostUnderDomain } from './url-keys.js';

export interface PageRecord {
  page: PageRow;
  /** The page's host is under a verified domain of its publisher (SPEC §4). */
  verified: boolean;
  contributions: RecordContributionRow[];
}

/**
 * A page "has a record" once it has accepted work (or named authors): both seeds' words, one rule. A registered page
 * without any is `has_record: false` on the /api/v1 lookup and 404 "no record yet" on /v1/pages/record (issue 15).
 */
export const hasRecord = (record: PageRecord | null): record is PageRecord => record !== null && record.contributions.length > 0;

/** Records for many pages in three queries, whatever the number of pages. */
export async function buildRecords(db: Db, pages: PageRow[]): Promise<PageRecord[]> {
  if (pages.length === 0) return [];
  const [contributions, domains] = await Promise.all([
    listAcceptedContributions(
      db,
      pages.map((p) => p.id),
    ),
    verifiedDomainsOf(db, [...new Set(pages.map((p) => p.publisher_id))]),
  ]);
  const byPage = new Map<number, RecordContributionRow[]>();
  for (const c of contributions) byPage.set(c.page_id, [...(byPage.get(c.page_id) ?? []), c]);
  return pages.map((page) => ({
    page,
    verified: (domains.get(page.publisher_id) ?? []).some((d) => hostUnderDomain(page.host, d)),
    contributions: byPage.get(page.id) ?? [],
  }));
}
