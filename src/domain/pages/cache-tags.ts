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
  /** A verified domain covers its subdomains: a record depends on every suffix of its host. */
  domains: (host: string) => host.split('.').map((_, i, labels) => `domain:${labels.slice(i).join('.')}`),
  domain: (domain: string) => `domain:${domain}`,
  /** The contributor directory depends on every contributor. */
  contributors: 'contributors',
};

/** What a built record shows: the page, its publisher, its host's verification and each contributor's public face. */
export function recordTags(r: PageRecord): string[] {
  return [
    tag.page(r.page.id),
    tag.publisher(r.page.publisher_id),
    tag.lookup(r.page.lookup_key),
    tag.embed(r.page.embed_key),
    ...tag.domains(r.page.host),
    ...new Set(r.contributions.map((c) => tag.account(c.account_id))),
  ];
}
