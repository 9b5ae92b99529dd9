// A publication acts on a page only while it holds the page's site (seed 000 §4 rule 1, §5.3): once `domains:verify`
// moves a domain to another publication, the old one's pages there are no longer its to open requests on or to
// decide work for, though the pages keep their history.
import type { Db } from '../../db/schema.js';
import { pageNotVerified } from '../errors.js';
import { hostUnderDomain, parsePageUrl } from '../pages/url-keys.js';
import { verifiedDomainsOf } from './publisher.store.js';

/** Whether each of these publications holds a URL's site now, read once for all of them. */
export async function holdings(db: Db, publisherIds: number[]): Promise<(publisherId: number, url: string) => boolean> {
  const domains = await verifiedDomainsOf(db, [...new Set(publisherIds)]);
  return (publisherId, url) => {
    const host = parsePageUrl(url)?.host;
    return host !== undefined && (domains.get(publisherId) ?? []).some((d) => hostUnderDomain(host, d));
  };
}

/** Throw 403 `page_not_verified` unless the publication holds the URL's site now. */
export async function assertHolds(db: Db, publisherId: number, url: string): Promise<void> {
  if (!(await holdings(db, [publisherId]))(publisherId, url)) throw pageNotVerified(parsePageUrl(url)?.host ?? url);
}
