// The names cached answers depend on (record-cache.ts), shared by what caches (records, embeds, the directory) and
// what invalidates (the change follower), so both sides spell them the same way.
import type { PageRecord } from './record.js';

export const tag = {
  page: (id: number) => `page:${id}`,
  account: (id: number) => `account:${id}`,
  publisher: (id: number) => `publisher:${id}`,
  panel: (id: string) => `panel:${id}`,
  /** A lookup key: an answer for a URL nobody has registered yet depends on it. */
  lookup: (lookupKey: string) => `lookup:${lookupKey}`,
  /** An embed key: which page an embed shows depends on every page that shares it. */
  embed: (embedKey: string) => `embed:${embedKey}`,
  /**
   * A verified domain covers its subdomains: a record depends on every suffix of its host that could be claimed
   * (two labels or more, as parseDomain requires; a tag every record shared, `domain:com`, cost each miss its share).
   */
  domains: (host: string) => {
    const tags: string[] = [];
    // Each suffix that still has a dot in it: a.b.example → a.b.example, b.example.
    for (let at = 0; host.indexOf('.', at) >= 0; at = host.indexOf('.', at) + 1) tags.push(`domain:${host.slice(at)}`);
    return tags;
  },
  domain: (domain: string) => `domain:${domain}`,
  /** The contributor directory depends on every contributor. */
  contributors: 'contributors',
};

/**
 * What a built record shows: the page, its publisher, its host's verification and each contributor's public face.
 * Not its lookup or embed key: once a page exists, nothing but a change to that page (tagged with its id) can change
 * which page a key names for this record; answers about keys (an unregistered URL, the embed's choice among pages
 * sharing a key) track those tags themselves. Fewer tags per answer is less work on every miss (issue 16).
 */
export function recordTags(r: PageRecord): string[] {
  const tags = [tag.page(r.page.id), tag.publisher(r.page.publisher_id), ...tag.domains(r.page.host)];
  for (const c of r.contributions) {
    const t = tag.account(c.account_id);
    if (!tags.includes(t)) tags.push(t);
  }
  return tags;
}
