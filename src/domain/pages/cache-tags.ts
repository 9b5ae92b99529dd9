// The names cached answers depend on (record-cache.ts), shared by what caches (records, embeds, the directory) and
// what invalidates (the change follower), so both sides spell them the same way.
import { createHash } from 'node:crypto';
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
  /** A bucket of the extension's private lookup (key-hash.ts): it depends on every page whose key falls in it. */
  bucket: (prefix: string) => `bucket:${prefix}`,
  /** The extension's list of verified domains depends on every domain's verification. */
  hosts: 'hosts',
  /** Which panel statements cite a page: a new version may cite any page (its change names no page). */
  panels: 'panels',
  /** The contributor directory depends on every contributor. */
  contributors: 'contributors',
  /** The log's files (checkpoint, tiles, entry bundles): a decision that withholds text changes entry bundles. */
  log: 'log',
  /** The verifiable credentials' status lists: computed from the record, so any withdrawal, erasure, notice or decision. */
  credentials: 'credentials',
};

/**
 * What a built record shows: the page, its publisher, its host's verification and each contributor's public face.
 * Not its lookup or embed key: once a page exists, nothing but a change to that page (tagged with its id) can change
 * which page a key names for this record; answers about keys (an unregistered URL, the embed's choice among pages
 * sharing a key) track those tags themselves. Fewer tags per answer is less work on every miss.
 */
export function recordTags(r: PageRecord): string[] {
  const tags = [tag.page(r.page.id), tag.publisher(r.page.publisher_id), ...tag.domains(r.page.host)];
  for (const c of r.contributions) {
    const t = tag.account(c.account_id);
    if (!tags.includes(t)) tags.push(t);
  }
  return tags;
}

/**
 * A tag as a surrogate key of the cache tier (Varnish's `xkey` header, docs/cache.md): a digest, so every key is 16
 * characters a header can carry whatever the tag holds (a lookup key may hold commas or spaces, which separate xkey's
 * keys), and the header shows nothing beyond what the answer itself says. The purger digests the tags each change
 * touches the same way. A collision would only purge an unrelated answer too.
 */
export function surrogateKey(t: string): string {
  return createHash('sha256').update(t).digest('base64url').slice(0, 16);
}

/** Answers that change only with a release (embed.js): purged by a restart's purge of everything, or their TTL. */
export const STATIC_KEY = surrogateKey('static');
/** The log's checkpoint: kept a second at most (its own max-age), keyed so that a purge of everything reaches it. */
export const LOG_KEY = surrogateKey(tag.log);
